"""Text from the notes, the models and the AI apps, made safe to print on a terminal.

A title, a body, a model's answer or a tool's summary may hold control characters: written to a
terminal as they are, ``ESC]52;…`` sets the clipboard, ``ESC]0;…`` the window title, ``ESC[2J``
clears the screen, and a lone carriage return lets a line be drawn over. Any note an AI app wrote
(over MCP), a sync brought or an import read could carry them. On a terminal each such character
is shown as its control picture (ESC as ``␛``); piped to a file or a program, text is written as
it is (the note's own bytes), and JSON escapes them itself.
"""

from __future__ import annotations

import re
from typing import TextIO

from noted.store.rules import control_picture

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)")
"""C0 controls but tab, newline and a carriage return before a newline; DEL; the C1 controls."""


def shown(text: str, stream: TextIO) -> str:
    """``text`` as it may be written to ``stream``: control characters pictured on a terminal."""
    if not _CONTROL.search(text) or not _is_terminal(stream):
        return text
    return _CONTROL.sub(lambda match: control_picture(match.group()), text)  # ␍: a lone carriage return


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or odd stream
        return False

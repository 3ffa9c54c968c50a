"""Text from the notes, the models and the AI apps, made safe to print on a terminal.

A title, a body, a model's answer or a tool's summary may hold control characters: written to a
terminal as they are, ``ESC]52;…`` sets the clipboard, ``ESC]0;…`` the window title, ``ESC[2J``
clears the screen, and a lone carriage return lets a line be drawn over. Any note an AI app wrote
(over MCP), a sync brought or an import read could carry them, and Unicode's bidi controls, which
make a title read reversed (``photo\u202egnp.exe`` reads ``photoexe.png``). On a terminal each
control character is shown as its control picture (ESC as ``␛``) and the bidi controls are left
out, as the app does; piped to a file or a program, text is written as it is (the note's own
bytes), and JSON gives the exact text too, those characters escaped on a terminal.
"""

from __future__ import annotations

from typing import TextIO

from noted.store.rules import TERMINAL_TEXT

_SHOWN = TERMINAL_TEXT | {ord("\t"): "\t", ord("\n"): "\n"}
"""The app's rule, with tabs and line breaks kept (the app's lines hold neither)."""
_ESCAPED = {code: f"\\u{code:04x}" for code in TERMINAL_TEXT if code != ord("\n")}
"""What the rule would change in JSON, escaped as JSON escapes it (the same text once read)."""


def shown(text: str, stream: TextIO) -> str:
    """``text`` as it may be written to ``stream``: on a terminal, control characters pictured and
    bidi controls left out (``noted.store.rules.TERMINAL_TEXT``)."""
    if not _is_terminal(stream):
        return text
    # A carriage return before a newline ends a line (a file from Windows); a lone one (␍) lets
    # a line be drawn over.
    return "\r\n".join(part.translate(_SHOWN) for part in text.split("\r\n"))


def shown_json(text: str, stream: TextIO) -> str:
    """JSON ``text`` as it may be written to ``stream``: on a terminal, each character ``shown``
    would change escaped (``\\u202e``), so a program reading it gets the exact text."""
    return text.translate(_ESCAPED) if _is_terminal(stream) else text


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or odd stream
        return False

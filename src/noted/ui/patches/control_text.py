"""Picture the control characters of what the app draws, so a note cannot drive the terminal.

Upstream (Textual 8.2, ``strip.py``): ``Strip.render`` writes each segment's text to the terminal
as it is. A note's title or body, a notebook's name or a model's answer holding ``ESC`` therefore
reaches the terminal as an escape sequence: a note an AI app wrote over MCP, or a sync or an import
brought, cleared the screen when it was opened (``ESC[2J``), and could set the clipboard
(``ESC]52``) or the window title. Rich's ``Text`` strips a few controls (BEL, BS, VT, FF, CR) but
not ``ESC``. To report: "Strip.render writes control characters of segment text to the terminal;
text from users can drive it".

The patch renders as Textual does, with the text of every segment that is not itself a control
sequence passed through ``str.translate``: each C0 and C1 control and DEL becomes its control
picture (``␛``) or U+FFFD, one cell wide, and Unicode's bidi controls (U+202A … U+202E, U+2066 …
U+2069, U+200E, U+200F, U+061C) are left out, by the rule the command line follows
(``noted.store.rules.TERMINAL_TEXT``).
It is not a speed patch: it stays on when the speed patches are off.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.color import ColorSystem
from rich.console import COLOR_SYSTEMS

from noted.store.rules import TERMINAL_TEXT
from noted.ui.patches.guard import Patch, Private, Swap

if TYPE_CHECKING:
    from rich.console import Console
    from textual.strip import Strip

PICTURES = TERMINAL_TEXT
"""Bidi controls left out as the command line leaves them out: Rich lays them out 0 cells wide, while
some terminals give each a cell, so a model's answer or a note holding them pushed a pane's right
border out; shown as a sign they would take a cell the layout never counted."""


def _render(self: Strip, console: Console) -> str:
    """``Strip.render`` as in Textual, each text segment's control characters pictured."""
    if self._render_cache is None:
        color_system = COLOR_SYSTEMS.get(console.color_system or "", ColorSystem.TRUECOLOR)
        render = self.render_style
        self._render_cache = "".join(
            [
                text
                if control
                else (
                    text.translate(PICTURES)
                    if style is None
                    else render(style, text.translate(PICTURES), color_system=color_system)
                )
                for text, style, control in self._segments
            ]
        )
    return self._render_cache


_SWAP = Swap("textual.strip:Strip", {"render": _render})
PATCH = Patch(
    name="control_text",
    module=__name__,
    written_for="8.2",
    touches=(
        Private("textual.strip:Strip", "render", "(self, console: 'Console') -> 'str'"),
        Private("textual.strip:Strip", "_render_cache"),
        Private("textual.strip:Strip", "_segments"),
    ),
    swap=_SWAP,
)

"""A page's drawing as a value: how it is drawn (``Look``), what was drawn (``Drawn``), and ``draw``,
which is pure, so a worker thread may draw a page ahead of time (``noted.ui.widgets.markdown_page``
shows the drawings; the reader's worker draws the note it reads).

Drawing is the costly part of opening a long note (half a second of a thread for a 200,000-character
opening), so a note read again with the text its page shows keeps that drawing (``Kept``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.theme import Theme
from textual.strip import Strip

from noted.markdown import opening


@dataclass(frozen=True, slots=True)
class Look:
    """How a page is drawn: its width and colours. Pages drawn for one look can be shown as they are."""

    width: int
    theme: Theme = field(compare=False)
    theme_name: str
    code_theme: str


@dataclass(frozen=True, slots=True)
class Drawn:
    """A body drawn for one look: its lines, and the row of each heading by source line."""

    look: Look
    lines: list[Strip]
    heading_rows: dict[int, int]
    upto: int | None = None
    """When only the body's opening is drawn, the source lines it holds (the page draws the rest
    in a thread); None when all of it is."""


@dataclass(frozen=True, slots=True)
class Kept:
    """The text a page shows and its whole drawing, handed to a thread that reads the note again."""

    body: str
    drawn: Drawn

    def drawing(self, body: str, look: Look) -> Drawn | None:
        """The drawing if it is of ``body`` in ``look``: the note read again need not be drawn
        again (shown again, or a tag or its notebook changed, not its text)."""
        return self.drawn if self.drawn.look == look and self.body == body else None


def draw(body: str, look: Look, limit: int | None = None) -> Drawn:
    """Render ``body`` for ``look`` (``limit``: only its opening of that many characters); pure, so
    a worker thread may draw a page ahead of time."""
    if not body.strip():
        return Drawn(look, [], {})  # the empty page at start-up need not load the Markdown renderer
    from noted.ui.widgets.markdown_draw import draw_lines  # Rich's Markdown (and Pygments) load on first use

    text = body if limit is None else opening(body, limit)
    lines, rows = draw_lines(text, look.width, look.theme, look.code_theme)
    return Drawn(look, lines, rows, None if len(text) == len(body) else text.count("\n"))

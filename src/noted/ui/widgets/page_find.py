"""Finding in the open note (``/`` in the reader, then ``n``/``N``, as in less and vim).

The find looks in the page as drawn (what the person reads: ``**word**`` is found as ``word``),
line by line, so a phrase the page wraps across two lines is not found. Case counts only when the
text has a capital (vim's ``smartcase``, less's ``-i``). Pure functions and state, no widget: the
page (``MarkdownPage``) keeps a ``PageFind`` and paints its hits with ``highlight``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.style import Style
from textual.strip import Strip

HIT = Style(reverse=True)
"""A match: reversed, so it shows in every theme and with ``NO_COLOR``."""
CURRENT = Style(reverse=True, bold=True, underline=True)
"""The match ``n``/``N`` went to."""


@dataclass(frozen=True, slots=True)
class Hit:
    """One match: its page row and its columns (cells, from ``start`` up to ``end``)."""

    row: int
    start: int
    end: int


def find_hits(lines: Sequence[str], text: str, pattern: re.Pattern[str] | None = None) -> list[Hit]:
    """Every match of ``text`` (or of ``pattern``, when given) in ``lines`` (the page's rows as
    plain text), top to bottom."""
    if pattern is not None:
        return [
            Hit(row, cell_len(line[: m.start()]), cell_len(line[: m.end()]))
            for row, line in enumerate(lines)
            for m in pattern.finditer(line)
            if m.end() > m.start()
        ]
    if not text:
        return []
    exact = any(char.isupper() for char in text)
    needle = text if exact else text.lower()
    hits = []
    for row, line in enumerate(lines):
        hay = line if exact else line.lower()
        if len(hay) != len(line):  # a letter whose lower case is longer: look, but as written
            hay = line
        at = hay.find(needle)
        while at >= 0:
            start = cell_len(line[:at])
            hits.append(Hit(row, start, start + cell_len(line[at : at + len(needle)])))
            at = hay.find(needle, at + len(needle))
    return hits


def highlight(strip: Strip, hits: Sequence[Hit], current: Hit | None) -> Strip:
    """``strip`` (one painted row) with ``hits`` (that row's) shown as matches."""
    width = strip.cell_length
    cuts = sorted({cut for hit in hits for cut in (hit.start, hit.end) if 0 < cut < width} | {width})
    parts = strip.divide(cuts)
    starts = [0, *cuts]
    styled = []
    for part, at in zip(parts, starts, strict=False):
        hit = next((h for h in hits if h.start <= at < h.end), None)
        styled.append(part if hit is None else part.apply_style(CURRENT if hit == current else HIT))
    return Strip.join(styled)


class PageFind:
    """What is being found in a page, its matches, and the one the reader is at."""

    def __init__(
        self, text: str, origin: int, pattern: re.Pattern[str] | None = None, title: str = ""
    ) -> None:
        self.text = text
        self.pattern = pattern
        """What to find in place of ``text`` (which then only names it): the words a search found
        the note by (``noted.search.sections.marks``)."""
        self.title = title
        """The note's title, which the page does not show but a search looks in."""
        self.origin = origin
        """The page row at the top of the view when the find began: matches are looked for from
        there, and ``Esc`` while typing goes back there."""
        self.hits: list[Hit] = []
        self.current: int | None = None
        self.wrapped = ""
        """Where ``n``/``N`` went round the page's end to: ``"top"``, ``"bottom"`` or not at all."""
        self._by_row: dict[int, list[Hit]] = {}

    def search(self, lines: Sequence[str], from_row: int) -> None:
        """Find ``text`` again in ``lines``; the current match is the first at or after ``from_row``."""
        self.hits = find_hits(lines, self.text, self.pattern)
        self._by_row = {}
        for hit in self.hits:
            self._by_row.setdefault(hit.row, []).append(hit)
        after = next((i for i, hit in enumerate(self.hits) if hit.row >= from_row), 0)
        self.current = after if self.hits else None
        self.wrapped = ""

    def step(self, forward: bool) -> Hit | None:
        """Go to the next match (``forward``) or the previous one, round the end of the page."""
        if self.current is None:
            return None
        count = len(self.hits)
        moved = self.current + (1 if forward else -1)
        self.wrapped = "" if 0 <= moved < count else "top" if forward else "bottom"
        self.current = moved % count
        return self.hits[self.current]

    @property
    def hit(self) -> Hit | None:
        return None if self.current is None else self.hits[self.current]

    def on_row(self, row: int) -> list[Hit]:
        return self._by_row.get(row, [])

    def status(self) -> str:
        """``find: word · 3/7`` (and whether ``n`` went round the end)."""
        if not self.text:
            return ""
        if self.current is None:  # a search may have found the note by its title, not the page
            in_title = self.pattern is not None and self.pattern.search(self.title)
            return f"find: {self.text} · {'in the title, not the text' if in_title else 'no match'}"
        where = f"{self.current + 1}/{len(self.hits)}"
        if self.wrapped:
            where += f" · from the {self.wrapped}"
        return f"find: {self.text} · {where}"

"""Filtering the note list in place (``/``, as in lazygit): the notes whose titles hold every word typed.

The list reads its notes a page at a time, but a filter must see them all: when ``/`` opens, the
list reads every note of its source once, in a worker (``POOL`` at most), and from then on the
filter runs in memory on each key (a lowered title per note, each word a substring of it: a few
milliseconds for 10,000 notes). Until that read comes, the filter narrows the notes loaded. The
matches are shown a page at a time, as the list shows its notes.

``ListFilter`` holds the state and decides; ``NoteList`` draws the rows it hands back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len

from noted.ui.data import PAGE_SIZE, NoteRow

POOL = 50_000
"""The most notes a filter reads: a source with more is filtered over its first ``POOL``."""


def fitting(titles: Sequence[str], room: int) -> str:
    """The first of ``titles`` (fullest first) that fits in ``room`` cells (0: any), else the last:
    a pane's title while it filters keeps the words typed in sight, dropping the rest first."""
    return next((title for title in titles if room <= 0 or cell_len(title) <= room), titles[-1])


def title_words(text: str) -> tuple[str, ...]:
    """The words a filter looks for, lowered (case does not count)."""
    return tuple(text.casefold().split())


@dataclass(frozen=True, slots=True)
class Before:
    """The list as it was when ``/`` was pressed: ``Esc`` puts it back."""

    rows: tuple[NoteRow, ...]
    has_more: bool
    total: int | None
    note: str | None
    """The note under the cursor."""


@dataclass(frozen=True, slots=True)
class Restored:
    """What the list shows once the filter is cleared, and where its cursor goes."""

    rows: list[NoteRow]
    has_more: bool
    total: int | None
    note: str | None


class ListFilter:
    """The note list's filter: its text, every note of the source, and the list before it."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self.text = ""
        self.before: Before | None = None
        """Set while a filter is open or kept (``active``)."""
        self.kept = False
        """``Enter`` kept the filter: ``Esc`` then leaves the cursor on the note it is on."""
        self._pool: tuple[NoteRow, ...] | None = None
        self._pool_cut = False
        self._titles: list[str] = []
        self.matches: list[NoteRow] = []

    @property
    def active(self) -> bool:
        return self.before is not None

    @property
    def pool_size(self) -> int | None:
        """How many notes the filter has read (every note of the source), None until they came."""
        return None if self._pool is None else len(self._pool)

    @property
    def narrowing(self) -> bool:
        """A filter is active and has words: the list shows only the matches."""
        return self.before is not None and bool(title_words(self.text))

    def begin(self, before: Before) -> None:
        """``/`` was pressed (again, if a filter is kept: the list as it was first stays the one to go back to)."""
        if self.before is None:
            self.before, self.text, self.kept = before, "", False
            self._use(before.rows)

    def set_pool(self, rows: tuple[NoteRow, ...], cut: bool) -> None:
        """Every note of the source (``cut``: the first ``POOL`` of more), read by a worker."""
        self._pool, self._pool_cut = rows, cut
        self._use(rows)

    def _use(self, rows: tuple[NoteRow, ...]) -> None:
        self._titles = [(row.meta.title or "").casefold() for row in rows]

    def match(self, text: str) -> list[NoteRow]:
        """The notes whose titles hold every word of ``text``, in the list's order."""
        self.text = text
        rows = self._pool if self._pool is not None else self.before.rows if self.before else ()
        words = title_words(text)
        titles = self._titles
        self.matches = [
            row for row, title in zip(rows, titles, strict=True) if all(w in title for w in words)
        ]
        return self.matches

    def holds(self, row: NoteRow) -> bool:
        """Whether ``row``'s title holds every word of the filter."""
        title = (row.meta.title or "").casefold()
        return all(word in title for word in title_words(self.text))

    def next_page(self, shown: int) -> list[NoteRow]:
        """The matches after the first ``shown``, a page of them (the cursor neared the end)."""
        return self.matches[shown : shown + PAGE_SIZE]

    def title(self, name: str, marked: str, sort: str, room: int) -> str:
        """The list's title while it filters, ``All notes · 12 of 340 · filter: foo · by updated``,
        fitted to ``room`` cells: the sort goes first, then the name, then the count of matches;
        the words typed stay, cut at their end only after a count of ``marked`` notes, which triage
        acts on."""
        count, words = f"{self.count()}{marked}", f"filter: {self.text.strip()}"
        full = f"{name} · {count} · {words}"
        last = f"{marked.removeprefix(' · ')} · {words}" if marked else words
        return fitting((f"{full}{sort}", full, f"{count} · {words}", last), room)

    def count(self) -> str:
        """How many notes match, of how many: ``12 of 340`` (the list's title says it, with the filter)."""
        if self._pool is not None:
            total = f"{len(self._pool):,}{'+' if self._pool_cut else ''}"
        else:  # the notes loaded so far, until every note of the source is read
            before = self.before or Before((), False, None, None)
            more = "+" if before.has_more else ""
            total = f"{before.total:,}" if before.total is not None else f"{len(before.rows):,}{more}"
        return f"{len(self.matches):,} of {total}"

    def end(self, current: str | None) -> Restored:
        """Clear the filter: the list as before (re-read meanwhile, if it was), the cursor on the
        note it was on before (or, once the filter was kept, on ``current``)."""
        before = self.before or Before((), False, None, None)
        note = current if self.kept and current is not None else before.note
        pool, cut = self._pool, self._pool_cut
        self._reset()
        if pool is None:
            return Restored(list(before.rows), before.has_more, before.total, note)
        index = next((i for i, row in enumerate(pool) if row.meta.id == note), 0)
        # As many notes as were loaded, or, if the cursor's note is further down, up to a page past it.
        shown = max(len(before.rows), PAGE_SIZE)
        count = shown if index < shown else index + PAGE_SIZE
        return Restored(list(pool[:count]), count < len(pool) or cut, None if cut else len(pool), note)

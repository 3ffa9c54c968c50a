"""``MarkedRows``: the note list's rows, and their marks for triage to act on.

``Space`` marks one note, ``v`` a range (every note the cursor passes until ``v`` again), ``*`` every
note of the list, loaded or not, or every match of a filter (or, all being marked, none). Marks
belong to notes, not to drawn rows: they stay through a filter, a sort and scrolling until a triage
action or ``*`` clears them, another notebook is listed, or the note leaves the list
(``check_marks``). ``NoteList`` loads and filters the rows (and reads the whole list for ``*``);
here they are marked, and the triage keys act on them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from textual import on
from textual.message import Message
from textual.widgets import OptionList

from noted.models import NoteMeta
from noted.search.keyword import KeywordSearch
from noted.store.protocol import NoteOrder, Store
from noted.ui.data import PAGE_SIZE, NotePage, NoteRow, NoteSource, load_page, still_listed
from noted.ui.widgets.list_filter import POOL
from noted.ui.widgets.note_rows import row_prompt
from noted.ui.widgets.triage import NoteTriage, range_marks
from noted.ui.workers import in_thread, thread_work


class MarkedRows(OptionList):
    """An option list of notes, one option per row of ``rows``, some of them marked."""

    rows: list[NoteRow]
    source: NoteSource
    _store: Store
    _keyword: KeywordSearch
    marked: dict[str, NoteMeta]
    """The marked notes, loaded or not, as last read (``freshen``), in the order marked."""
    order: NoteOrder
    triage: NoteTriage
    _range: tuple[int, dict[str, NoteMeta]] | None = None
    """While a range is marked (``v``): where it began, and the marks made before it."""

    @property
    def highlighted_meta(self) -> NoteMeta | None:
        index = self.highlighted
        return self.rows[index].meta if index is not None and index < len(self.rows) else None

    def neighbours(self, note_id: str, reach: int = 2) -> list[str]:
        """The notes up to ``reach`` rows either side of ``note_id``, nearest first."""
        index = next((i for i, row in enumerate(self.rows) if row.meta.id == note_id), None)
        if index is None:
            return []
        order = [index + step * sign for step in range(1, reach + 1) for sign in (1, -1)]
        return [self.rows[i].meta.id for i in order if 0 <= i < len(self.rows)]

    def targets(self) -> list[NoteMeta]:
        """The marked notes (those loaded in list order, then the others), or the highlighted one."""
        if self.marked:
            loaded = [row.meta for row in self.rows if row.meta.id in self.marked]
            shown = {meta.id for meta in loaded}
            return loaded + [meta for note_id, meta in self.marked.items() if note_id not in shown]
        meta = self.highlighted_meta
        return [meta] if meta is not None else []

    def select_note(self, note_id: str) -> None:
        """Put the cursor on ``note_id`` if it is loaded."""
        for index, row in enumerate(self.rows):
            if row.meta.id == note_id:
                self.highlighted = index
                return

    def _title(self) -> str:
        """The list's title (its marked count among what it says)."""
        raise NotImplementedError

    def _redraw(self, index: int) -> None:
        row = self.rows[index]
        self.replace_option_prompt_at_index(index, row_prompt(row, row.meta.id in self.marked, self.order))

    def action_mark(self) -> None:
        index = self.highlighted
        if index is None or index >= len(self.rows):
            return
        meta = self.rows[index].meta
        if self.marked.pop(meta.id, None) is None:
            self.marked[meta.id] = meta
        self._redraw(index)
        self.border_title = self._title()
        self.action_cursor_down()

    def action_mark_range(self) -> None:
        """Begin a range at the cursor (the marks made so far stay), or end the one under way."""
        if self._range is not None:
            self._range = None
        elif self.highlighted is not None and self.highlighted < len(self.rows):
            self._range = (self.highlighted, dict(self.marked))
            self._extend_range(self.highlighted)
        self.border_title = self._title()

    def _extend_range(self, index: int | None) -> None:
        """Mark the notes from where the range began to ``index``, and no others of the range."""
        if self._range is None or index is None:
            return
        start, before = self._range
        marked = range_marks([row.meta for row in self.rows], start, before, index)
        changed, self.marked = marked.keys() ^ self.marked.keys(), marked
        for position, row in enumerate(self.rows):
            if row.meta.id in changed:
                self._redraw(position)
        self.border_title = self._title()

    def freshen(self, rows: Iterable[NoteRow]) -> None:
        """Keep the marked notes among ``rows`` as just read (triage decides on their state)."""
        for row in rows:
            if row.meta.id in self.marked:
                self.marked[row.meta.id] = row.meta

    def forget_unlisted(self, every: Sequence[NoteRow]) -> None:
        """Unmark the notes not among ``every`` (every note of the list, just read): they left it."""
        listed = {row.meta.id for row in every}
        self.marked = {note_id: meta for note_id, meta in self.marked.items() if note_id in listed}

    def check_marks(self, changed: Collection[str] | None) -> None:
        """After a change: a marked note it touched may have left the list (moved, retagged,
        trashed), so those notes are read again to forget the marks of any that did (every marked
        note when the notes changed are not known: ``None``, a notebook or tag changed). Past a
        page of them, the list is read whole: that costs no more. A triage action must not touch
        a note the list no longer holds."""
        touched = self.marked.keys() & (self.marked.keys() if changed is None else changed)
        if len(touched) > PAGE_SIZE:
            self._read_every(self.source, self.order, to_mark=False)
        elif touched:
            source, order = self.source, self.order
            in_thread(self, lambda: self._recheck(source, order, touched), "list-marks", "checking the marks")

    def _recheck(self, source: NoteSource, order: NoteOrder, touched: set[str]) -> None:
        """(A thread.) Which of ``touched`` left the list: read by note, or by reading all of it."""
        listed = still_listed(self._store, source, touched)
        if listed is None:  # a search: only a listing tells
            self.post_message(
                self._EveryRead(load_page(self._store, source, order, 0, POOL, self._keyword), False)
            )
        else:
            self.post_message(self._Left(source.key, touched - listed))

    @dataclass
    class _Left(Message, bubble=False):
        source_key: str
        note_ids: set[str]
        """Marked notes that changed and are no longer in the list."""

    @on(_Left)
    def _left(self, message: _Left) -> None:
        if message.source_key == self.source.key and message.note_ids & self.marked.keys():
            self.marked = {key: meta for key, meta in self.marked.items() if key not in message.note_ids}
            self.border_title = self._title()

    def every_note(self) -> Sequence[NoteRow] | None:
        """Every note of the list (every match of a filter), or None when not all are read yet."""
        raise NotImplementedError

    def listed(self, rows: Sequence[NoteRow]) -> list[NoteRow]:
        """Those of ``rows`` (every note of the source) that the list shows: a filter's matches."""
        raise NotImplementedError

    def read_every_note(self) -> None:
        """Read every note of the source in a worker; ``_every_read`` marks those listed."""
        self._read_every(self.source, self.order, to_mark=True)

    @thread_work("list-read-every", "reading every note of the list")
    def _read_every(self, source: NoteSource, order: NoteOrder, *, to_mark: bool) -> None:
        page = load_page(self._store, source, order, 0, POOL, self._keyword)
        self.post_message(self._EveryRead(page, to_mark))

    @dataclass
    class _EveryRead(Message, bubble=False):
        page: NotePage
        to_mark: bool
        """To mark every note listed (``*``), else to forget the marks of notes not in it."""

    @on(_EveryRead)
    def _every_read(self, message: _EveryRead) -> None:
        page = message.page
        if page.source.key != self.source.key or page.order != self.order:
            return  # no longer the list asked about
        if message.to_mark:
            self.mark_every([row.meta for row in self.listed(page.rows)])
        elif not page.has_more:  # the whole list
            self.forget_unlisted(page.rows)
            self.border_title = self._title()

    def action_mark_all(self) -> None:
        """Mark every note of the list, loaded or not (all marked already: unmark them)."""
        every = self.every_note()
        if every is not None:
            self.mark_every([row.meta for row in every])
        else:  # the notes past those loaded are read first (a worker: a list of 10,000 stays live)
            self.read_every_note()

    def mark_every(self, metas: Sequence[NoteMeta]) -> None:
        """Mark ``metas``, or unmark them if all are marked already."""
        if all(meta.id in self.marked for meta in metas):
            for meta in metas:
                self.marked.pop(meta.id, None)
        else:
            self.marked.update((meta.id, meta) for meta in metas)
        for index in range(len(self.rows)):
            self._redraw(index)
        self.border_title = self._title()

    def clear_marks(self) -> None:
        """Forget the marks (after a triage action)."""
        marked = self.marked
        self.marked, self._range = {}, None
        for index, row in enumerate(self.rows):
            if row.meta.id in marked:
                self._redraw(index)
        self.border_title = self._title()

    # Triage (``NoteTriage``) on the marked notes, or the highlighted one -----------------------
    def action_tag(self) -> None:
        self.triage.tag(self.targets())

    def action_move(self) -> None:
        self.triage.move(self.targets())

    def action_complete(self) -> None:
        self.triage.complete(self.targets())

    def action_todo(self) -> None:
        self.triage.toggle_todo(self.targets())

    def action_trash(self) -> None:
        self.triage.trash(self.targets())

    def action_restore(self) -> None:
        self.triage.restore(self.targets())

    def action_undo(self) -> None:
        self.triage.undo()

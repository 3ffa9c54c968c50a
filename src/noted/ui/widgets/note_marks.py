"""``MarkedRows``: the note list's rows, and their marks for triage to act on.

``Space`` marks one note, ``v`` a range (every note the cursor passes until ``v`` again), ``*`` all
the notes loaded, and every match of a filter, drawn or not (or none). ``NoteList`` loads and
filters the rows; here they are marked, and the triage keys act on them.
"""

from __future__ import annotations

from textual.widgets import OptionList

from noted.models import NoteMeta
from noted.store.protocol import NoteOrder
from noted.ui.data import NoteRow
from noted.ui.widgets.note_rows import row_prompt
from noted.ui.widgets.triage import NoteTriage, range_marks


class MarkedRows(OptionList):
    """An option list of notes, one option per row of ``rows``, some of them marked."""

    rows: list[NoteRow]
    marked: set[str]
    order: NoteOrder
    triage: NoteTriage
    _range: tuple[int, frozenset[str]] | None = None
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
        """The marked notes in list order, or the highlighted one."""
        if self.marked:
            return [row.meta for row in self.rows if row.meta.id in self.marked]
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
        self.marked ^= {self.rows[index].meta.id}
        self._redraw(index)
        self.border_title = self._title()
        self.action_cursor_down()

    def action_mark_range(self) -> None:
        """Begin a range at the cursor (the marks made so far stay), or end the one under way."""
        if self._range is not None:
            self._range = None
        elif self.highlighted is not None and self.highlighted < len(self.rows):
            self._range = (self.highlighted, frozenset(self.marked))
            self._extend_range(self.highlighted)
        self.border_title = self._title()

    def _extend_range(self, index: int | None) -> None:
        """Mark the notes from where the range began to ``index``, and no others of the range."""
        if self._range is None or index is None:
            return
        marked = range_marks([row.meta.id for row in self.rows], *self._range, index)
        changed, self.marked = marked ^ self.marked, marked
        for position, row in enumerate(self.rows):
            if row.meta.id in changed:
                self._redraw(position)
        self.border_title = self._title()

    def _draw_all(self) -> None:
        """Add to ``rows`` the notes the list holds but has not drawn yet, which ``*`` marks too."""

    def action_mark_all(self) -> None:
        self._draw_all()  # a filter's matches past its first page: "150 of 155" marks 150
        ids = {row.meta.id for row in self.rows}
        self.marked = set() if ids <= self.marked else ids
        for index in range(len(self.rows)):
            self._redraw(index)
        self.border_title = self._title()

    def clear_marks(self) -> None:
        """Forget the marks (after a triage action)."""
        marked = self.marked
        self.marked, self._range = set(), None
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

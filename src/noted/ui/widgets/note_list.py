"""``NoteList``: the notes of the selected notebook, tag, to-dos, trash or search; paged, sortable.

Each note takes two lines: the title (with its to-do box and triage mark), then the updated time
and tags. Pages of ``PAGE_SIZE`` notes load as the cursor nears the end, so a notebook of ten
thousand notes opens as fast as one of ten. Triage acts on the marked notes (Space marks), or on
the highlighted one when none is marked; see ``NoteTriage`` for the writes.

``_announce`` keeps no reader state, only the note this list last reported under its cursor (so a
refresh does not report it again); what the reader shows is ``reader_model``'s to decide.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import partial
from typing import ClassVar

from rich.segment import Segment
from textual import on
from textual.binding import Binding, BindingType
from textual.geometry import Region
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from noted.models import Folder, NoteMeta
from noted.search.keyword import KeywordSearch
from noted.store.protocol import NoteOrder, Store
from noted.ui.data import ALL_NOTES, PAGE_SIZE, NotePage, NoteRow, NoteSource, load_page
from noted.ui.key_hints import chord_keys
from noted.ui.messages import FirstNotesListed
from noted.ui.patches.option_rows import option_lines, refresh_options
from noted.ui.patches.steady_scrollbars import SteadyScrollbars
from noted.ui.widgets.list_filter import POOL, Before, ListFilter, fitting
from noted.ui.widgets.note_marks import MarkedRows
from noted.ui.widgets.note_rows import nothing_listed, row_prompt, wrapped
from noted.ui.widgets.prompt_bar import FiltersInPlace, ask
from noted.ui.widgets.triage import NoteTriage
from noted.ui.workers import ReportsWorkerFailures, thread_work

SORTS = (NoteOrder.UPDATED, NoteOrder.TITLE, NoteOrder.CREATED)
_SORT_LABEL = {NoteOrder.UPDATED: "updated", NoteOrder.TITLE: "title", NoteOrder.CREATED: "created"}
_PREFETCH = 20
"""Load the next page when the cursor is this close to the last loaded note."""


class NoteList(FiltersInPlace, ReportsWorkerFailures, SteadyScrollbars, MarkedRows):
    """The middle pane: one source's notes, newest first unless sorted otherwise."""

    HELP = """\
## Notes

{list.down}/{list.up} move, {list.first}/{list.last} first and last, {list.open} opens the note,
{list.edit} edits it.

Triage several notes at once: {list.mark} marks a note, {list.mark_all} marks all (or none); then
{list.tag} tags (`-tag` removes), {list.move} moves to a notebook, {list.complete} completes a to-do,
{list.todo} turns a note into a to-do (and back), {list.trash} moves to the trash, {list.restore}
restores from it. With nothing marked these act on the highlighted note. {list.sort} changes the sort
(updated, title, created), {list.new_note} creates a note.

{list.filter} filters the list in place: type words of the titles wanted (case does not count) and the
list narrows as you type; {prompt.keep} keeps the filter and goes back to the list, {prompt.clear} clears it
and puts the list and its cursor back. With a filter kept, {list.filter.clear} clears it. When no title
holds the words, {app.search} searches the notes' text and meaning for them.
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", show=False, id="list.down", tooltip="Next note"),
        Binding("k", "cursor_up", "Up", show=False, id="list.up", tooltip="Previous note"),
        Binding("g", "first", "First", show=False, id="list.first", tooltip="First note"),
        Binding("G", "last", "Last", show=False, id="list.last", tooltip="Last loaded note"),
        Binding("enter", "select", "Open", id="list.open", tooltip="Open the highlighted note"),
        Binding("e", "edit", "Edit", id="list.edit", tooltip="Edit the highlighted note"),
        Binding("space", "mark", "Mark", id="list.mark", tooltip="Mark or unmark the note for triage"),
        Binding("v", "mark_range", "Range", show=False, id="list.mark_range",
                tooltip="Mark a range: v, then j/k mark every note the cursor passes; v again ends it"),
        Binding("asterisk", "mark_all", "Mark all", show=False, id="list.mark_all",
                tooltip="Mark every note of the list (every match of a filter), or clear the marks"),
        Binding("t", "tag", "Tag", id="list.tag", tooltip="Add (or -remove) tags on the marked notes"),
        Binding("m", "move", "Move", id="list.move", tooltip="Move the marked notes to a notebook"),
        Binding("c", "complete", "Done", id="list.complete", tooltip="Complete (or reopen) the marked to-dos"),
        Binding("T", "todo", "To-do", show=False, id="list.todo", tooltip="Turn notes into to-dos and back"),
        Binding("d,delete", "trash", "Trash", id="list.trash", tooltip="Move the marked notes to the trash"),
        Binding("u", "restore", "Restore", show=False, id="list.restore", tooltip="Restore notes from the trash"),
        Binding("z", "undo", "Undo", show=False, id="list.undo",
                tooltip="Undo the last tag, move or to-do change (trash has u under Trash)"),
        Binding("s", "sort", "Sort", id="list.sort", tooltip="Sort by updated time, title or created time"),
        Binding("n", "new_note", "New", id="list.new_note", tooltip="Create a note in this notebook"),
        Binding("slash", "filter", "Filter", show=False, id="list.filter",
                tooltip="Filter the list by words of the titles, as you type"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="list.filter.clear",
                tooltip="Clear the filter kept on the list"),
    ]  # fmt: skip
    READ_WITH: ClassVar[tuple[str, ...]] = ("NoteScroll", "#editor")
    """The note under the cursor is read too: notices keep off its text (``noted.ui.notices``)."""

    _listed_notes = False
    """Whether a page with notes came (``FirstNotesListed`` is said once)."""
    _highlighted_note: str | None = None
    """The note last announced by ``NoteHighlighted``."""
    _rebuilding = False

    highlighted: reactive[int | None] = reactive(None, repaint=False)
    """As in ``OptionList``, but a move repaints the two rows it touches, not every row shown."""

    def watch_highlighted(self, old: int | None, new: int | None) -> None:  # type: ignore[override]  # Textual passes both
        super().watch_highlighted(new)
        if not self._rebuilding:
            self._announce(new)
            self._extend_range(new)
        refresh_options(self, old, new)

    def _announce(self, index: int | None, *, left: bool = False) -> None:
        note_id = self.rows[index].meta.id if index is not None and index < len(self.rows) else None
        if note_id is not None and note_id != self._highlighted_note:
            # Straight to the screen, ahead of this list's own repaint: the note then opens in the
            # same frame as the cursor moves, rather than one frame later. Only for another note:
            # a refresh that leaves the cursor where it was must not replace a note opened
            # from search or a link.
            self.screen.post_message(self.NoteHighlighted(self, note_id, left=left))
        self._highlighted_note = note_id

    def scroll_to_highlight(self, top: bool = False) -> None:
        """Scroll only when the cursor leaves the view, and then by half a page (as mutt and less
        do): fewer, larger scrolls repaint far less than one row at a time."""
        lines = option_lines(self, self.highlighted) if self.is_mounted and not top else None
        if lines is None:  # not laid out yet, or ``patches.option_rows`` is off: as Textual does
            super().scroll_to_highlight(top)
            return
        y, height = lines
        top_row = self.scroll_offset.y
        if top_row <= y and y + height <= top_row + self.scrollable_content_region.height:
            return
        row = Region(0, y, self.scrollable_content_region.width, height)
        self.scroll_to_region(row, center=True, force=True, animate=False, immediate=True)

    class NoteHighlighted(Message):
        """The cursor moved onto a note."""

        def __init__(self, note_list: NoteList, note_id: str, *, left: bool = False) -> None:
            super().__init__()
            self.note_list = note_list
            self.note_id = note_id
            self.left = left
            """The cursor's note left the list (trashed or moved elsewhere): the cursor is on the
            note that took its place, not moved by the person."""

        @property
        def control(self) -> NoteList:
            return self.note_list

    class NoteChosen(NoteHighlighted):
        """Enter (or ``e``, with ``edit``) on a note: open it and go there."""

        def __init__(self, note_list: NoteList, note_id: str, *, edit: bool = False) -> None:
            super().__init__(note_list, note_id)
            self.edit = edit

    @dataclass
    class _Page(Message, bubble=False):
        page: NotePage
        replace: bool
        keep: str | None

    def __init__(
        self,
        store: Store,
        keyword: KeywordSearch,
        *,
        id: str | None = None,  # noqa: A002 (Textual's name)
    ) -> None:
        super().__init__(id=id)
        self._store = store
        self._keyword = keyword
        self.source: NoteSource = ALL_NOTES
        self.order = NoteOrder.UPDATED
        self.rows: list[NoteRow] = []
        self.marked: dict[str, NoteMeta] = {}
        self._has_more = False
        self._total: int | None = None
        self._trashed: tuple[Folder, ...] = ()  # the notebooks in a trash with no notes, which it names
        self._asked_at: str | None = None
        self._loading = False
        self.triage = NoteTriage(self, store)
        self.filter: ListFilter = ListFilter()

    # Loading -------------------------------------------------------------------------------
    def load_first(self, page: NotePage | None) -> None:
        """List All notes (which the tree chooses once it has loaded) from ``page``, read while the
        app loaded, or (None) read now rather than after the tree."""
        self._loading = True
        if page is None:
            self._load(offset=0, limit=PAGE_SIZE, replace=True, keep=None)
        else:
            self.post_message(self._Page(page, replace=True, keep=None))

    def show(self, source: NoteSource) -> None:
        """List the notes of ``source`` from the top (does nothing if it is already shown or on its way)."""
        if source.key == self.source.key and (self.rows or self._loading):
            if source != self.source:  # the same notes under a new name (a notebook renamed)
                self.source = source
                self.border_title = self._title()
            return
        self.source, self._total = source, None
        self.filter.end(None)  # another notebook: its notes unfiltered
        self.marked.clear()
        self._range = None
        self._load(offset=0, limit=PAGE_SIZE, replace=True, keep=None)

    def refresh_notes(self, changed: Collection[str] | None = None) -> None:
        """Read the loaded notes again (``changed`` were written; None: not known), keeping the
        cursor on its note, and see whether the marked notes among them are still listed."""
        self._range = None
        self.check_marks(changed)
        self._load(offset=0, limit=max(len(self.rows), PAGE_SIZE), replace=True, keep=self.highlighted_id)

    def _load(self, *, offset: int, limit: int, replace: bool, keep: str | None) -> None:
        if self.filter.active and replace:  # a filter looks at every note, not the first pages
            offset, limit = 0, POOL
        self._loading = True
        self._asked_at = self.highlighted_id  # the cursor moved before the page came: it wins then
        self._fetch(self.source, self.order, offset, limit, replace, keep)

    @thread_work("list-load", "listing notes")
    def _fetch(
        self, source: NoteSource, order: NoteOrder, offset: int, limit: int, replace: bool, keep: str | None
    ) -> None:
        page = load_page(self._store, source, order, offset, limit, self._keyword)
        self.post_message(self._Page(page, replace, keep))

    @on(_Page)
    def _page(self, message: _Page) -> None:
        page = message.page
        if page.source.key != self.source.key or page.order != self.order:
            return  # an answer to a question no longer asked
        self._loading = False
        self._has_more = page.has_more
        keep = self.highlighted_id if message.keep and self.highlighted_id != self._asked_at else message.keep
        if page.total is not None:  # (a first page)
            self._total, self._trashed = page.total, page.trashed_notebooks
        if message.replace and not page.has_more:  # the whole list: a marked note not in it left it
            self.forget_unlisted(page.rows)
        if message.replace and self.filter.active:
            again = self.filter.pool_size is not None  # read again (a change): a note gone leaves its place
            self.filter.set_pool(page.rows, page.has_more)
            self._filter_rows(self.filter.text, keep, moved=again)
        elif message.replace:
            self._replace_rows(list(page.rows), keep)
        else:
            self._extend(page.rows)
        self.border_title = self._title()
        if self.rows and not self._listed_notes:  # the next frame paints them
            self._listed_notes = True
            self.post_message(FirstNotesListed(time.perf_counter(), time.process_time()))

    def _extend(self, rows: Sequence[NoteRow]) -> None:
        self.freshen(rows)
        self.rows.extend(rows)
        self.add_options(self._option(row) for row in rows)

    def every_note(self) -> Sequence[NoteRow] | None:
        if self.filter.active:  # its matches, once every note of the source is read
            return self.filter.matches if self.filter.pool_size is not None else None
        return None if self._has_more or self._loading else self.rows

    def listed(self, rows: Sequence[NoteRow]) -> list[NoteRow]:
        return [row for row in rows if self.filter.holds(row)] if self.filter.narrowing else list(rows)

    def _replace_rows(self, rows: list[NoteRow], keep: str | None, *, moved: bool = True) -> None:
        """Show ``rows``, the cursor on ``keep`` (``moved``: if it is not among them, at the same
        place, which says the note left the list) or else on the first."""
        previous = self.highlighted or 0
        self.rows = rows
        self.freshen(rows)  # a mark stays on its note, listed or not, until acted on or cleared
        # The cursor passes through other rows while the options are replaced: announce only
        # where it ends, so the reader does not flick to another note and back.
        self._rebuilding = True
        try:
            self.set_options(self._option(row) for row in rows)
            # Stay on the same note; if it left the list (trashed, moved), stay at the same place.
            fallback = min(previous, len(rows) - 1) if keep and moved else 0
            index = next((i for i, r in enumerate(rows) if r.meta.id == keep), None)
            self.highlighted = (fallback if index is None else index) if rows else None
        finally:
            self._rebuilding = False
        self._announce(self.highlighted, left=moved and keep is not None and index is None)
        self.border_title = self._title()

    def render_line(self, y: int) -> Strip:
        """An empty list says why (``nothing_listed``) rather than stay blank, once it has loaded."""
        if self.option_count or self._loading:
            return super().render_line(y)
        width = self.scrollable_content_region.width
        said = nothing_listed(
            self.source.kind,
            filtering=self.filter.narrowing,
            keys=partial(chord_keys, self.screen),
            trashed=self._trashed,
        )
        lines = wrapped(said, width - 1)
        if y >= len(lines):
            return super().render_line(y)
        style = self.get_visual_style("option-list--option-disabled").rich_style
        return Strip([Segment(f" {lines[y]}", style)]).crop_extend(0, width, style)

    def _option(self, row: NoteRow) -> Option:
        return Option(row_prompt(row, row.meta.id in self.marked, self.order), id=row.meta.id)

    def _title(self) -> str:
        count = (
            f"{len(self.rows)}{'+' if self._has_more else ''}" if self._total is None else f"{self._total:,}"
        )
        # The marked count before the sort, which a narrow list cuts first: triage acts on it.
        marked = f" · {len(self.marked):,} marked" if self.marked else ""
        marked += " (v ends)" if self._range is not None else ""
        sort = f" · by {_SORT_LABEL.get(self.order, self.order)}"
        room = self.outer_size.width - 6  # the top edge, less its corners and "─ " and " ─"
        if self.filter.narrowing:
            return self.filter.title(self.source.title, marked, sort, room)
        full = f"{self.source.title} · {count}{marked}"
        # The name gives way, then the count of notes; the count of marked notes stays whole.
        fewer = (f"{count}{marked}", marked.removeprefix(" · ")) if marked else ()
        return fitting((f"{full}{sort}", full, *fewer), room)

    def on_resize(self) -> None:
        self.border_title = self._title()  # a filter's title fits the width

    @on(NoteTriage.Done)
    def _triaged(self, message: NoteTriage.Done) -> None:
        self.clear_marks()
        self.triage.last = message.undo
        if message.failures:
            first = message.failures[0]
            more = f" (and {len(message.failures) - 1} more)" if len(message.failures) > 1 else ""
            self.notify(f"{message.summary} Not changed: {first}{more}", severity="warning")
        else:
            self.notify(message.summary)
        keep = message.select or self.highlighted_id
        self._load(offset=0, limit=max(len(self.rows), PAGE_SIZE), replace=True, keep=keep)

    # Cursor --------------------------------------------------------------------------------
    @property
    def highlighted_id(self) -> str | None:
        option = self.highlighted_option
        return option.id if option is not None else None

    @on(OptionList.OptionHighlighted)
    def _moved(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        index = event.option_index
        if self.filter.narrowing and index >= len(self.rows) - _PREFETCH:
            self._extend(self.filter.next_page(len(self.rows)))
        elif self._has_more and not self._loading and index >= len(self.rows) - _PREFETCH:
            self._load(offset=len(self.rows), limit=PAGE_SIZE, replace=False, keep=None)

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.post_message(self.NoteChosen(self, event.option.id))

    # Actions -------------------------------------------------------------------------------
    def action_sort(self) -> None:
        self.order = SORTS[(SORTS.index(self.order) + 1) % len(SORTS)] if self.order in SORTS else SORTS[0]
        self._load(offset=0, limit=max(len(self.rows), PAGE_SIZE), replace=True, keep=self.highlighted_id)

    def action_edit(self) -> None:
        note_id = self.highlighted_id
        if note_id is not None:
            self.post_message(self.NoteChosen(self, note_id, edit=True))

    def action_new_note(self) -> None:
        self.triage.new_note(self.source, self.highlighted_meta)

    # Filter (``ListFilter``) ----------------------------------------------------------------
    async def action_filter(self) -> None:
        if not self.filter.active:
            self.filter.begin(Before(tuple(self.rows), self._has_more, self._total, self.highlighted_id))
            self._load(offset=0, limit=POOL, replace=True, keep=self.highlighted_id)  # every note
        await ask(self, "Filter", self.filter.text, "title words · Enter keeps · Esc clears")

    def _filter_rows(self, text: str, keep: str | None, *, moved: bool = False) -> None:
        self._range = None
        self._replace_rows(self.filter.match(text)[:PAGE_SIZE], keep, moved=moved)

    def prompt_changed(self, text: str) -> None:
        self._filter_rows(text, self.highlighted_id)

    def prompt_cleared(self) -> None:
        restored = self.filter.end(self.highlighted_id)
        self._has_more, self._total = restored.has_more, restored.total
        self._range = None
        self._replace_rows(restored.rows, restored.note, moved=False)
        if self.highlighted is not None:
            self.scroll_to_highlight()

"""``HistoryScreen``: a note's revisions, newest first, with who left each and when; the diff of
one against the one before it, or of any two; and restoring one (as ``noted history --restore``).

The revisions come from ``Store.note_history`` in a thread worker (every backend has it), without
their bodies (a thousand revisions of a large note are a thousand copies of it); a diff reads its
two revisions and is made in a thread worker too (a long note's diff is not instant), and a restore goes through
``noted.ops.restore_revision`` after a ``Confirm``, as a new revision, so nothing is lost.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from noted.errors import NotedError
from noted.models import ACTOR_USER, Note, Revision
from noted.ops import notes as ops
from noted.ops.diffs import text_diff
from noted.ops.erased import ErasedNote, erased_notes, is_current
from noted.store.protocol import Store
from noted.ui.dialogs.confirm import Confirm
from noted.ui.dialogs.over import Over
from noted.ui.dialogs.picker import ChoicePicker
from noted.ui.screens.changes_rows import actor_cell, coloured_diff, when_of
from noted.ui.widgets.key_bar import KeyBar
from noted.ui.workers import ReportsWorkerFailures, thread_work


class RevisionList(OptionList):
    """The revisions, newest first."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "screen.diff", "Diff", id="history.diff", tooltip="Show this revision against the one before it"),
        Binding("space", "screen.mark", "Mark", id="history.mark", tooltip="Mark this revision, to compare two"),
        Binding("d", "screen.compare", "Compare", id="history.compare", tooltip="Show the diff between the two marked revisions"),
        Binding("r", "screen.restore", "Restore", id="history.restore", tooltip="Bring this revision back as a new one (asks first)"),
        Binding("j", "cursor_down", "Older", show=False, id="history.older", tooltip="The older revision"),
        Binding("g", "first", "Newest", show=False, id="history.newest", tooltip="The newest revision"),
        Binding("G", "last", "Oldest", show=False, id="history.oldest", tooltip="The oldest revision"),
        Binding("k", "cursor_up", "Newer", show=False, id="history.newer", tooltip="The newer revision"),
    ]  # fmt: skip


class HistoryScreen(ReportsWorkerFailures, Over[bool]):
    """A note's history; dismissed with True when a revision was restored."""

    HELP = """\
## History

The note's revisions, newest first, each with who left it (`user`, `assistant:…`, `mcp:<app>`,
`outside`, `import`) and when. {history.diff} shows a revision against the one before it,
{history.mark} marks up to two and {history.compare} shows the diff between them, {history.restore}
brings the highlighted revision back as a new one (the note's text now stays in the history).
"""

    CSS_PATH = "history.tcss"
    AUTO_FOCUS = "#history-list"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="history.close", tooltip="Back to the note"),
        Binding("f1,question_mark", "app.help", "Help", id="app.help", tooltip="Explain the history and its keys"),
    ]  # fmt: skip

    @dataclass
    class Loaded(Message):
        revisions: list[Revision]

    def __init__(self, store: Store, note: Note | ErasedNote) -> None:
        super().__init__()
        self.store = store
        self.note_id = note.id
        self.note_title = note.title
        self.erased = isinstance(note, ErasedNote)
        """An erased note's (``noted.ops.erased``): a restore writes it again."""
        self.revisions: list[Revision] = []
        self.marked: list[int] = []
        """The marked revisions' ids, in the order marked (two at most)."""
        self.restored = False
        self.loads = 0
        """How many times the revisions were read (the opening, each restore)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="history-box"):
            yield Label(self._heading(), id="history-title")
            yield RevisionList(id="history-list")
            with VerticalScroll(id="history-diff-box"):
                yield Static("", id="history-diff")
            yield Label("", id="history-message")
        yield KeyBar()  # this screen's keys, over the workspace's (those of the reader behind)

    def on_mount(self) -> None:
        self.query_one("#history-diff-box").display = False
        self.load()

    @thread_work("history", "reading the history")
    def load(self) -> None:
        try:
            revisions = self.store.note_history(self.note_id, bodies=False)  # read when diffed
        except NotedError as exc:
            self.app.call_from_thread(self._say, str(exc))
            return
        self.post_message(self.Loaded(revisions))

    @on(Loaded)
    def _loaded(self, event: Loaded) -> None:
        self.revisions = event.revisions
        self.loads += 1
        self.marked = [m for m in self.marked if any(r.id == m for r in self.revisions)]
        count = len(self.revisions)
        noun = "revision" if count == 1 else "revisions"
        self.query_one("#history-title", Label).update(f"{self._heading()} · {count:,} {noun}")
        self._show()

    def _heading(self) -> str:
        return f"History of “{self.note_title}”" + (" (erased)" if self.erased else "")

    def _show(self) -> None:
        listing = self.query_one(RevisionList)
        highlighted = listing.highlighted
        listing.set_options([Option(self._line(r), id=str(r.id)) for r in self.revisions])
        if self.revisions:
            listing.highlighted = min(highlighted or 0, len(self.revisions) - 1)
        else:
            self._say("No revisions.")

    def _line(self, revision: Revision) -> Content:
        mark = "● " if revision.id in self.marked else "  "
        edits = "1 edit" if revision.edits == 1 else f"{revision.edits} edits"
        return Content.assemble(
            mark,
            (f"{revision.id:>6} {when_of(revision.time)}  ", "$text-muted"),
            (actor_cell(revision.actor) + " ", "$text-accent"),
            (f"{edits:<9} ", "$text-muted"),
            revision.title,
            (f"  ({revision.label})" if revision.label else "", "$text-warning"),
        )

    def _current(self) -> Revision | None:
        index = self.query_one(RevisionList).highlighted
        if index is None or index >= len(self.revisions):
            return None
        return self.revisions[index]

    # Keys ---------------------------------------------------------------------------------
    def action_close(self) -> None:
        self.dismiss(self.restored)

    def action_mark(self) -> None:
        current = self._current()
        if current is None:
            return
        if current.id in self.marked:
            self.marked.remove(current.id)
        else:
            self.marked = [*self.marked, current.id][-2:]  # a third mark replaces the first
        self._show()
        self.query_one(RevisionList).action_cursor_down()

    def action_diff(self) -> None:
        index = self.query_one(RevisionList).highlighted
        if index is None or index >= len(self.revisions):
            return
        newer = self.revisions[index]
        older = self.revisions[index + 1] if index + 1 < len(self.revisions) else None
        self._diff(older, newer)

    def action_compare(self) -> None:
        if len(self.marked) != 2:
            self._say("Mark two revisions with Space first.")
            return
        chosen = sorted((r for r in self.revisions if r.id in self.marked), key=lambda r: (r.time, r.id))
        self._diff(chosen[0], chosen[1])

    @thread_work("history-diff", "making a diff")
    def _diff(self, older: Revision | None, newer: Revision) -> None:
        try:  # (the list holds no bodies)
            before = self.store.get_revision(older.id) if older is not None else None
            text = revision_diff(before, self.store.get_revision(newer.id))
        except NotedError as exc:  # (thinned, or the note erased, since the list was read)
            self.app.call_from_thread(self._say, str(exc))
            return
        self.app.call_from_thread(self._show_diff, text)

    def _show_diff(self, text: str) -> None:
        self.query_one("#history-diff-box").display = True
        self.query_one("#history-diff", Static).update(coloured_diff(text))

    @work(exclusive=True, group="history-ask", exit_on_error=False, description="asking to restore")
    async def action_restore(self) -> None:
        current = self._current()
        if current is None:
            return
        if current is self.revisions[0] and await asyncio.to_thread(self._newest, current):
            self._say("This revision is the note as it is now: nothing to restore.")
            return
        question = (
            f"Bring back revision {current.id} ({when_of(current.time)}, {current.actor})? "
            "The note's text now stays in its history."
        )
        if await self.app.push_screen_wait(Confirm(question, yes="Restore", no="Keep the note as it is")):
            self._restore(current)

    def _newest(self, revision: Revision) -> bool:
        """``revision`` is still the note's newest (the list was read before another save, maybe)."""
        try:
            return is_current(self.store, self.note_id, revision.id)
        except NotedError:  # (erased meanwhile, nothing kept: the restore says why)
            return False

    @thread_work("history-act", "restoring")
    def _restore(self, revision: Revision) -> None:
        try:
            ops.restore_revision(self.store, self.note_id, revision.id, actor=ACTOR_USER)
        except NotedError as exc:
            self.app.call_from_thread(self._say, str(exc))
            return
        self.app.call_from_thread(self._restored, revision)

    def _restored(self, revision: Revision) -> None:
        self.restored = True
        self.erased = False  # written again
        self._say(f"Restored revision {revision.id} as a new revision.")
        self.load()

    def _say(self, text: str) -> None:
        self.query_one("#history-message", Label).update(text)


def revision_diff(older: Revision | None, newer: Revision) -> str:
    """``newer`` against ``older`` (the first revision: against nothing), as a unified diff."""
    before = (older.title, older.body) if older is not None else None
    label = f"revision {older.id}" if older is not None else "(nothing before)"
    return text_diff(before, (newer.title, newer.body), (label, f"revision {newer.id}"))


def open_history(host: Widget, store: Store, note: Note, restored: Callable[[], None]) -> None:
    """Show ``note``'s history over the app; ``restored`` runs when it closes after a restore."""

    def closed(done: bool | None) -> None:
        if done:
            restored()

    host.app.push_screen(HistoryScreen(store, note), closed)


class ErasedPicker(ChoicePicker):
    """The erased notes whose revisions noted keeps (``noted.ops.erased.erased_notes``); returns
    the chosen one's id, or None."""

    FILTER = "type to filter erased notes"
    HINT = "↑↓ to choose · Enter for its history · Esc to cancel"

    def __init__(self, store: Store) -> None:
        super().__init__(title="History of an erased note")
        self._store = store
        self.found: dict[str, ErasedNote] = {}
        """The erased notes listed, by id."""

    @thread_work("picker", "listing erased notes")
    def load(self) -> None:
        found = erased_notes(self._store)
        self.found = {e.id: e for e in found}
        choices = [(e.id, f"{e.title}  {e.id[:8]}") for e in found]
        problem = None if found else "No erased note has kept revisions (only notes erased outside noted do)."
        self.post_message(self.Loaded(choices, problem))


def open_erased_history(host: Widget, store: Store) -> None:
    """Pick an erased note, then show its history (a restore there writes it again)."""
    picker = ErasedPicker(store)

    def chosen(note_id: str | None) -> None:
        if note_id is not None and note_id in picker.found:
            host.app.push_screen(HistoryScreen(store, picker.found[note_id]))

    host.app.push_screen(picker, chosen)

"""``Workspace``: the main screen — notebook tree, note list, reader (viewer or editor), chat.

It owns the layout and the conversation between its panes: the tree picks what the list shows,
the list picks what the reader shows, the reader hands a note to the editor and back, and the
chat pane follows the open note. On a narrow terminal (below 110 columns) the tree and list fill
the screen until a note is opened, then the reader does; Esc goes back. The focus never rests in a
pane the layout hides (``reveal``), so no key acts on what the person cannot see.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, ClassVar, Self, cast

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.geometry import Region
from textual.reactive import Reactive, reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import ContentSwitcher

from noted.services import Services
from noted.settings import handles
from noted.ui import zoom
from noted.ui.chat_place import ChatPlace
from noted.ui.data import partial_notice
from noted.ui.empty_trash import empty_trash
from noted.ui.messages import Marks, OpenNote, StoreChanged
from noted.ui.patches.pending_layout import paint_whole_when_layout_pending
from noted.ui.reader_model import Ask, Edit, Effect, Focus, MakeWay, Reading, Surface
from noted.ui.sync_now import sync_now
from noted.ui.typeahead import hold_keys, release_keys
from noted.ui.widgets.key_bar import KeyBar
from noted.ui.widgets.note_editor import CLOSE, CONFLICT, NoteEditor
from noted.ui.widgets.note_list import NoteList
from noted.ui.widgets.note_viewer import NoteScroll, NoteViewer
from noted.ui.widgets.notebook_tree import NotebookTree
from noted.ui.widgets.page_drawing import Drawn
from noted.ui.widgets.status_bar import StatusBar
from noted.ui.workers import ReportsWorkerFailures

if TYPE_CHECKING:  # the chat pane (and the chat engine under it) loads when first shown
    from noted.ui.chat import ChatPane
    from noted.ui.speed import FirstLook


_PANES = frozenset({"tree", "notes", "reader", "chat-pane"})
"""The ids of the panes the layout shows and hides (see workspace.tcss)."""

READER_TITLE = "Note"
READER_TITLE_FOCUSED = Content.styled(READER_TITLE, "bold $text-primary")


class Workspace(ReportsWorkerFailures, Screen[None]):
    """The screen a person spends their time in."""

    CSS_PATH = "workspace.tcss"
    AUTO_FOCUS = "#notes"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide"), (170, "-wider")]
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+n", "new_note", "New note", show=False, id="app.new_note",
                tooltip="Create a note in the listed notebook"),
        Binding("ctrl+t", "toggle_chat", "Assistant", id="app.chat", tooltip="Show or hide the chat pane"),
        Binding("ctrl+b", "toggle_sidebar", "Notebooks", show=False, id="app.sidebar",
                tooltip="Show or hide the notebook tree"),
        Binding("escape", "back", "Back", id="app.back", tooltip="Back to the note list"),
        Binding("plus", "zoom", "Zoom", show=False, id="app.zoom", tooltip="Whole width for the focused pane, or shared"),
        # Wherever the focus is, while the editor holds unsaved text: back to it, and saved.
        Binding("ctrl+s", "save_edit", "Save", id="note.save", tooltip="Save the text waiting in the editor"),
    ]  # fmt: skip

    focused: Reactive[Widget | None] = Reactive(None, repaint=False)
    reading: reactive[bool] = reactive(False, repaint=False)
    """On a narrow screen: the reader fills it (True) or the tree and list do (False). Not a repaint
    of its own: the class it sets repaints what it changes."""

    def __init__(self, services: Services, first_look: FirstLook | None = None) -> None:
        """``first_look``: the first rows of the tree and the list, read while the app loaded."""
        super().__init__(id="workspace-screen")
        self.services = services
        self._first_look = first_look
        self._chat_size = (0, False)  # the chat's size in tokens (0: no chat, or a new one), estimated
        self._chat_place = ChatPlace(self)

    def compose(self) -> ComposeResult:
        store = self.services.store
        with Horizontal(id="workspace"):
            yield NotebookTree(store, id="tree")
            yield NoteList(store, self.services.keyword, id="notes")
            with ContentSwitcher(id="reader", initial="viewer") as reader:
                reader.border_title = READER_TITLE
                part = self.services.settings
                yield NoteViewer(
                    store,
                    keyword=self.services.keyword,
                    part_chars=lambda: part.get(handles.LARGE_NOTE_CHARS),
                    id="viewer",
                )
                yield NoteEditor(store, profile=self.services.profile.root, id="editor")
        yield StatusBar(self._settings_parts(), id="status")
        yield KeyBar()

    def on_mount(self) -> None:
        # After the panes' own mount, before the first frame: the rows read ahead, if they came.
        first = self._first_look
        self.query_one(NotebookTree).load_first(None if first is None else first.take_tree())
        self.query_one(NoteList).load_first(None if first is None else first.take_page())

    def show_settings(self) -> None:
        """Show the model in use, the MCP server when it is switched off and the chat's budget."""
        status = self.query_one(StatusBar)
        for part, text in self._settings_parts(status.part("mcp")).items():
            status.set_part(part, text)
        self._show_size()

    def _settings_parts(self, mcp_now: str = "") -> dict[str, str]:
        s = self.services.settings
        model = s.get(handles.AI_MODEL) or "default model"
        ai = f"{s.get(handles.AI_PROVIDER)} · {model}" if s.get(handles.AI_ENABLED) else "AI off"
        parts = {"model": ai}
        if not s.get(handles.MCP_ENABLED):
            parts["mcp"] = "MCP off"
        elif mcp_now in ("", "MCP off"):
            parts["mcp"] = "MCP starting…"
        return parts

    def watch_reading(self) -> None:
        self._show_reading()

    def on_resize(self) -> None:
        # Textual sets the breakpoint classes in its own handler, which runs after this one (the
        # MRO's order): choose once they are the new size's, or the layout is the old size's.
        self.call_next(self._show_reading)

    def _show_reading(self) -> None:
        # Only a narrow screen gives the reader the whole width. On a wide one the class would change
        # nothing but restyle every widget, which was a sixth of a second on the first note opened.
        self.set_class(self.reading and self.has_class("-narrow"), "-reading")

    @property
    def chat(self) -> ChatPane | None:
        """The chat pane, once it has been shown (it is built on first use: it is a big part)."""
        return cast("ChatPane | None", next(iter(self.query("ChatPane")), None))

    @property
    def editing(self) -> bool:
        return self.query_one("#reader", ContentSwitcher).current == "editor"

    # Routing between panes -----------------------------------------------------------------
    @on(NotebookTree.SourceHighlighted)
    def _source(self, event: NotebookTree.SourceHighlighted) -> None:
        self.query_one(NoteList).show(event.source)
        if isinstance(event, NotebookTree.SourceChosen):
            self.query_one(NoteList).focus()

    @on(NotebookTree.NotebooksRenamed)
    def _renamed(self) -> None:
        # The open note's meta line names its notebook (and its tags): read it again, and drop
        # what was read ahead under the old names.
        viewer = self.query_one(NoteViewer)
        viewer.forget()
        if not self.editing:
            viewer.reload()

    @on(NoteList.NoteHighlighted)
    async def _note(self, event: NoteList.NoteHighlighted) -> None:
        if event.left and self.editing:  # the note being edited left the list: the editor keeps it
            return
        chosen = isinstance(event, NoteList.NoteChosen)
        edit = isinstance(event, NoteList.NoteChosen) and event.edit
        await self.open_note(Ask(event.note_id, focus=chosen, edit=edit))

    @on(OpenNote)
    async def _open_requested(self, event: OpenNote) -> None:
        event.stop()
        await self.open_requested(event)

    async def open_requested(self, event: OpenNote) -> None:
        """Open the note an ``OpenNote`` asks for (posted here, or to the app) and put the list's
        cursor on it, or the list's next refresh would show the note under the cursor."""
        await self.open_note(Ask(event.note_id, event.section, event.focus, ticket=event.ticket), event.marks)
        self.query_one(NoteList).select_note(event.note_id)

    async def open_note(self, ask: Ask, marks: Marks | None = None) -> None:
        """Show the note asked for in the reader (an edit in progress is saved first), marked."""
        self.query_one(NoteScroll).expect_marks(ask.note_id, marks)
        await self.follow(self.query_one(NoteViewer).reader.ask(ask, self._surface()))

    def _surface(self) -> Surface:
        editor = self.query_one(NoteEditor)
        return replace(
            self.query_one(NoteViewer).surface(),
            editing=self.editing,
            edited=None if editor.note is None else editor.note.id,
            focused=self.reader_focus().has_focus,
        )

    async def follow(self, effects: list[Effect[Drawn]]) -> None:
        """Carry out what the reader model decided, in its order: the viewer draws the page, this
        screen moves the editor, the focus and the layout."""
        viewer = self.query_one(NoteViewer)
        for effect in effects:
            if isinstance(effect, MakeWay):
                done = await self.query_one(NoteEditor).flush() != CONFLICT
                if done:
                    self.query_one("#reader", ContentSwitcher).current = "viewer"
                await self.follow(viewer.reader.made_way(done, self._surface()))
            elif isinstance(effect, Edit):
                self.post_message(NoteViewer.EditRequested(effect.view))
            elif isinstance(effect, Reading):
                self.reading = True
            elif isinstance(effect, Focus) and effect.later:
                hold_keys(self.app)  # keys typed meanwhile wait for the focus
                self.call_after_refresh(self._focus_page)
            elif isinstance(effect, Focus):
                self.reader_focus().focus()
            else:
                viewer.apply([effect])

    def set_focus(
        self, widget: Widget | None, scroll_visible: bool = True, from_app_focus: bool = False
    ) -> None:
        if widget is not None and widget is not self.focused:
            self.reveal(widget)  # keys go where the focus is: never to a pane the person cannot see
        super().set_focus(widget, scroll_visible, from_app_focus)
        # In the frame that moves the focus, not one after it: the reader's title (the CSS styles
        # the focused list's and tree's, see workspace.tcss) and the keys the focused pane offers.
        for reader in self.query("#reader"):
            reader.border_title = READER_TITLE_FOCUSED if reader.has_focus_within else READER_TITLE
        self.refresh_bindings()

    # What is on screen ---------------------------------------------------------------------
    def reveal(self, widget: Widget) -> None:
        """Change the layout so that the pane holding ``widget`` is on screen.

        Every focus move comes here first, so the focus (and with it every key) never rests in a
        pane the layout hides: on a narrow screen a move to the list or tree goes back to them,
        one to the reader opens it, and either closes the chat that covered them.
        """
        pane = next((node for node in widget.ancestors_with_self if node.id in _PANES), None)
        if pane is None:
            return
        if self.has_class("-zoom") and not pane.has_class("-zoomed"):  # a move elsewhere ends a zoom
            zoom.unzoom(self)
        if pane.id == "chat-pane":
            self.add_class("-chat")
            return
        if pane.id == "tree":
            self.remove_class("-no-tree")
        if self.has_class("-narrow"):
            self.remove_class("-chat")
            self.reading = pane.id == "reader"
        elif self.has_class("-chat") and (
            pane.id == "tree" or pane.id == "notes" and self.has_class("-wide")
        ):
            self.remove_class("-chat")  # the chat had pushed this pane aside (workspace.tcss): back it comes

    def shows(self, widget: Widget) -> bool:
        """Whether ``widget`` is on screen: the layout hides neither it nor a pane that holds it."""
        return all(node.display for node in widget.ancestors_with_self if node is not self)

    def read_ahead(self, note_ids: tuple[str, ...]) -> None:
        """Have the reader read these notes ahead (see ``ReadAhead``)."""
        self.query_one(NoteViewer).read_ahead(list(note_ids))

    async def on_screen_resume(self) -> None:
        for viewer in self.query(NoteViewer):  # none yet when the app first shows this screen
            await self.follow(viewer.reader.uncovered())

    def reader_focus(self) -> Widget:
        """Where the focus goes in the reader: the editor's text while it has the reader's place."""
        return self.query_one("#editor-body") if self.editing else self.query_one(NoteScroll)

    def _focus_page(self) -> None:
        self.reader_focus().focus()
        release_keys(self.app)  # after the focus move, which is queued first

    def refresh(
        self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False
    ) -> Self:
        # A layout may be pending (a note put in place while a screen covered this one, which has
        # just closed): then the layout paints the screen once, whole (``patches.pending_layout``).
        if repaint and not (regions or layout or recompose) and paint_whole_when_layout_pending(self):
            return self
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    @on(NoteViewer.Shown)
    async def _shown(self, event: NoteViewer.Shown) -> None:
        if self.chat is not None:
            self.chat.set_note(event.note_id)
        viewer = self.query_one(NoteViewer)
        viewer.read_ahead(self.query_one(NoteList).neighbours(event.note_id))
        await self.follow(viewer.reader.shown(event.note_id))

    @on(NoteViewer.EditRequested)
    def _edit(self, event: NoteViewer.EditRequested) -> None:
        if event.view.note.is_conflict:  # the store would refuse the save: say so before any typing
            self.notify(
                f"A conflict copy from Joplin's sync cannot be edited: compare and settle it with "
                f"`noted --joplin conflicts show {event.view.note.id}`",
                severity="warning",
            )
            return
        if event.view.partial:  # the editor would hold it all, as slow as the reader was: refused
            self.notify(f"Too large to edit in the app. {partial_notice(event.view)}", severity="warning")
            return
        self.reading = True
        self.query_one("#reader", ContentSwitcher).current = "editor"
        editor = self.query_one(NoteEditor)
        note = event.view.note
        editor.edit(note, line=self.query_one(NoteScroll).top_line(note.body))  # where it was read
        if event.external:
            # Started from reading, so back to reading afterwards (not left in the in-app editor).
            editor.edit_externally(note, note.body, note.title, then=CLOSE)

    @on(NoteEditor.Closed)
    def _edit_closed(self, event: NoteEditor.Closed) -> None:
        self.query_one("#reader", ContentSwitcher).current = "viewer"
        self.query_one(NoteViewer).show(event.note_id)
        self.query_one(NoteScroll).focus()

    def store_changed(self, event: StoreChanged) -> None:
        """Repaint what the change feed says changed (the app forwards the follower's messages)."""
        trees = self.query(NotebookTree)
        if not trees:  # a last message from the follower while the app shuts down: panes are gone
            return
        trees.first().reload()
        # A notebook or tag changed can take notes out of a list with no change of theirs named.
        self.query_one(NoteList).refresh_notes(None if event.folders or event.tag_items else event.note_ids)
        viewer = self.query_one(NoteViewer)
        viewer.forget()
        if viewer.note_id is None or viewer.note_id not in event.note_ids:
            return
        if self.editing:
            self.query_one(NoteEditor).check_elsewhere()
        else:
            viewer.reload()

    def on_chat_pane_usage_changed(self, event: ChatPane.UsageChanged) -> None:
        self._chat_size = (event.size, event.estimated)
        self._show_size()

    def _show_size(self) -> None:
        """The chat's size (as the next request is measured) of ``ai.budgetTokens`` as it is now;
        ``~`` marks noted's estimate, where the server reported no usage."""
        (size, estimated), budget = self._chat_size, self.services.settings.get(handles.AI_BUDGET_TOKENS)
        about = "~" if estimated else ""
        self.query_one(StatusBar).set_part("tokens", f"{about}{size:,} of {budget:,} tokens" if size else "")

    # Actions -------------------------------------------------------------------------------
    def action_back(self) -> None:
        self.reading = False
        self.query_one(NoteList).focus()

    def action_new_note(self) -> None:
        self.query_one(NoteList).action_new_note()

    async def action_toggle_chat(self) -> None:
        await self._chat_place.toggle()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "save_edit":  # offered only while the editor holds unsaved text
            return self.editing and self.query_one(NoteEditor).dirty
        return True

    def action_save_edit(self) -> None:
        """Go to the editor and save its text (Ctrl+S from elsewhere, the palette's Save note)."""
        if self.editing:
            self.query_one("#editor-body").focus()
            self.query_one(NoteEditor).action_save()

    def action_zoom(self) -> None:  # +: the focused pane takes the whole width; again: shared
        zoom.toggle(self, (w for w in self.query("#workspace > *") if w.id in _PANES))

    def action_toggle_sidebar(self) -> None:
        self.toggle_class("-no-tree")

    def action_focus_tree(self) -> None:
        self.reading = False
        self.remove_class("-no-tree")
        self.query_one(NotebookTree).focus()

    def action_empty_trash(self) -> None:
        """Say what the trash holds and ask; erase it only if it still holds just that."""
        flow = empty_trash(self, self.services.store)
        self.run_worker(flow, group="trash", exit_on_error=False, description="emptying the trash")

    def action_sync_now(self) -> None:
        """Have Joplin sync now (``joplin.syncCommand``); what arrives shows through the change feed."""
        sync_now(self, self.services)

    def move_targets_to(self, folder_id: str) -> None:
        """Move the list's marked notes (or its highlighted one) to ``folder_id`` (the palette's move)."""
        notes = self.query_one(NoteList)
        notes.triage.move_to(notes.targets(), folder_id)

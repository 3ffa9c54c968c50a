"""``NoteViewer``: the open note rendered as Markdown, with its heading outline and attachments.

Loading happens in a worker (``load_note_view``); the Markdown widget then builds its blocks.
Scrolling to a section finds the heading block whose source line is the section's first line,
so the outline (from ``noted.markdown``) and the rendering (Textual's parser) need only agree on
where headings start, which both take from markdown-it.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Markdown, Static
from textual.widgets.markdown import MarkdownBlock

from noted.errors import NotFoundError
from noted.store.protocol import Store
from noted.ui.data import NoteView, load_note_view
from noted.ui.messages import OpenNote
from noted.ui.opener import open_with_system
from noted.ui.widgets.note_list import when
from noted.ui.widgets.outline import LinkList, OutlineList
from noted.ui.workers import ReportsWorkerFailures

_NOTE_LINK = ":/"


class NoteScroll(VerticalScroll):
    """The scrolling page of the rendered note; focusable so the keys scroll it."""

    HELP = """\
## Note

**j**/**k** scroll, **Space**/**b** a page, **g**/**G** top and bottom.
**e** edits the note, **E** edits it in `$EDITOR`, **o** goes to the outline,
**a** to the links and attachments. Links to other notes (`:/id`) open them.
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "scroll_down", "Down", show=False, id="note.down", tooltip="Scroll down"),
        Binding("k", "scroll_up", "Up", show=False, id="note.up", tooltip="Scroll up"),
        Binding("g", "scroll_home", "Top", show=False, id="note.top", tooltip="Top of the note"),
        Binding("G", "scroll_end", "Bottom", show=False, id="note.bottom", tooltip="Bottom of the note"),
        Binding("space", "page_down", "Page down", show=False, id="note.page_down", tooltip="Next page"),
        Binding("b", "page_up", "Page up", show=False, id="note.page_up", tooltip="Previous page"),
    ]


class NoteViewer(ReportsWorkerFailures, Vertical):
    """The reader: a header line, the rendered note, and beside it the outline and attachments."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("e", "edit", "Edit", id="note.edit", tooltip="Edit this note here"),
        Binding("E,f4", "external", "$EDITOR", id="note.external",
                tooltip="Edit this note in your $EDITOR (the app steps aside until it closes)"),
        Binding("o", "outline", "Outline", id="note.outline", tooltip="Go to the heading outline"),
        Binding("a", "links", "Links", show=False, id="note.links", tooltip="Go to the links and attachments"),
    ]  # fmt: skip

    class EditRequested(Message):
        """The person asked to edit the open note (``external``: in ``$EDITOR``)."""

        def __init__(self, view: NoteView, *, external: bool = False) -> None:
            super().__init__()
            self.view = view
            self.external = external

    class Shown(Message):
        """A note finished rendering (tests and the chat pane follow this)."""

        def __init__(self, note_id: str, section: str | None) -> None:
            super().__init__()
            self.note_id = note_id
            self.section = section

    class _Loaded(Message, bubble=False):
        def __init__(
            self, view: NoteView | None, note_id: str, section: str | None, keep_scroll: bool
        ) -> None:
            super().__init__()
            self.view = view
            self.note_id = note_id
            self.section = section
            self.keep_scroll = keep_scroll

    def __init__(self, store: Store, *, id: str | None = None) -> None:  # noqa: A002 (Textual's name)
        super().__init__(id=id)
        self._store = store
        self.view: NoteView | None = None
        self._wanted: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(
            Content.styled("No note open — choose one in the list.", "$text-muted"), id="note-header"
        )
        with Horizontal(id="note-body"):
            with NoteScroll(id="note-scroll"):
                yield Markdown(id="note-markdown", open_links=False)
            with Vertical(id="note-side"):
                yield OutlineList(id="outline")
                yield LinkList(id="links")

    def on_mount(self) -> None:
        self.query_one(LinkList).display = False

    # Loading -------------------------------------------------------------------------------
    @property
    def note_id(self) -> str | None:
        """The note shown or being loaded."""
        return self._wanted

    def show(self, note_id: str, section: str | None = None) -> None:
        """Load and render ``note_id``, scrolled to ``section`` when given."""
        self._wanted = note_id
        self._fetch(note_id, section, keep_scroll=False)

    def reload(self) -> None:
        """Read the open note again (it changed), keeping the reading position."""
        if self._wanted is not None:
            self._fetch(self._wanted, None, keep_scroll=True)

    @work(
        thread=True, exclusive=True, group="viewer-load", exit_on_error=False, description="opening the note"
    )
    def _fetch(self, note_id: str, section: str | None, keep_scroll: bool) -> None:
        try:
            view: NoteView | None = load_note_view(self._store, note_id)
        except NotFoundError:
            view = None
        self.post_message(self._Loaded(view, note_id, section, keep_scroll))

    @on(_Loaded)
    async def _loaded(self, message: _Loaded) -> None:
        if message.note_id != self._wanted:
            return  # the person has moved on to another note
        view = message.view
        if view is None:
            self.clear("That note no longer exists.")
            return
        scroll = self.query_one(NoteScroll)
        offset = scroll.scroll_y if message.keep_scroll else 0
        self.view = view
        with self.app.batch_update():  # one frame for header, body, outline and links, not four
            self.query_one("#note-header", Static).update(self._header(view))
            await self.query_one(Markdown).update(view.note.body)
            self.query_one(OutlineList).show(view.outline)
            self.query_one(LinkList).show(view.links, view.resources)
        # The new blocks have no place on screen until the next layout: scroll after it.
        self.call_after_refresh(self._settle, view.note.id, message.section, offset)

    def _settle(self, note_id: str, section: str | None, offset: float) -> None:
        if section is None or not self.scroll_to_section(section):
            self.query_one(NoteScroll).scroll_to(y=offset, animate=False)
        self.post_message(self.Shown(note_id, section))

    def clear(self, text: str = "No note open — choose one in the list.") -> None:
        """Show nothing (the note was deleted, or the list is empty)."""
        self._wanted = None
        self.view = None
        self.query_one("#note-header", Static).update(Content.styled(text, "$text-muted"))
        self.query_one(Markdown).update("")
        self.query_one(OutlineList).clear_options()
        self.query_one(LinkList).show((), ())

    @staticmethod
    def _header(view: NoteView) -> Content:
        note = view.note
        parts: list[str | tuple[str, str]] = [(note.title or "(untitled)", "bold $text-primary")]
        if note.is_trashed:
            parts.append(("  in the trash", "$text-error"))
        if note.is_todo:
            parts.append(("  ☑ done" if note.todo_completed else "  ☐ to-do", "$text-warning"))
        meta = f"\n{view.notebook} · {when(note.user_updated_time)}"
        parts.append((meta, "$text-muted"))
        if view.tags:
            parts.append(("  " + " ".join(f"#{t}" for t in view.tags), "$text-secondary"))
        return Content.assemble(*parts)

    # Sections ------------------------------------------------------------------------------
    def scroll_to_section(self, path: str) -> bool:
        """Scroll so the heading of section ``path`` is at the top; False if there is none."""
        view = self.view
        if view is None:
            return False
        found = view.outline.find(path)
        if not found:
            return False
        section = found[0]
        self.query_one(OutlineList).select_path(section.path)
        if section.path == "0":
            self.query_one(NoteScroll).scroll_home(animate=False)
            return True
        line = view.note.body.count("\n", 0, section.start)
        for block in self.query_one(Markdown).children:
            # Headings are the blocks made from a heading_open token (Textual names blocks by token).
            if (
                isinstance(block, MarkdownBlock)
                and block.name == "heading_open"
                and block.source_range[0] == line
            ):
                self.query_one(NoteScroll).scroll_to_widget(block, top=True, animate=False)
                return True
        return False

    @on(OutlineList.SectionChosen)
    def _section_chosen(self, event: OutlineList.SectionChosen) -> None:
        event.stop()
        self.scroll_to_section(event.path)

    # Links and attachments ----------------------------------------------------------------
    @on(Markdown.LinkClicked)
    def _link(self, event: Markdown.LinkClicked) -> None:
        event.stop()
        href = event.href.strip()
        if href.startswith(_NOTE_LINK):
            target = href[len(_NOTE_LINK) :].split("#", 1)[0]
            resources = {r.id: r for r in self.view.resources} if self.view else {}
            if target in resources:
                self._open_attachment(target, resources[target].title or resources[target].filename)
            else:
                self.post_message(OpenNote(target))
        elif href.startswith(("http://", "https://", "mailto:")):
            self._open_external(href)

    @on(LinkList.NoteLinkChosen)
    def _note_link(self, event: LinkList.NoteLinkChosen) -> None:
        event.stop()
        self.post_message(OpenNote(event.note_id))

    @on(LinkList.AttachmentChosen)
    def _attachment(self, event: LinkList.AttachmentChosen) -> None:
        event.stop()
        self._open_attachment(event.resource_id, event.name)

    def _open_attachment(self, resource_id: str, name: str) -> None:
        store = self._store

        def run() -> None:
            open_with_system(str(store.resource_path(resource_id)))

        self.notify(f"Opening {name}…")
        self.run_worker(run, thread=True, group="opener", exit_on_error=False, description=f"opening {name}")

    def _open_external(self, url: str) -> None:
        self.run_worker(
            lambda: open_with_system(url),
            thread=True,
            group="opener",
            exit_on_error=False,
            description=f"opening {url}",
        )

    # Actions -------------------------------------------------------------------------------
    def action_edit(self) -> None:
        if self.view is not None:
            self.post_message(self.EditRequested(self.view))

    def action_external(self) -> None:
        if self.view is not None:
            self.post_message(self.EditRequested(self.view, external=True))

    def action_outline(self) -> None:
        self.query_one(OutlineList).focus()

    def action_links(self) -> None:
        links = self.query_one(LinkList)
        if links.display:
            links.focus()
        else:
            self.notify("This note has no links or attachments.")

"""``NoteViewer``: the open note rendered as Markdown, with its heading outline and attachments.

Loading happens in a worker (``load_note_view``); the page (``MarkdownPage``) then renders the
text as lines. Scrolling to a section finds the page row of the heading whose source line is the
section's first line, so the outline (from ``noted.markdown``) and the rendering need only agree
on where headings start, which both take from markdown-it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Static
from textual.worker import get_current_worker

from noted.errors import NotFoundError
from noted.ops.links import PhraseSearch
from noted.settings.handles import LARGE_NOTE_CHARS
from noted.store.protocol import Store
from noted.ui.data import NoteView, load_note_view, page_text
from noted.ui.messages import OpenAnswered, OpenNote, line_of
from noted.ui.reader_model import (
    EMPTY,
    Announce,
    Answer,
    Blank,
    Copy,
    Draw,
    Effect,
    Fetch,
    FetchAhead,
    Park,
    ReaderModel,
    Surface,
)
from noted.ui.widgets.attachments import AttachmentFlows
from noted.ui.widgets.backlinks_later import BacklinksFound, BacklinksLater
from noted.ui.widgets.markdown_page import MarkdownPage
from noted.ui.widgets.note_copy import copy_note, copy_note_code
from noted.ui.widgets.note_header import note_header
from noted.ui.widgets.note_scroll import NoteScroll
from noted.ui.widgets.outline import LinkList, OutlineList
from noted.ui.widgets.page_drawing import Drawn, Kept, Look, draw
from noted.ui.widgets.page_links import follow_link
from noted.ui.workers import ReportsWorkerFailures, thread_work

__all__ = ["NoteScroll", "NoteViewer"]  # NoteScroll lives in note_scroll; the reader's parts are found here


class NoteViewer(ReportsWorkerFailures, Vertical):
    """The reader: a header line, the rendered note, and beside it the outline and attachments.

    What to show, and when, is ``reader`` 's to decide (``ReaderModel``); this widget reads notes
    in threads and draws what the model says.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("e", "edit", "Edit", id="note.edit", tooltip="Edit this note here"),
        Binding("E,f4", "external", "$EDITOR", id="note.external",
                tooltip="Edit this note in your $EDITOR (the app steps aside until it closes)"),
        Binding("o", "outline", "Outline", id="note.outline", tooltip="Go to the heading outline"),
        Binding("a", "links", "Links", show=False, id="note.links", tooltip="Go to the links and attachments"),
        Binding("A", "add_attachment", "Attach", show=False, id="note.attachment.add",
                tooltip="Attach a file from a path, linked at the end of this note"),
        Binding("y", "copy", "Copy", show=False, id="note.copy",
                tooltip="Copy the note's text (its Markdown) to the clipboard"),
        Binding("Y", "copy_code", "Copy code", show=False, id="note.copy.code",
                tooltip="Copy a code block of the note (a list to choose from when it has several)"),
        Binding("h", "history", "History", show=False, id="note.history", tooltip="The note's revisions: diffs, restore"),
    ]  # fmt: skip

    class EditRequested(Message):
        """The person asked to edit the open note (``external``: in ``$EDITOR``)."""

        def __init__(self, view: NoteView, *, external: bool = False) -> None:
            super().__init__()
            self.view = view
            self.external = external

    @dataclass
    class Shown(Message):
        """A note finished rendering (tests and the chat pane follow this)."""

        note_id: str
        section: str | None

    @dataclass
    class _Loaded(Message, bubble=False):
        fetch: Fetch
        copy: Copy[Drawn] | None

    @dataclass
    class _ReadAhead(Message, bubble=False):
        copies: tuple[Copy[Drawn], ...]
        generation: int

    def __init__(
        self,
        store: Store,
        *,
        keyword: PhraseSearch | None = None,
        part_chars: Callable[[], int] = lambda: LARGE_NOTE_CHARS.default,
        id: str | None = None,  # noqa: A002
    ) -> None:
        super().__init__(id=id)
        self._store, self._keyword = store, keyword  # keyword: finds backlinks (None: none shown)
        self._part_chars = part_chars
        self._backlinks = None if keyword is None else BacklinksLater(self, store, keyword)
        self._due: str | None = None
        """A section asked for below the opening drawn so far: gone to once the page is whole."""
        """``notes.largeNoteChars``: a longer note shows its opening only (``NoteView.partial``)."""
        self.reader: ReaderModel[Drawn] = ReaderModel(whole=lambda drawn: drawn.upto is None)
        """What the reader shows: requests, generations, notes read ahead, a note parked."""
        self.attachments = AttachmentFlows(
            self, store, current=lambda: self.view, reading=lambda: self.display, changed=self.reload
        )
        """Save as, add and remove (keys here and in the links list, and the command palette)."""

    def compose(self) -> ComposeResult:
        yield Static(Content.styled(EMPTY, "$text-muted"), id="note-header")
        with Horizontal(id="note-body"):
            yield NoteScroll(id="note-scroll")
            with Vertical(id="note-side"):
                yield OutlineList(id="outline")
                yield LinkList(id="links")

    def on_mount(self) -> None:
        self.query_one(LinkList).show((), ())

    # Loading -------------------------------------------------------------------------------
    @property
    def note_id(self) -> str | None:
        """The note shown or being loaded."""
        return self.reader.wanted

    @property
    def view(self) -> NoteView | None:
        """The note in place (or waiting for the page's width)."""
        return self.reader.view

    def show(
        self, note_id: str, section: str | None = None, *, read_ahead: bool = False, ticket: int | None = None
    ) -> None:
        """Load and render ``note_id``, scrolled to ``section`` when given.

        ``read_ahead``: a copy read ahead may be shown (moving through the list); otherwise the note
        is read afresh. ``ticket`` is answered (``OpenAnswered``, to the screen on top) once the
        note is in place, or could not be shown (it no longer exists, or another request came first).
        """
        self.apply(self.reader.open(note_id, section, self.surface(), read_ahead=read_ahead, ticket=ticket))

    def reload(self) -> None:
        """Read the open note again (it changed), keeping the reading position."""
        self.apply(self.reader.reload())

    def read_ahead(self, note_ids: list[str]) -> None:
        """Read these notes in the background, so showing one of them next is instant."""
        self.apply(self.reader.read_ahead(note_ids))

    def forget(self) -> None:
        """Drop what was read ahead (something changed: a note, a notebook's name, a tag)."""
        self.reader.forget()

    def clear(self, text: str = EMPTY) -> None:
        """Show nothing (the note was deleted, or the list is empty)."""
        self.apply(self.reader.clear(text))

    def surface(self) -> Surface:
        """The page's state for the model: whether it can draw now, and whether it is covered."""
        return Surface(self.query_one(NoteScroll).look() is not None, self.app.screen is not self.screen)

    def apply(self, effects: list[Effect[Drawn]]) -> None:
        """Carry out what the model decided about the page, in its order (the screen carries out
        the rest: ``Workspace.follow``)."""
        for effect in effects:
            if isinstance(effect, Fetch):
                page = self.query_one(NoteScroll)
                self._fetch(effect, page.look(), page.opening_chars(), page.kept())
            elif isinstance(effect, FetchAhead):
                self._read_ahead(effect, self.query_one(NoteScroll).look())
            elif isinstance(effect, Draw):
                self._draw(effect)
            elif isinstance(effect, Park):
                pass  # the page says when it has a width (``MarkdownPage.Sized``): ``_sized``
            elif isinstance(effect, Blank):
                self._blank(effect.text)
            elif isinstance(effect, Announce):
                # Once the new page is on screen (tests, the chat pane and the benchmark wait for it).
                self.call_after_refresh(self.post_message, self.Shown(effect.note_id, effect.section))
            elif isinstance(effect, Answer):
                OpenAnswered.send(self.app, effect.ticket)

    @thread_work("viewer-load", "opening the note")
    def _fetch(self, fetch: Fetch, look: Look | None, first: int, kept: Kept | None) -> None:
        try:
            view = load_note_view(  # its backlinks once it has shown a moment (``BacklinksLater``)
                self._store, fetch.note_id, self._keyword, part_chars=self._part_chars(), backlinks_later=True
            )
        except NotFoundError:
            self.post_message(self._Loaded(fetch, None))
            return
        # Drawn here too, off the event loop: the page then only has to swap its lines in. A note
        # opened at its top: its opening only (``first`` characters), the page draws the rest. The
        # text the page shows whole (read again: a tag changed) keeps its drawing.
        text, limit = page_text(view), None if fetch.section or fetch.keep_scroll else first
        same = None if kept is None or look is None else kept.drawing(text, look)
        drawn = same if same is not None or look is None else draw(text, look, limit)
        self.post_message(self._Loaded(fetch, Copy(view, drawn)))

    @thread_work("viewer-ahead", "reading ahead")
    def _read_ahead(self, fetch: FetchAhead, look: Look | None) -> None:
        worker = get_current_worker()
        copies = []
        for note_id in fetch.note_ids:
            if worker.is_cancelled:
                return
            try:
                view = load_note_view(
                    self._store, note_id, self._keyword, part_chars=self._part_chars(), backlinks_later=True
                )
            except NotFoundError:
                continue
            copies.append(Copy(view, None if look is None else draw(page_text(view), look)))
        self.post_message(self._ReadAhead(tuple(copies), fetch.generation))

    @on(BacklinksFound)
    def _completed_view(self, message: BacklinksFound) -> None:
        if self.reader.view is message.was.view:  # else another note, or this one read again since
            self.reader.view = message.view
            self.query_one(LinkList).show(message.view.links, message.view.resources)
        # Kept whole, so showing it again searches no more (unless something changed meanwhile).
        self.reader.read_ahead_done((Copy(message.view, message.was.drawn),), message.generation)

    @on(_ReadAhead)
    def _read(self, message: _ReadAhead) -> None:
        self.reader.read_ahead_done(message.copies, message.generation)

    @on(_Loaded)
    def _loaded(self, message: _Loaded) -> None:
        self.apply(self.reader.read(message.fetch, message.copy, self.surface()))

    @on(NoteScroll.Found)
    def _found(self, event: NoteScroll.Found) -> None:
        event.stop()  # what the find found, on the line under the note's header
        self.query_one("#note-header", Static).border_subtitle = event.status

    @on(MarkdownPage.Completed)
    def _completed(self, event: MarkdownPage.Completed) -> None:
        event.stop()
        due, self._due = self._due, None
        if due is not None:
            self.scroll_to_section(due)
        self.query_one(NoteScroll).show_mark()  # a search's first match, drawn only now
        find = self.query_one(NoteScroll).find  # its matches looked for in the whole text now
        self.query_one("#note-header", Static).border_subtitle = "" if find is None else find.status()

    @on(MarkdownPage.Sized)
    def _sized(self, event: MarkdownPage.Sized) -> None:
        event.stop()
        if self.reader.parked:
            self.apply(self.reader.settle(self.surface()))

    def _draw(self, effect: Draw[Drawn]) -> None:
        scroll = self.query_one(NoteScroll)
        view, section = effect.copy.view, effect.section
        offset = scroll.scroll_y if effect.keep_scroll else 0
        self._due = None
        with self.app.batch_update():  # one frame for header, body, outline and links, not four
            header = self.query_one("#note-header", Static)
            header.update(note_header(view), layout=False)
            scroll.update(page_text(view), effect.copy.drawn, key=view.note.id)  # another note: no find
            self.query_one(OutlineList).show(view.outline)
            self.query_one(LinkList).show(view.links, view.resources)
            if view.backlinks_due and self._backlinks is not None:
                # Read ahead without them: only a note shown (for a moment) needs them.
                self._backlinks.ask(effect.copy, self.reader.generation)
            elif self._backlinks is not None:
                self._backlinks.drop()
            if section is None or not self.scroll_to_section(section):
                scroll.scroll_to(y=offset, animate=False, immediate=True)
            if not effect.keep_scroll:
                origin = None if section is None else self.section_row(section)
                scroll.drawn(view.note.id, origin, view.note.title)
            header.border_subtitle = "" if scroll.find is None else scroll.find.status()

    def _blank(self, text: str) -> None:
        if self._backlinks is not None:
            self._backlinks.drop()
        self.query_one("#note-header", Static).update(Content.styled(text, "$text-muted"))
        self.query_one("#note-header", Static).border_subtitle = ""
        self.query_one(NoteScroll).update("")
        self.query_one(OutlineList).clear_options()
        self.query_one(LinkList).show((), ())

    # Sections ------------------------------------------------------------------------------
    def scroll_to_section(self, path: str) -> bool:
        """Scroll so the heading of section ``path`` is at the top (a line, ``at_line``: in view,
        two rows below the top); False if there is none."""
        view = self.view
        if view is None:
            return False
        page = self.query_one(NoteScroll)
        if (line := line_of(path)) is not None:
            return self._later(path) if not page.covers(line) else page.show_line(view.text, line)
        found = view.outline.find(path)
        if not found:
            return False
        self.query_one(OutlineList).select_path(found[0].path)
        if not page.covers(view.text.count("\n", 0, found[0].start)):
            return self._later(path)
        row = self.section_row(path)
        if row is None:
            return False
        self.query_one(NoteScroll).show_row(row)  # there once the page can scroll (its first layout)
        return True

    def _later(self, path: str) -> bool:
        """Go to section ``path`` once the page is drawn whole (it is below the opening drawn)."""
        self._due = path
        return True

    def section_row(self, path: str) -> int | None:
        """The page row of section ``path``'s heading (``NoteScroll.section_row``)."""
        view = self.view
        return None if view is None else self.query_one(NoteScroll).section_row(view.text, view.outline, path)

    @on(OutlineList.SectionChosen)
    def _section_chosen(self, event: OutlineList.SectionChosen) -> None:
        event.stop()
        self.scroll_to_section(event.path)

    # Links and attachments ----------------------------------------------------------------
    @on(MarkdownPage.LinkClicked)
    def _link(self, event: MarkdownPage.LinkClicked) -> None:
        event.stop()
        follow_link(self, event.href, self.view, self.attachments)

    @on(LinkList.NoteLinkChosen)
    def _note_link(self, event: LinkList.NoteLinkChosen) -> None:
        event.stop()
        self.post_message(OpenNote(event.note_id))

    @on(LinkList.AttachmentChosen)
    def _attachment(self, event: LinkList.AttachmentChosen) -> None:
        event.stop()
        self.attachments.open(event.resource_id, event.name)

    @on(LinkList.SaveRequested)
    def _save_attachment(self, event: LinkList.SaveRequested) -> None:
        event.stop()
        self.attachments.save_as(event.resource_id)

    @on(LinkList.RemoveRequested)
    def _remove_attachment(self, event: LinkList.RemoveRequested) -> None:
        event.stop()
        self.attachments.remove(event.resource_id)

    # Actions -------------------------------------------------------------------------------
    def action_edit(self) -> None:
        if self.view is not None:
            self.post_message(self.EditRequested(self.view))

    def action_external(self) -> None:
        if self.view is not None:
            self.post_message(self.EditRequested(self.view, external=True))

    def action_copy(self) -> None:
        copy_note(self)

    def action_copy_code(self) -> None:
        copy_note_code(self)

    def action_history(self) -> None:
        from noted.ui.screens.history import open_history  # loaded when first asked for

        if self.view is not None:
            open_history(self, self._store, self.view.note, self.reload)

    def action_add_attachment(self) -> None:
        self.attachments.add()

    def action_outline(self) -> None:
        self.query_one(OutlineList).focus()

    def action_links(self) -> None:
        links = self.query_one(LinkList)
        if links.has_items:
            links.focus()
        else:
            self.notify("This note has no links or attachments.")

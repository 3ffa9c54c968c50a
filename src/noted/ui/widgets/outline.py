"""``OutlineList`` (the open note's headings) and ``LinkList`` (its note links and attachments).

The outline comes from ``noted.markdown.outline``, so each line's path (``1.2``) is the one that
search hits and ``read_note(section=…)`` use. Choosing a line posts a message; the viewer scrolls.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from noted.markdown import Outline
from noted.models import Resource
from noted.ui.data import LinkedNote, human_size
from noted.ui.patches.steady_scrollbars import SteadyScrollbars

_LIST_KEYS: list[BindingType] = [
    Binding("j", "cursor_down", "Down", show=False, id="outline.down", tooltip="Next line"),
    Binding("k", "cursor_up", "Up", show=False, id="outline.up", tooltip="Previous line"),
    Binding("g", "first", "First", show=False, id="outline.first", tooltip="First line"),
    Binding("G", "last", "Last", show=False, id="outline.last", tooltip="Last line"),
]


class OutlineList(SteadyScrollbars, OptionList):
    """The headings of the open note, indented by depth, with their section paths."""

    HELP = """\
## Outline

The headings of the note. {outline.down}/{outline.up} move, {outline.goto} scrolls the note to the heading.
The numbers are section paths: `noted show ID --section 1.2` and the assistant's
`read_note(section="1.2")` read the same part.
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        *_LIST_KEYS,
        Binding("enter", "select", "Go to", id="outline.goto", tooltip="Scroll the note to this heading"),
    ]

    @dataclass
    class SectionChosen(Message):
        """The person chose a heading."""

        outline: OutlineList
        path: str

        @property
        def control(self) -> OutlineList:
            return self.outline

    def show(self, outline: Outline) -> None:
        """Replace the lines with the headings of ``outline``, and a last one when it is partial."""
        options = [
            Option(
                Content.assemble(
                    ("  " * (s.depth - 1), ""), (f"{s.path} ", "$text-muted"), s.heading or "(empty)"
                ),
                id=f"s{s.path}",
            )
            for s in outline.headings
        ]
        shown = options or [Option(Content.styled("no headings", "$text-muted"), disabled=True)]
        if outline.partial:  # a long note's outline is of its opening (``notes.largeNoteChars``)
            shown.append(Option(Content.styled(outline.partial, "$text-muted"), disabled=True))
        self.set_options(shown)
        self.highlighted = 0 if options else None

    def select_path(self, path: str) -> None:
        """Highlight the line of section ``path`` (when the viewer opened the note there)."""
        try:
            self.highlighted = self.get_option_index(f"s{path}")
        except Exception:  # a path the outline does not have: leave the cursor where it is
            return

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(self.SectionChosen(self, event.option.id[1:]))


def _kind(resource: Resource) -> str:
    """A short name of the file's type: ``png``, ``pdf``, ``plain`` (its MIME subtype), else its extension."""
    subtype = resource.mime.split("/", 1)[-1].split(";", 1)[0].strip() if resource.mime else ""
    if subtype and subtype != "octet-stream" and len(subtype) <= 12:
        return subtype
    return resource.file_extension or resource.filename.rpartition(".")[2] or "file"


def _link_option(link: LinkedNote) -> Option:
    """→ a note this one links to, ← one that links here, ✗ a link that leads nowhere (not chosen)."""
    if link.kind == "broken":
        text = Content.assemble(("✗ ", "$text-error"), link.title, (f"\n  {link.detail}", "$text-muted"))
        return Option(text, disabled=True)
    mark = "← " if link.kind == "back" else "→ "
    section = f" § {link.detail}" if link.detail and link.kind == "out" else ""
    return Option(
        Content.assemble((mark, "$text-accent"), (link.title or "(untitled)") + section), id=f"n{link.id}"
    )


class LinkList(SteadyScrollbars, OptionList):
    """The open note's links: the notes it links to, those linking to it (backlinks), the links that
    lead nowhere, then its attachments with their sizes."""

    HELP = """\
## Links and attachments

→ marks a note this one links to, ← a note that links to this one (a backlink), ✗ a link that
leads nowhere. {links.open} on a linked note opens it; on an attachment (⧉), opens the file with the system's
program for it (`xdg-open` or `open`).

On an attachment, {note.attachment.save} saves a copy where you say (a folder keeps its name) and
{note.attachment.remove} removes it: its link leaves this note and, unless another note links it
too, the attachment is deleted (its file kept as a version: `noted history ID` brings it back). {note.attachment.add} in the note attaches a file from a path.
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        *[Binding(b.key, b.action, b.description, show=False, id=f"links.{b.id.split('.')[1]}", tooltip=b.tooltip)
          for b in _LIST_KEYS if isinstance(b, Binding) and b.id],
        Binding("enter", "select", "Open", id="links.open", tooltip="Open the linked note or attachment"),
        Binding("s", "save", "Save as", id="note.attachment.save",
                tooltip="Save a copy of the highlighted attachment to a file"),
        Binding("d,delete", "remove", "Remove", id="note.attachment.remove",
                tooltip="Remove the highlighted attachment from this note (deleted unless other notes link it)"),
    ]  # fmt: skip

    @dataclass
    class NoteLinkChosen(Message):
        note_id: str

    @dataclass
    class AttachmentChosen(Message):
        resource_id: str
        name: str

    @dataclass
    class SaveRequested(Message):
        """``s`` on an attachment: save a copy of it."""

        resource_id: str

    @dataclass
    class RemoveRequested(Message):
        """``d`` on an attachment: remove it from the note."""

        resource_id: str

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 (Textual's name)
        super().__init__(id=id)
        self._names: dict[str, str] = {}
        self.has_items = False
        """Whether the open note has links or attachments (else the list shows a placeholder)."""

    def show(self, links: tuple[LinkedNote, ...], resources: tuple[Resource, ...]) -> None:
        """Replace the lines with ``links`` then ``resources``, the line highlighted staying so
        (backlinks arrive after the rest, perhaps once the list has the focus)."""
        option = self.highlighted_option
        self._names = {r.id: r.title or r.filename for r in resources}
        options = [_link_option(link) for link in links]
        options += [
            Option(Content.assemble(("⧉ ", "$text-accent"), r.title or r.filename,
                                    (f"\n  {_kind(r)} · {human_size(r.size)}", "$text-muted")), id=f"r{r.id}")
            for r in resources
        ]  # fmt: skip
        self.has_items = bool(options)
        # Always shown, with a placeholder when empty: showing and hiding the list made Textual
        # repaint the whole screen, a third of the time a note took to open.
        self.set_options(
            options or [Option(Content.styled("no links or files", "$text-muted"), disabled=True)]
        )
        if option is not None and option.id is not None and option.id in {o.id for o in options}:
            self.highlighted = self.get_option_index(option.id)
        elif self.has_focus and self.has_items:
            self.highlighted = 0

    def on_focus(self) -> None:
        # Highlight the first item on arrival (by `a` or Tab): with nothing highlighted, Enter
        # did nothing until an arrow key. Not done in show(), so an unfocused list stays plain.
        if self.has_items and self.highlighted is None:
            self.highlighted = 0

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        option_id = event.option.id or ""
        if option_id.startswith("n"):
            self.post_message(self.NoteLinkChosen(option_id[1:]))
        elif option_id.startswith("r"):
            self.post_message(self.AttachmentChosen(option_id[1:], self._names.get(option_id[1:], "")))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Save as and Remove are for attachments: on a link to a note the key bar and F1 do not
        # offer them, and the keys go on to the app.
        if action in ("save", "remove"):
            option = self.highlighted_option
            return option is not None and (option.id or "").startswith("r")
        return True

    @on(OptionList.OptionHighlighted)
    def _moved(self) -> None:
        if self.has_focus:  # the key bar shows the focused pane's keys: nothing to redo otherwise
            self.refresh_bindings()

    def _attachment(self) -> str | None:
        option = self.highlighted_option
        option_id = option.id if option is not None else None
        if option_id and option_id.startswith("r"):
            return option_id[1:]
        self.notify("s and d work on attachments (⧉), not on links to notes.", severity="warning")
        return None

    def action_save(self) -> None:
        resource_id = self._attachment()
        if resource_id is not None:
            self.post_message(self.SaveRequested(resource_id))

    def action_remove(self) -> None:
        resource_id = self._attachment()
        if resource_id is not None:
            self.post_message(self.RemoveRequested(resource_id))

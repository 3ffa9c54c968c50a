"""``NoteScroll``: the reader's page, focusable so the keys scroll it, and ``/`` finds in it.

The find (``/``, then ``n``/``N``) asks in the screen's ``PromptBar`` and is the page's to keep
(``MarkdownPage.find``, see ``page_find``); this class binds the keys and says what was found
(``Found``) for the viewer to show under the note's header: ``find: word · 3/7``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.message import Message

from noted.markdown import Outline
from noted.ui.messages import Marks, line_of
from noted.ui.widgets.markdown_page import MarkdownPage
from noted.ui.widgets.prompt_bar import ask

_FIND_KEYS = frozenset({"find_next", "find_previous", "clear_find"})


class NoteScroll(MarkdownPage):
    """The scrolling page of the rendered note; focusable so the keys scroll it."""

    HELP = """\
## Note

{note.down}/{note.up} scroll, {note.page_down}/{note.page_up} a page, {note.top}/{note.bottom} top and
bottom. {note.edit} edits the note, {note.external} edits it in `$EDITOR`, {note.outline} goes to the
outline, {note.links} to the links and attachments, {note.attachment.add} attaches a file from a path.
{note.copy} copies the note's text (Markdown), {note.copy.code} one of its code blocks, {note.history}
its history: each revision with who left it, diffs, restoring one.
Links to other notes (`:/id`) open them.

{note.find} finds in the note, as you type (case counts only when you type a capital): the matches are
highlighted and the page goes to the first one (the last find's words come back selected: typing
replaces them). {prompt.keep} keeps them, {note.find.next}/{note.find.previous}
go to the next and previous match (round the end), {prompt.clear} (or {note.find.clear} once kept) clears them.
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "scroll_down", "Down", show=False, id="note.down", tooltip="Scroll down"),
        Binding("k", "scroll_up", "Up", show=False, id="note.up", tooltip="Scroll up"),
        Binding("g", "scroll_home", "Top", show=False, id="note.top", tooltip="Top of the note"),
        Binding("G", "scroll_end", "Bottom", show=False, id="note.bottom", tooltip="Bottom of the note"),
        Binding("space", "page_down", "Page down", show=False, id="note.page_down", tooltip="Next page"),
        Binding("b", "page_up", "Page up", show=False, id="note.page_up", tooltip="Previous page"),
        Binding("slash", "find", "Find", show=False, id="note.find", tooltip="Find in this note, as you type"),
        Binding("n", "find_next", "Next match", show=False, id="note.find.next",
                tooltip="The next match of the find, round the end"),
        Binding("N", "find_previous", "Previous match", show=False, id="note.find.previous",
                tooltip="The previous match of the find, round the start"),
        Binding("escape", "clear_find", "Clear find", show=False, id="note.find.clear",
                tooltip="Clear the find's highlights"),
    ]  # fmt: skip

    @dataclass
    class Found(Message):
        """What the find found changed: ``status`` says it ("" once cleared)."""

        status: str

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.pending: tuple[str, Marks] | None = None
        """The note to mark once drawn, and the marks (``OpenNote.marks``)."""
        self._mark_from: int | None = None
        """The row the note opened at with marks whose first match is not shown yet (``show_mark``)."""

    def expect_marks(self, note_id: str, marks: Marks | None) -> None:
        """Mark ``marks`` once note ``note_id`` is drawn; without, forget marks asked for another
        note (the list's cursor following the note opened from search asks for it again)."""
        if marks is not None or (self.pending is not None and self.pending[0] != note_id):
            self.pending = None if marks is None else (note_id, marks)

    def drawn(self, note_id: str, origin: int | None, title: str = "") -> None:
        """Note ``note_id`` (titled ``title``) is drawn anew, opened at row ``origin``: mark what
        was asked for it, and show the first match from there (``show_mark``)."""
        self._mark_from = None
        if self.pending is not None and self.pending[0] == note_id:
            self.find_marks(*self.pending[1], origin or 0, title)
            self.pending = None
            self._mark_from = origin or 0
            self.show_mark()

    def show_mark(self) -> None:
        """Bring the first match of the words a search found the note by into view, once it is
        drawn (a long note's rest comes later: ``Completed``), when it lies below the rows of
        the section opened at, as a find shows it (a third of the way down). Not once the
        person has moved: the page is theirs."""
        start, hit = self._mark_from, None if self.find is None else self.find.hit
        if start is None or hit is None:
            return
        self._mark_from = None
        height = self.scrollable_content_region.height
        still = self._goal == start or round(self.scroll_y) == min(start, round(self.max_scroll_y))
        if still and not start <= hit.row < start + height:
            self.show_row(max(0, hit.row - height // 3))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Without a find, n and N do nothing (but F1 lists them) and Esc is the screen's (back), as
        # it is over the marks of a search (they stay until another note or a find replaces them).
        if action == "clear_find" and self.find is not None and self.find.pattern is not None:
            return False
        if action in _FIND_KEYS and self.find is None:
            return False if action == "clear_find" else None
        return True

    def action_scroll_end(self) -> None:
        """The note's bottom, even while only its opening is drawn (a long note's rest comes from a
        thread): kept as a goal past any end, reached again when the whole drawing lands."""
        if self.covers(sys.maxsize):
            super().action_scroll_end()
        else:
            self.show_row(sys.maxsize)

    async def action_find(self) -> None:
        # A new find: the words of the last one (or of the search that opened the note) are
        # selected, so Enter keeps them and typing starts afresh rather than adding to them.
        text = "" if self.find is None else self.find.text
        await ask(self, "Find", text, "words in the note · Enter keeps · Esc clears", selected=True)

    def action_find_next(self) -> None:
        self.find_step(True)
        self._say()

    def action_find_previous(self) -> None:
        self.find_step(False)
        self._say()

    def action_clear_find(self) -> None:
        self.find_clear()
        self._say()

    def prompt_changed(self, text: str) -> None:
        self.find_text(text)
        self._say()

    def prompt_kept(self, text: str) -> None:
        if not text:
            self.action_clear_find()

    def prompt_cleared(self) -> None:
        self.find_clear(back=True)
        self._say()

    def _say(self) -> None:
        self.post_message(self.Found("" if self.find is None else self.find.status()))

    def section_row(self, text: str, outline: Outline, path: str) -> int | None:
        """The row of section ``path``'s heading in ``text`` outlined as ``outline`` (0 for the text
        before the first heading), or of the line ``at_line`` names; None when there is none."""
        if (line := line_of(path)) is not None:
            return self.row_of_line(text, line)
        found = outline.find(path)
        if not found or found[0].path == "0":
            return 0 if found else None
        return self.row_of(text.count("\n", 0, found[0].start))

"""The chat pane's place in the workspace: Ctrl+T shows it beside the note (built on first use)
and hides it again, the focus going back where it was; and the editor's text saved before the
assistant writes the note it holds.

The chat pane covers the other panes on a narrow screen and pushes the tree and the list aside on
a wide one (``workspace.tcss``), so the focus the person had (the editor's text, a heading in the
outline) is remembered when it opens and given back when it closes, unless that place is gone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widget import Widget
from textual.widgets import ContentSwitcher

from noted.ui.typeahead import release_keys
from noted.ui.widgets.note_editor import SAVED, NoteEditor
from noted.ui.widgets.note_list import NoteList
from noted.ui.widgets.note_viewer import NoteViewer

if TYPE_CHECKING:
    from noted.ui.workspace import Workspace


class ChatPlace:
    """Shows and hides the chat pane of ``screen``, and remembers where the focus was."""

    def __init__(self, screen: Workspace) -> None:
        self._screen = screen
        self._before: Widget | None = None

    async def toggle(self) -> None:
        """Show the chat (its input focused) or hide it (the focus back where it was)."""
        screen = self._screen
        chat = screen.chat
        if chat is None:
            from noted.ui.chat import ChatPane  # the chat engine loads when the chat is first shown

            chat = ChatPane(screen.services, before_turn=self.save_first)
            await screen.query_one("#workspace").mount(chat)
        if not screen.has_class("-chat"):
            self._before = screen.focused
        screen.toggle_class("-chat")
        if screen.has_class("-chat"):
            if not screen.has_class("-narrow"):
                aside = "the notebooks" if screen.has_class("-wider") else "the notebooks and the list"
                screen.notify(f"Beside the assistant {aside} step aside: Esc or Ctrl+T brings them back.")
            chat.set_note(screen.query_one(NoteViewer).note_id)
            focusable = [widget for widget in chat.query("*") if widget.focusable]
            if focusable:
                focusable[-1].focus()  # the pane's input is its last focusable part
        elif chat.has_focus_within or screen.focused is None:
            self._back()
        release_keys(screen.app)  # keys typed ahead go where the focus now is

    def _back(self) -> None:
        """Focus what had the focus before the chat opened; if that is in the reader's other side
        (the editor opened or closed meanwhile), the reader as it is now; with nothing remembered,
        the reader when it shows a note, else the list."""
        screen, before = self._screen, self._before
        self._before = None
        reader = screen.query_one("#reader", ContentSwitcher)
        if before is None or (reader in before.ancestors and reader.visible_content not in before.ancestors):
            before = screen.reader_focus() if screen.reading or screen.editing else screen.query_one(NoteList)
        before.focus()

    async def save_first(self, note_id: str) -> bool:
        """Save the editor's unsaved text of ``note_id`` and wait: the assistant is about to read and
        write the note, and must build on what the person sees, not on the stored text under it.

        A save that meets a change made elsewhere writes nothing; the editor keeps the text and
        says so (Ctrl+S there shows both sides). True when it saved the text."""
        editor = self._screen.query_one(NoteEditor)
        if self._screen.editing and editor.note is not None and editor.note.id == note_id:
            return await editor.flush() == SAVED
        return False

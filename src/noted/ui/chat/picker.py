"""The conversations about the open note, newest first, to resume one (Enter) or close (Esc)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from noted.chat.transcripts import Conversation


def describe(conversation: Conversation) -> str:
    """``Shopping list ideas · 6 messages · 2025-03-01 14:05``."""
    title = conversation.title or "(untitled)"
    day = time.strftime("%Y-%m-%d %H:%M", time.localtime(conversation.updated_time / 1000))
    count = conversation.message_count
    return f"{title} · {count} message{'s' if count != 1 else ''} · {day}"


class ConversationPicker(OptionList):
    """A short list of saved conversations; choosing one resumes it."""

    HELP = """\
## Earlier chats

The saved conversations about this note, newest first. **↓**/**↑** or
{chat.history.down}/{chat.history.up} move, {chat.history.first}/{chat.history.last} go to the newest
or oldest, **Enter** resumes the highlighted one, {chat.history.close} closes the list.
{chat.new} starts a new chat instead.
"""

    BINDINGS = [
        Binding("escape", "close", "Close", id="chat.history.close", tooltip="Close the list of chats"),
        Binding("j", "cursor_down", "Down", show=False, id="chat.history.down", tooltip="Next chat"),
        Binding("k", "cursor_up", "Up", show=False, id="chat.history.up", tooltip="Previous chat"),
        Binding("g", "first", "First", show=False, id="chat.history.first", tooltip="Newest chat"),
        Binding("G", "last", "Last", show=False, id="chat.history.last", tooltip="Oldest chat"),
    ]

    @dataclass
    class Chosen(Message):
        """The person chose a conversation to resume."""

        picker: ConversationPicker
        conversation: Conversation

        @property
        def control(self) -> ConversationPicker:
            return self.picker

    def __init__(self) -> None:
        super().__init__(id="chat-picker", classes="-hidden")
        self.conversations: tuple[Conversation, ...] = ()

    def show(self, conversations: Sequence[Conversation], current: str | None) -> None:
        """Fill the list, highlight the current conversation and take focus."""
        self.set_conversations(conversations)
        if self.conversations:
            self.highlighted = next((i for i, c in enumerate(self.conversations) if c.id == current), 0)
        else:
            self.set_options([Option("No saved chats here yet.", disabled=True)])
        self.remove_class("-hidden")
        self.focus()

    def set_conversations(self, conversations: Sequence[Conversation]) -> None:
        """Replace the listed conversations."""
        self.conversations = tuple(conversations)
        self.set_options(Option(Content(describe(c)), id=c.id) for c in self.conversations)

    @property
    def shown(self) -> bool:
        """True while the list is on screen."""
        return not self.has_class("-hidden")

    def action_close(self) -> None:
        """Hide the list and return to the message box."""
        self.add_class("-hidden")
        self.screen.focus_next("#chat-input")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        chosen = next((c for c in self.conversations if c.id == event.option.id), None)
        self.add_class("-hidden")
        if chosen is not None:
            self.post_message(self.Chosen(self, chosen))

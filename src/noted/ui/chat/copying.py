"""Copying from the chat: a message (the focused one, else the last reply) or a code block of it.

A message takes the focus (Shift+Tab from the message box reaches the last one), and then ``y``
copies it and ``Y`` one of its code blocks; ``Ctrl+Y`` anywhere in the pane copies the focused
message or, from the message box, the assistant's last reply. What is copied is the text as
written (a reply's Markdown), not the rendering.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.binding import Binding, BindingType
from textual.widget import Widget

from noted.ui.clipboard import copy_text
from noted.ui.code_blocks import code_blocks
from noted.ui.dialogs.code_picker import copy_code_block

if TYPE_CHECKING:
    from noted.ui.chat.log import ChatLog

REPLY = "the reply"
"""What an answer of the assistant is called in the notices."""
NO_REPLY = "There is no reply to copy yet. Nothing was copied."

MESSAGE_BINDINGS: list[BindingType] = [
    Binding("y", "copy", "Copy", id="chat.message.copy", tooltip="Copy this message's text to the clipboard"),
    Binding("Y", "copy_code", "Copy code", id="chat.message.copy.code",
            tooltip="Copy a code block of this message (a list to choose from when it has several)"),
]  # fmt: skip
"""The keys of a focused message; ``chat.copy`` (Ctrl+Y) is the pane's."""


class CopyableMessage(Widget):
    """A message of the chat that can be copied: ``y`` and ``Y`` while it has the focus.

    Mixed in after the widget's own base (``class AnswerView(Markdown, CopyableMessage,
    can_focus=True)``): Textual takes a widget's CSS type, and so its default styles, from its
    first base only, and bindings from every base.
    """

    BINDINGS = MESSAGE_BINDINGS
    is_reply = False
    """True for the assistant's answers (what Ctrl+Y copies from the message box)."""

    @property
    def copy_source(self) -> str:
        """The text as written."""
        raise NotImplementedError

    @property
    def copy_name(self) -> str:
        """What the message is, for the notices ("the reply")."""
        raise NotImplementedError

    def action_copy(self) -> None:
        copy_message(self.app, self)

    def action_copy_code(self) -> None:
        copy_message_code(self.app, self)


def copy_message(app: App[Any], message: CopyableMessage | None) -> None:
    """Copy ``message``'s text (None: there is no message to copy, which is said)."""
    if message is None:
        app.notify(NO_REPLY, severity="warning")
        return
    name = message.copy_name
    copy_text(app, message.copy_source, name, nothing=f"{name[0].upper()}{name[1:]} is empty.")


def copy_message_code(app: App[Any], message: CopyableMessage | None) -> None:
    """Copy a code block of ``message``: its only one, or the one chosen from a list."""
    if message is None:
        app.notify(NO_REPLY, severity="warning")
        return
    copy_code_block(app, code_blocks(message.copy_source), where=message.copy_name)


def message_to_copy(chat_log: ChatLog) -> CopyableMessage | None:
    """The focused message of ``chat_log``, else its last reply with text, else None."""
    focused = chat_log.screen.focused
    if isinstance(focused, CopyableMessage) and chat_log in focused.ancestors:
        return focused
    # By isinstance, not query(CopyableMessage): a query matches CSS type names, which follow
    # only a widget's first base (Markdown, Static), where the mixin is not.
    replies = [view for view in chat_log.children if isinstance(view, CopyableMessage) and view.is_reply]
    return next((view for view in reversed(replies) if view.copy_source.strip()), None)

"""The small views a chat is made of: what the person said, the answer, and one-line notices.

``AnswerView`` streams: ``write`` feeds a ``MarkdownStream`` (which joins fragments that arrive
faster than Markdown can render them), and ``finish`` replaces the streamed blocks with one full
``update`` so a code fence or a table left half-open mid-stream is parsed whole at the end.
"""

from __future__ import annotations

from textual import events
from textual.content import Content
from textual.widgets import Input, Markdown, Static
from textual.widgets.markdown import MarkdownStream

from noted.chat.transcripts import Conversation
from noted.ui.chat.copying import MESSAGE_BINDINGS, REPLY, CopyableMessage
from noted.ui.chat.keys import SEND_BINDING


class UserMessageView(Static, CopyableMessage, can_focus=True):
    """What the person wrote, as plain text (never parsed as markup)."""

    BINDINGS = MESSAGE_BINDINGS  # again: Static inherits no bindings, the mixin's included

    def __init__(self, text: str) -> None:
        super().__init__(Content(text), classes="user-message")
        self.text = text

    @property
    def copy_source(self) -> str:
        return self.text

    @property
    def copy_name(self) -> str:
        return "your message"


class AnswerView(Markdown, CopyableMessage, can_focus=True):
    """The assistant's words, streamed as Markdown while they arrive."""

    def __init__(self, text: str = "") -> None:
        super().__init__(text, classes="answer", open_links=False)
        self.text = text
        self._stream: MarkdownStream | None = None

    @property
    def copy_source(self) -> str:
        return self.text

    is_reply = True

    @property
    def copy_name(self) -> str:
        return f"{REPLY} so far" if self.streaming else REPLY

    @property
    def streaming(self) -> bool:
        """True while pieces of the answer are still arriving."""
        return self._stream is not None

    async def write(self, fragment: str) -> None:
        """Append a piece of the answer; rendering catches up in batches."""
        if self._stream is None:
            self._stream = Markdown.get_stream(self)
        self.text += fragment
        await self._stream.write(fragment)

    async def finish(self) -> None:
        """Stop streaming and render the whole answer once, so half-closed blocks repair."""
        stream, self._stream = self._stream, None
        if stream is not None:
            await stream.stop()
        if self.is_attached:
            await self.update(self.text)


class NoticeView(Static):
    """A line from noted itself: "stopped", an error and its remedy, a hint."""

    def __init__(self, text: str, *, kind: str = "info", remedy: str | None = None) -> None:
        body = Content(text) if not remedy else Content.assemble(text, "\n", Content(f"→ {remedy}"))
        super().__init__(body, classes=f"notice -{kind}")
        self.kind = kind
        self.message = text
        self.remedy = remedy


class SetupNotice(Static):
    """Two lines saying why the assistant cannot answer and how to set it up."""

    def __init__(self) -> None:
        super().__init__("", id="chat-setup", classes="-hidden")
        self.problem: str | None = None

    def show_problem(self, message: str, hint: str | None) -> None:
        """Say what blocks the assistant (first line) and what to change (second line)."""
        self.problem = message
        first = message[0].upper() + message[1:] if message else message
        second = hint or "See Settings → Assistant, or `noted config list`."
        self.update(Content.assemble(Content(first + "."), "\n", Content(second)))
        self.remove_class("-hidden")

    def clear_problem(self) -> None:
        """The assistant can answer: hide the notice."""
        self.problem = None
        self.update("")
        self.add_class("-hidden")


class ChatInput(Input):
    """Where the person writes; Enter sends."""

    BINDINGS = [SEND_BINDING]

    def __init__(self) -> None:
        super().__init__(placeholder="Ask about this note… (Enter sends)", id="chat-input")

    def on_paste(self, event: events.Paste) -> None:
        # Input keeps only the first line of a paste; a pasted paragraph must not lose the rest.
        # ``prevent_default`` keeps Input's own handler (a base class's) from running after this one.
        event.stop()
        event.prevent_default()
        text = " ".join(event.text.split())
        if self.selection.is_empty:
            self.insert_text_at_cursor(text)
        else:
            self.replace(text, *self.selection)

    def set_ready(self, ready: bool, *, about_note: bool) -> None:
        """Say in the placeholder whether the assistant can answer."""
        if not ready:
            self.placeholder = "The assistant is not set up (see above)"
        elif about_note:
            self.placeholder = "Ask about this note… (Enter sends)"
        else:
            self.placeholder = "Ask about your notes… (Enter sends)"


class ChatHeader(Static):
    """One line: the conversation's title, and how many are saved about this note."""

    def __init__(self) -> None:
        super().__init__("New chat", id="chat-header")

    def show(self, conversation: Conversation | None, saved: int) -> None:
        """Show ``conversation``'s title and the number of saved chats."""
        title = conversation.title if conversation and conversation.title else "New chat"
        count = f" · {saved} saved chat{'s' if saved != 1 else ''}" if saved else ""
        self.update(Content(title + count))


class StatusLine(Static):
    """What the pane is doing ("Answering…", "Waiting for your answer…"); hidden when idle."""

    def __init__(self) -> None:
        super().__init__("", id="chat-status", classes="-hidden")
        self.text: str | None = None

    def say(self, text: str | None) -> None:
        """Show ``text`` (None hides the line)."""
        if text != self.text:  # each change costs a layout pass
            self.text = text
            self.update(Content(text or ""))
            self.set_class(not text, "-hidden")

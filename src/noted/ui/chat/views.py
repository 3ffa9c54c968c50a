"""The small views a chat is made of: what the person said, the answer, and one-line notices.

``AnswerView`` streams: ``write`` feeds a ``MarkdownStream`` (which joins fragments that arrive
faster than Markdown can render them), and ``finish`` replaces the streamed blocks with one full
``update`` so a code fence or a table left half-open mid-stream is parsed whole at the end.
Each drawing re-parses and re-wraps the block the answer ends in, so pieces are held back until
they add ``1/DRAW_SHARE`` to what is drawn, or for ``DRAW_WAIT`` seconds: a long paragraph costs
a few dozen drawings, not one a piece (n² in its length: 30 s for 32,000 characters).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual import events, work
from textual.await_complete import AwaitComplete
from textual.content import Content
from textual.message import Message
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Markdown, Static, TextArea
from textual.widgets.markdown import MarkdownStream
from textual.widgets.text_area import EditResult

from noted.chat.transcripts import Conversation
from noted.services import Services
from noted.settings import SettingChange
from noted.ui.chat.copying import MESSAGE_BINDINGS, REPLY, CopyableMessage
from noted.ui.chat.data import Setup, check_setup
from noted.ui.chat.keys import NEWLINE_BINDING, SEND_BINDING
from noted.ui.workers import ReportsWorkerFailures

DRAW_SHARE = 8
"""A streamed piece is drawn at once when the held text is an eighth of what is drawn (a short answer:
each piece), so the drawings of a long answer grow geometrically and their total stays linear."""
DRAW_WAIT = 0.2
"""Seconds held text waits at most, so a slow model's words still show as they come."""


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
        self._held = ""
        """Arrived and not yet given to the stream (``DRAW_SHARE``)."""
        self._hold: Timer | None = None
        self._end: Widget | None = None
        """The block marked as the last one (``-end``)."""

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
        self._held += fragment
        if len(self._held) * DRAW_SHARE >= len(self.text) - len(self._held):
            await self._draw_held()
        elif self._hold is None:
            self._hold = self.set_timer(DRAW_WAIT, self._draw_held)

    async def _draw_held(self) -> None:
        if self._hold is not None:
            self._hold.stop()
            self._hold = None
        held, self._held = self._held, ""
        if held and self._stream is not None:
            await self._stream.write(held)

    async def finish(self) -> None:
        """Stop streaming and render the whole answer once, so half-closed blocks repair."""
        stream, self._stream = self._stream, None
        await self._draw_held()  # (with no stream, only drops what is held: the update draws it)
        if stream is not None:
            await stream.stop()
        if self.is_attached:
            await self.update(self.text)

    def update(self, markdown: str) -> AwaitComplete:
        """Render ``markdown`` anew (``Markdown.update``), then mark its last block."""
        return self._then_mark_end(super().update(markdown))

    def append(self, markdown: str) -> AwaitComplete:
        """Add ``markdown`` at the end (``Markdown.append``, the stream's), then mark the last block."""
        return self._then_mark_end(super().append(markdown))

    def _then_mark_end(self, drawing: AwaitComplete) -> AwaitComplete:
        """Give the last block, and only it, the ``-end`` class (its trailing margin goes)."""

        async def mark() -> None:
            await drawing
            end = self.children[-1] if self.children else None
            if end is not self._end:
                if self._end is not None:
                    self._end.remove_class("-end")
                if end is not None:
                    end.add_class("-end")
                self._end = end

        return AwaitComplete(mark())


class NoticeView(Static):
    """A line from noted itself: "stopped", an error and its remedy, a hint."""

    def __init__(self, text: str, *, kind: str = "info", remedy: str | None = None) -> None:
        body = Content(text) if not remedy else Content.assemble(text, "\n", Content(f"→ {remedy}"))
        super().__init__(body, classes=f"notice -{kind}")
        self.kind = kind
        self.message = text
        self.remedy = remedy


class SetupNotice(ReportsWorkerFailures, Static):
    """Two lines saying why the assistant cannot answer and how to set it up.

    It checks the setup when shown and again whenever an ``ai.*`` setting changes (from any
    process: the settings file is watched), and tells the pane with ``Checked``. A check that
    fails on a bug is reported as every background task's (``WorkFailed``).
    """

    @dataclass
    class Checked(Message):
        """The assistant's setup as checked now."""

        notice: SetupNotice
        setup: Setup

        @property
        def control(self) -> SetupNotice:
            return self.notice

    class _Touched(Message):
        """An ``ai.*`` setting changed (posted from whichever thread changed it)."""

    def __init__(self, services: Services) -> None:
        super().__init__("", id="chat-setup", classes="-hidden")
        self.services = services
        self.problem: str | None = None
        self._unsubscribe: Callable[[], None] | None = None

    def on_mount(self) -> None:
        self._unsubscribe = self.services.settings.subscribe(self._settings_changed)
        self.check()

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()

    @work(exclusive=True, group="chat-setup", exit_on_error=False, description="Checking the assistant")
    async def check(self) -> None:
        """Check the setup again (builds the provider off the event loop)."""
        self.show(await check_setup(self.services))

    def show(self, setup: Setup) -> None:
        """Show ``setup``'s problem, or hide the notice; and tell the pane."""
        if setup.problem is None:
            self.clear_problem()
        else:
            self.show_problem(setup.problem, setup.hint)
        self.post_message(self.Checked(self, setup))

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

    def _settings_changed(self, changes: tuple[SettingChange, ...]) -> None:
        if any(change.key.startswith("ai.") for change in changes):
            self.post_message(self._Touched())  # post_message is thread-safe

    def on_setup_notice__touched(self, _: _Touched) -> None:
        self.check()


class ChatInput(TextArea):
    """Where the person writes: several lines (a paste keeps its lines), Enter sends, Ctrl+J adds a
    line. It grows with its text up to a few lines, then scrolls (``chat.tcss``)."""

    BINDINGS = [SEND_BINDING, NEWLINE_BINDING]

    @dataclass
    class Submitted(Message):
        """The person sent ``value`` (Enter)."""

        input: ChatInput
        value: str

        @property
        def control(self) -> ChatInput:
            return self.input

    def __init__(self) -> None:
        super().__init__(
            id="chat-input", soft_wrap=True, tab_behavior="focus", placeholder=_placeholder(about_note=True)
        )

    @property
    def value(self) -> str:
        """The text written so far (every line)."""
        return self.text

    @value.setter
    def value(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)

    def clear(self) -> EditResult:
        """Empty the box."""
        result = super().clear()
        self.move_cursor((0, 0))
        return result

    async def on_key(self, event: events.Key) -> None:
        # TextArea inserts a line on Enter itself. Send and New line (wherever ``ui.keymap`` put
        # them) act here, at once: a binding runs only once the key has bubbled up to the app, and
        # keys typed after it would land first (Ctrl+J then "x" gave "x\n" in tmux).
        # ``prevent_default`` keeps TextArea's handler (a base class's, called after this one) out.
        active = self.screen.active_bindings.get(event.key)
        action = active.binding.action if active is not None and active.node is self else ""
        if action in ("submit", "newline"):
            event.stop()
            event.prevent_default()
            getattr(self, f"action_{action}")()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Ctrl+Z and Ctrl+Y are the chat's (undo the last edit, copy the reply), as they were over
        # the one-line box: TextArea's typing undo and redo give way, and the key goes on to the pane.
        if action in ("undo", "redo"):
            return False
        if action == "cursor_up" and not self.text:  # ↑ goes on to the pane: the last message back
            return False
        return super().check_action(action, parameters)

    def action_submit(self) -> None:
        """Send the text (Enter)."""
        self.post_message(self.Submitted(self, self.text))

    def action_newline(self) -> None:
        """Start a new line where the cursor is (Ctrl+J)."""
        start, end = self.selection  # (``insert`` would leave the cursor before the new line)
        result = self.replace("\n", start, end, maintain_selection_offset=False)
        self.move_cursor(result.end_location)

    def set_ready(self, ready: bool, *, about_note: bool) -> None:
        """Say in the placeholder whether the assistant can answer."""
        self.placeholder = (
            _placeholder(about_note=about_note) if ready else "The assistant is not set up (see above)"
        )


def _placeholder(*, about_note: bool) -> str:
    what = "this note" if about_note else "your notes"
    return f"Ask about {what}… (Enter sends, Ctrl+J a new line)"


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

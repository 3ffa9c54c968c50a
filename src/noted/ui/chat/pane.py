"""The chat pane: a conversation with the assistant about the open note.

The engine (``noted.chat``) does the work and yields typed events; this pane only renders them,
in one ``match`` (``answering.Answering.show``), and answers the engine's approvals with the
person's keys. Profile reads run in thread workers and come back as messages; the answer runs in
one async worker (group ``chat``); every worker's end and failure is handled in
``on_worker_state_changed``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from importlib.resources import files
from typing import Any

from textual import on, work
from textual.app import ComposeResult, SystemCommand
from textual.containers import Vertical
from textual.message import Message
from textual.worker import Worker, WorkerState, get_current_worker

from noted.chat.engine import ChatEngine
from noted.chat.transcripts import Conversation
from noted.errors import NotedError
from noted.services import Services
from noted.ui.chat.answering import Answering
from noted.ui.chat.copying import copy_message, copy_message_code, message_to_copy
from noted.ui.chat.data import ChatView, Setup, check_setup, hint, load_chat
from noted.ui.chat.edits import EditCard
from noted.ui.chat.elsewhere import Elsewhere, stamp_of
from noted.ui.chat.keys import CHAT_BINDINGS, CHAT_COMMANDS, CHAT_HELP
from noted.ui.chat.log import ChatLog
from noted.ui.chat.models import choose_model
from noted.ui.chat.picker import ConversationPicker
from noted.ui.chat.undoing import GROUP as UNDO_GROUP
from noted.ui.chat.undoing import Undoing
from noted.ui.chat.views import ChatHeader, ChatInput, SetupNotice, StatusLine
from noted.ui.workers import thread_work

log = logging.getLogger(__name__)

EngineFactory = Callable[[], ChatEngine]
"""Builds the engine; ``Services.chat_engine`` unless a test passes one with a scripted provider."""


class ChatPane(Vertical):
    """Chat with the assistant about one note; conversations are saved and resumed per note.

    Args:
        services: The composition root: settings, store, transcripts, provider.
        engine_factory: Builds the chat engine (tests pass one over a ``FakeProvider``).
        before_turn: Awaited with the note's id before an answer about it, and before the person's
            yes to its edits is acted on (the workspace saves the editor's text of it: the model
            works on the text the person sees); True when it saved something.
    """

    DEFAULT_CSS = files("noted.ui.chat").joinpath("chat.tcss").read_text(encoding="utf-8")
    HELP = CHAT_HELP
    BINDINGS = CHAT_BINDINGS

    @dataclass
    class UsageChanged(Message):
        """The conversation's size, for the status bar; fast updates coalesce."""

        pane: ChatPane
        size: int
        """About how much of ``ai.budgetTokens`` the conversation takes: the last request and its
        answer as the provider counted them (``ChatView.size`` for a conversation opened); 0 for
        a new chat."""
        estimated: bool = False
        """True when the server reported no usage: ``size`` is noted's estimate."""

        @property
        def control(self) -> ChatPane:
            return self.pane

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, ChatPane.UsageChanged) and message.pane is self.pane

    @dataclass
    class Loaded(Message):
        view: ChatView
        redraw: bool = True
        """False: only the conversation's title, counts and the list changed (after an answer)."""

    def __init__(
        self,
        services: Services,
        *,
        engine_factory: EngineFactory | None = None,
        before_turn: Callable[[str], Awaitable[bool]] | None = None,
    ) -> None:
        super().__init__(id="chat-pane")
        self.services = services
        self._engine_factory = engine_factory or services.chat_engine
        self._engine: ChatEngine | None = None
        self.note_id: str | None = None
        self.note_title: str | None = None
        self.conversation: Conversation | None = None
        self.conversations: tuple[Conversation, ...] = ()
        self.setup = Setup()
        self.editing: str | None = None
        """The last message, back in the box to be edited: sending replaces its exchange."""
        self._drafts: dict[str | None, str] = {}  # typed and not sent in other notes' chats
        self._replaced: set[str] = set()
        """Last messages replaced on screen since the last new one; an edit refused left one saved."""
        self._header = ChatHeader()
        self._picker = ConversationPicker()
        self._notice = SetupNotice(services)
        self.chat_log = ChatLog()
        self.status_line = StatusLine()
        self._input = ChatInput()
        self._answering = Answering(self, self.chat_log, self.status_line, before_turn)
        self._undoing = Undoing(self)
        self.elsewhere = Elsewhere(self)
        """Catching up with what other windows did to the conversation."""

    def compose(self) -> ComposeResult:
        yield self._header
        yield self._picker
        yield self._notice
        yield self.chat_log
        yield self.status_line
        yield self._input

    @property
    def running(self) -> bool:
        """True while an answer is being written."""
        return self._answering.cancel is not None

    @property
    def engine(self) -> ChatEngine:
        """The chat engine, built on first use."""
        if self._engine is None:
            self._engine = self._engine_factory()
        return self._engine

    def on_mount(self) -> None:
        self._load(self.note_id, None)

    # What the app calls ------------------------------------------------------------------------
    def set_note(self, note_id: str | None) -> None:
        """Chat about ``note_id`` (None: no note): resume its latest conversation, or start one."""
        if note_id == self.note_id and self.conversation is not None:
            return
        left, self.note_id, self.conversation = self.note_id, note_id, None
        if self.is_mounted:
            if left != note_id:  # each note keeps its draft: Enter never sends it about another
                self._drafts[left] = self._input.value
                self._input.value = self._drafts.pop(note_id, "")
            self._stop_run()
            self._load(note_id, None)

    def commands(self) -> list[SystemCommand]:
        """The pane's actions that apply now, for the app's ``get_system_commands``."""
        return [
            SystemCommand(title, detail, getattr(self, f"action_{action}"))
            for action, title, detail in CHAT_COMMANDS
            if self.check_action(action, ())
        ]

    # Actions -----------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # False hides the key and lets it go on to the app: Esc, y, n, u mean nothing here then.
        match action:
            case "cancel":  # Ctrl+C's (``unless_selected``) leaves a selection on screen to be copied
                return self.running and not (parameters and self.screen.get_selected_text())
            case "accept" | "reject":
                return self.chat_log.asking is not None
            case "undo":  # with nothing to undo, it says so
                return not self.running
            case "edit_last" | "regenerate":
                # ↑ on a message in the log that cannot scroll comes here too: it means nothing then.
                away = action == "edit_last" and self.chat_log.has_focus_within
                return not self.running and not away and self.chat_log.last_user() is not None
        return True

    def action_cancel(self, unless_selected: bool = False) -> None:
        """Stop the answer being written (Esc, Ctrl+C); from a waiting card (its buttons go), to the box."""
        if self.chat_log.asking is not None:
            self._input.focus()
        self._answering.ask_to_stop()

    def action_accept(self) -> None:
        """Accept the change waiting for an answer (y)."""
        self._answering.decide(True)

    def action_reject(self) -> None:
        """Reject the change waiting for an answer (n)."""
        self._answering.decide(False)

    def action_undo(self) -> None:
        """Undo the last saved change of the open note (u)."""
        self._undoing.start()

    async def action_new_chat(self) -> None:
        """Start a new conversation about the open note (Ctrl+N)."""
        self._stop_run()
        self.conversation = self.elsewhere.shown = None  # a chat of its own: nothing to catch up with
        await self.chat_log.reset(hint(self.note_id, self.note_title))
        self._show_header()
        self.post_message(self.UsageChanged(self, 0))
        self._input.focus()

    def action_history(self) -> None:
        """Show or hide the earlier conversations about the open note (Ctrl+R)."""
        picker = self._picker
        if picker.shown:
            picker.action_close()
        else:
            picker.show(self.conversations, self.conversation.id if self.conversation else None)

    def action_edit_last(self) -> None:
        """Put the last message back in the box; sending it replaces its exchange (↑)."""
        last = self.chat_log.last_user()
        if last is None or self.running:
            return
        self.editing = self._input.value = last.text
        self._input.focus()
        self._status("Editing: Enter replaces your last message and its answer; changes to notes stay.")

    async def action_regenerate(self) -> None:
        """Drop the last answer and ask the same again (Ctrl+G)."""
        last = self.chat_log.last_user()
        if last is not None and not self.running:
            await self._ask(last.text, replacing=last.text)

    def action_models(self) -> None:
        """Choose the model from the server's list (Ctrl+L)."""
        choose_model(self, self.services)

    def action_copy(self) -> None:
        """Copy the focused message, or the last reply (Ctrl+Y)."""
        copy_message(self.app, message_to_copy(self.chat_log))

    def action_copy_code(self) -> None:
        """Copy a code block of the focused message, or of the last reply (palette)."""
        copy_message_code(self.app, message_to_copy(self.chat_log))

    # The person's input ------------------------------------------------------------------------
    @on(ChatInput.Submitted)
    async def _send(self, event: ChatInput.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if not text:
            return
        if self.running:
            self.notify("An answer is still being written; Esc stops it.", severity="warning")
            return
        replacing, self.editing = self.editing, None
        event.input.clear()
        await self._ask(text, replacing=replacing)

    async def _ask(self, text: str, *, replacing: str | None = None) -> None:
        """Show ``text`` and start its answer; with ``replacing``, in place of the last exchange."""
        cancel = self._answering.begin(text)
        if replacing is None:
            self._replaced.clear()
        else:
            self._replaced.add(replacing)
            await self.chat_log.drop_last_exchange()
        await self.chat_log.add_user(text)
        self._status("Answering…")
        self._answering.run = self._answer(text, cancel, frozenset(self._replaced))
        self.refresh_bindings()

    @on(ChatInput.Changed)
    def _typed(self, event: ChatInput.Changed) -> None:
        if self.editing is not None and not event.text_area.text:  # emptied: a new message after all
            self.editing = None
            self._status(None)

    @on(ConversationPicker.Chosen)
    def _resume(self, event: ConversationPicker.Chosen) -> None:
        self._stop_run()
        self._load(self.note_id, event.conversation.id)
        self._input.focus()

    @on(EditCard.Decided)
    def _decided(self, event: EditCard.Decided) -> None:
        if self.chat_log.answered(event.card):
            self._status("Saving…" if event.yes else "Answering…")
            self.refresh_bindings()
            self._input.focus()

    # The answer --------------------------------------------------------------------------------
    @work(exclusive=True, group="chat", exit_on_error=False, description="Answering in the chat")
    async def _answer(self, text: str, cancel: asyncio.Event, replacing: frozenset[str]) -> None:
        if started := self.conversation is None:
            setup = await check_setup(self.services)  # refuse before a conversation is saved
            if setup.problem is not None:
                self._notice.show(setup)
                await self.chat_log.add_notice(setup.problem, kind="error", remedy=setup.hint)
                return
            note_id = self.note_id or ""
            self.conversation = await asyncio.to_thread(self.services.transcripts.create, note_id=note_id)
        editor = None if self.note_id is None else await self._answering.open_session(self.note_id)
        try:
            run = self.engine.run(self.conversation, text, editor=editor, cancel=cancel, replacing=replacing)
            async for event in run:
                await self._answering.show(event)
        finally:
            await self.chat_log.end_answer()
        if started and await asyncio.to_thread(self.services.transcripts.drop_if_empty, self.conversation.id):
            self.conversation = None  # the message was refused before it was kept (over the budget)

    def reload(self, conversation_id: str | None) -> None:
        """Show the conversation (None: the note's latest) as the profile has it now."""
        self._load(self.note_id, conversation_id)

    def on_descendant_focus(self) -> None:
        self.elsewhere.check()  # another window may have changed the chat since it was shown

    def _stop_run(self) -> None:
        """End a running answer at once (the person moved to another chat or note)."""
        self.elsewhere.stop()
        self.editing = None
        self._replaced.clear()
        self._answering.stop()
        self.refresh_bindings()

    # Workers that read the profile -------------------------------------------------------------
    @thread_work("chat-load", "Opening a chat")
    def _load(self, note_id: str | None, conversation_id: str | None, redraw: bool = True) -> None:
        view = load_chat(self.services, self.engine, note_id, conversation_id)
        if not get_current_worker().is_cancelled:
            self.post_message(self.Loaded(view, redraw))

    # Results -----------------------------------------------------------------------------------
    @on(Loaded)
    async def _loaded(self, event: Loaded) -> None:
        view = event.view
        if view.note_id != self.note_id:
            return  # the person has moved on
        self.note_title, self.conversations = view.note_title, view.conversations
        if event.redraw and not self.running:  # (a message sent meanwhile has started a new chat)
            self.conversation = view.conversation
            if view.messages:
                await self.chat_log.show_history(view.messages, view.lines)
            else:
                await self.chat_log.reset(hint(self.note_id, self.note_title))
            self.post_message(self.UsageChanged(self, view.size, view.estimated))
        elif view.conversation and self.conversation and view.conversation.id == self.conversation.id:
            self.conversation = view.conversation  # its new title and counts
            if view.estimated:  # the server counted nothing: the estimate after the answer
                self.post_message(self.UsageChanged(self, view.size, estimated=True))
        if self.conversation is view.conversation:  # shown, or its title and counts: compared on focus
            self.elsewhere.shown = stamp_of(view.conversation, view.note_title)
        self._show_header()
        self._show_setup()
        self.refresh_bindings()

    @on(SetupNotice.Checked)
    def _setup_checked(self, event: SetupNotice.Checked) -> None:
        self.setup = event.setup
        self._show_setup()

    async def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The one place where workers' ends and failures are handled."""
        worker = event.worker
        if self._answering.ended(worker):
            self.refresh_bindings()
            if self.conversation is not None:
                self._load(self.note_id, self.conversation.id, redraw=False)  # its title and counts
        if event.state is WorkerState.ERROR and worker.error is not None:
            await self._failed(worker, worker.error)

    async def _failed(self, worker: Worker[Any], error: BaseException) -> None:
        if isinstance(error, NotedError):
            message, hint = error.message, error.hint
        else:
            log.error("%s failed", worker.description, exc_info=error)
            message = f"{worker.description}: internal error ({type(error).__name__})"
            hint = "the details are in the profile's noted.log"
        if worker.group == UNDO_GROUP:
            self._undoing.failed(message)
        else:
            await self.chat_log.add_notice(message, kind="error", remedy=hint)

    # Small views -------------------------------------------------------------------------------
    def _show_header(self) -> None:
        self._header.show(self.conversation, len(self.conversations))

    def _show_setup(self) -> None:
        self.chat_log.set_class(self.setup.problem is not None, "-setup-needed")
        self._input.set_ready(self.setup.problem is None, about_note=self.note_id is not None)

    def _status(self, text: str | None) -> None:
        self.status_line.say(text)

"""One answer of the assistant as the chat pane shows it: its stop signal, its worker, its events.

The engine yields typed events; ``Answering.show`` draws each, in one ``match``: the reply, its
tool calls and edit cards in the log, and what the assistant is doing in the status line. It
holds the running answer's ``cancel`` event (set by Esc) and its worker, so that starting,
stopping and the end of an answer are decided in one place. ``ChatPane`` owns one; the pane's
keys and messages stay the pane's (this posts ``ChatPane.UsageChanged`` on it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from textual.worker import Worker

from noted.chat import events as ev
from noted.chat.turns import BREAK
from noted.ops.session import EditorSession
from noted.ui.chat.log import ChatLog
from noted.ui.chat.views import StatusLine

if TYPE_CHECKING:
    from noted.ui.chat.pane import ChatPane


class Answering:
    """The answer being written, if any, and how its events are drawn.

    Args:
        pane: The pane the answer is written in (its keys change with an approval asked).
        chat: The pane's log, where the reply and its cards go.
        status: The pane's status line.
        before_turn: Has the editor's text of a note saved (True when it saved something).
    """

    def __init__(
        self,
        pane: ChatPane,
        chat: ChatLog,
        status: StatusLine,
        before_turn: Callable[[str], Awaitable[bool]] | None = None,
    ) -> None:
        self._pane = pane
        self._before_turn = before_turn
        self.session: EditorSession | None = None
        """The assistant's working copy of the open note in the answer being written."""
        self._chat = chat
        self._status = status
        self.cancel: asyncio.Event | None = None
        """Set to stop the answer; None while no answer is being written."""
        self.run: Worker[None] | None = None
        """The worker writing the answer."""
        self.text = ""
        """What the person sent, given back to them when another window answers in the chat."""
        self._waiting = False
        """The last event was ``Waiting``: the status line shows the wait until the answer begins."""

    def begin(self, text: str) -> asyncio.Event:
        """A new answer to ``text``: its stop signal, made before the worker starts so an early Esc
        is not lost."""
        self.text = text
        self.cancel = asyncio.Event()
        self._chat.forget_cards(keep_undo=True)
        return self.cancel

    async def open_session(self, note_id: str) -> EditorSession:
        """The answer's working copy of the open note, opened once the editor's text of it is
        saved: the model reads and changes what the person sees."""
        if self._before_turn is not None:
            await self._before_turn(note_id)
        self.session = await asyncio.to_thread(EditorSession.open, self._pane.services.store, note_id)
        return self.session

    async def _save_first(self) -> None:
        """The person accepted the edits: what they typed in the editor since the answer began is
        saved first, as before the answer, and the edits carried over onto it, so neither meets
        the other as a change made elsewhere (the edits clashing with it are refused as before)."""
        session = self.session
        if session is not None and self._before_turn is not None and await self._before_turn(session.note_id):
            await asyncio.to_thread(session.catch_up, self._pane.services.store)

    def ask_to_stop(self) -> None:
        """Ask the engine to stop (Esc): it ends the answer itself, keeping what was said."""
        if self.cancel is not None:
            self.cancel.set()
            self._status.say("Stopping…")

    def decide(self, yes: bool) -> None:
        """Accept (``yes``) or reject the change waiting for an answer (y, n)."""
        if (card := self._chat.asking) is not None:
            card.decide(yes)

    def stop(self) -> None:
        """End a running answer at once (the person moved to another chat or note); a change
        waiting for their answer goes with its chat, so a notice says so where they now look."""
        if self._chat.asking is not None:
            self._pane.notify(
                f"Stopped the change the assistant proposed to “{self._pane.note_title}”: nothing "
                "was written. Ask again in that note's chat.",
                severity="warning",
            )
        if self.run is not None:
            self.run.cancel()  # the engine saves what was said; this run's late events are not shown
        self.run = self.cancel = self.session = None
        self._status.say(None)
        self._chat.forget_cards()

    def ended(self, worker: Worker[object]) -> bool:
        """Forget the answer if ``worker`` was its worker and has finished (True then)."""
        if worker is not self.run or not worker.is_finished:
            return False
        self.run = self.cancel = self.session = None
        self._chat.forget_cards(keep_undo=True)
        self._status.say(None)
        return True

    async def show(self, event: ev.ChatEvent) -> None:
        """Draw one engine event."""
        chat = self._chat
        if self._waiting and not isinstance(event, ev.Waiting):
            self._waiting = False
            self._status.say("Answering…")
        match event:
            case ev.Waiting():
                self._waiting = True
                self._status.say(event.describe())
            case ev.TextDelta(text=text):
                await chat.write(text)
            case ev.ToolCallStarted():
                await chat.start_call(event)
            case ev.ToolCallFinished():
                chat.finish_call(event)
            case ev.EditsProposed(diff=diff, edits=count):
                await chat.propose(diff, count)
            case ev.ApprovalRequested(approval=approval, tool=tool):
                card = await chat.ask(approval)
                card.before_yes = self._save_first if tool == "edit_current" else None
                card.focus()  # y and n act on the focused card, not in the input
                self._status.say("Waiting for your answer on the change above…")
                self._pane.refresh_bindings()  # y and n mean something now
            case ev.BatchApplied():
                chat.batch_applied(event)
                self._status.say("Answering…")
            case ev.EditsApplied():
                await chat.applied(event)
                self._status.say("Answering…")
            case ev.EditsRefused(message=message):
                await chat.refused(message)
            case ev.UsageReport(conversation_tokens=size):
                pane = self._pane
                pane.post_message(pane.UsageChanged(pane, size))
            case ev.Done():
                await chat.end_answer()
            case ev.Busy(message=message, remedy=remedy):  # nothing was saved: the text goes back
                await chat.drop_last_exchange()
                await chat.add_notice(
                    message, kind="error", remedy=f"{remedy}; your message is back in the box"
                )
                self._pane.elsewhere.answering(self.text)
            case ev.Failed(message=message, remedy=remedy):
                chat.cut_short(BREAK)
                await chat.add_notice(message, kind="error", remedy=remedy)
            case ev.Cancelled():
                chat.cut_short()
                await chat.add_notice("stopped", kind="stopped")

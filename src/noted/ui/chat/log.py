"""The scrolling transcript of one conversation: messages, tool calls, changes and notices.

The pane tells the log what happened (``write`` a piece of the answer, ``start_call``,
``propose`` a change…); the log decides how it looks, and keeps the streaming answer, the open
tool calls and the change cards (the one waiting for y/n, the last one that can be undone). A
saved conversation is shown again with ``show_history`` from its messages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from textual.containers import VerticalScroll
from textual.widget import Widget

from noted.chat.events import (
    Approval,
    BatchApplied,
    BatchApproval,
    EditsApplied,
    ToolCallFinished,
    ToolCallStarted,
)
from noted.chat.prompts import PRELOAD_CALL_ID
from noted.chat.transcripts import Entry, Notice
from noted.chat.turns import STOP, Ending, summary
from noted.models import ToolStatus
from noted.providers import AssistantMessage, ToolResultMessage, UserMessage
from noted.tools.editor import EDIT_TOOLS
from noted.ui.chat.batch_card import BatchCard
from noted.ui.chat.data import HISTORY_LIMIT
from noted.ui.chat.edits import EditCard
from noted.ui.chat.tool_call import ToolCallView, status_of
from noted.ui.chat.views import AnswerView, NoticeView, UserMessageView


class ChatLog(VerticalScroll, can_focus=False):
    """The transcript; it stays scrolled to the end while the answer grows, unless scrolled up."""

    def __init__(self) -> None:
        super().__init__(id="chat-log")
        self._answer: AnswerView | None = None
        self._calls: dict[str, ToolCallView] = {}
        self._proposal: EditCard | None = None
        self._edit_calls: list[ToolCallView] = []
        """Edits of the open note that worked but wait to be saved: a refusal re-marks them."""
        self.asking: EditCard | None = None
        """The card waiting for the person's yes or no."""
        self.undoable: EditCard | None = None
        """The last saved change, which ``u`` undoes."""
        self._cards: dict[str, EditCard] = {}
        """The cards asking about one tool call each, by the call's id: its end is said on them."""

    def on_mount(self) -> None:
        self.anchor()

    @property
    def answer(self) -> AnswerView | None:
        """The answer being streamed, if any."""
        return self._answer

    async def reset(self, hint: str | None = None) -> None:
        """Empty the log (a new chat, another note), leaving ``hint`` as its only line."""
        await self.end_answer()
        self._calls.clear()
        self._edit_calls.clear()
        self.forget_cards()
        await self.remove_children()
        if hint:
            await self.mount(NoticeView(hint, kind="hint"))
        self.anchor()

    async def add_user(self, text: str) -> None:
        """Show what the person sent (the empty chat's hint goes)."""
        await self.end_answer()
        await self.query(".notice.-hint").remove()  # the empty chat's hint has done its job
        await self.mount(UserMessageView(text))
        self.anchor()

    def last_user(self) -> UserMessageView | None:
        """The person's last message on screen, if any."""
        found = self.query(UserMessageView)
        return found.last() if found else None

    async def drop_last_exchange(self) -> None:
        """Remove the person's last message and what followed it, but the cards of changes made:
        they stay made (and the last one undoable), as the saved chat keeps them; a change
        refused made none, and goes with its answer."""
        last = self.last_user()
        if last is None:
            return
        await self.end_answer()
        after = list(self.children)[list(self.children).index(last) :]
        made = [w for w in after if isinstance(w, EditCard) and not w.has_class("-refused")]
        await self.remove_children([w for w in after if w not in made])
        self._calls.clear()
        self._edit_calls.clear()

    async def write(self, fragment: str) -> None:
        """Add a piece of the answer, starting a new answer block after a tool call."""
        if self._answer is None:
            self._answer = AnswerView()
            await self.mount(self._answer)
        await self._answer.write(fragment)

    async def end_answer(self) -> None:
        """Finish the streamed answer block, if one is open (one full render)."""
        answer, self._answer = self._answer, None
        if answer is not None:
            await answer.finish()

    async def start_call(self, event: ToolCallStarted) -> ToolCallView:
        """Show a tool call as it starts, collapsed to its summary."""
        await self.end_answer()
        view = ToolCallView(event.call_id, event.name, event.arguments, event.summary)
        self._calls[event.call_id] = view
        await self.mount(view)
        return view

    def finish_call(self, event: ToolCallFinished) -> None:
        """Show how a tool call ended and its result."""
        if (card := self._cards.pop(event.call_id, None)) is not None:
            card.mark_ran(event)
        view = self._calls.get(event.call_id)
        if view is not None:
            view.finish(event.status, event.result, event.reason)
            if event.status is ToolStatus.OK and view.tool_name in EDIT_TOOLS:
                self._edit_calls.append(view)

    async def add(self, widget: Widget) -> None:
        """Add a card or any other block at the end."""
        await self.end_answer()
        await self.mount(widget)
        self.anchor()

    async def add_notice(self, text: str, *, kind: str = "info", remedy: str | None = None) -> NoticeView:
        """Add a line from noted itself (``kind``: hint, stopped, warning, error)."""
        notice = NoticeView(text, kind=kind, remedy=remedy)
        await self.add(notice)
        return notice

    # Changes the assistant proposes ------------------------------------------------------------
    async def propose(self, diff: str, count: int) -> None:
        """Show the diff of the edits the assistant wants to save."""
        self._proposal = EditCard(f"Proposed: {_edits(count)} to the note", diff=diff)
        await self.add(self._proposal)

    async def ask(self, approval: Approval) -> EditCard:
        """Show the yes/no question on the proposed diff, or on a card of its own."""
        card = self._proposal if approval.diff and self._proposal is not None else None
        if isinstance(approval, BatchApproval):
            card = BatchCard(approval)
            await self.add(card)
        elif card is None:
            card = EditCard(approval.title, detail=approval.detail)
            await self.add(card)
            if self._calls:  # the call asked about is the one started last
                self._cards[next(reversed(self._calls))] = card
        card.ask(approval)
        self.asking = card
        return card

    def answered(self, card: EditCard) -> bool:
        """The person answered ``card``; True when it was the one waiting."""
        if card is not self.asking:
            return False
        self.asking = None
        return True

    async def applied(self, event: EditsApplied) -> None:
        """The proposed edits were saved; their card offers undo."""
        card = self._proposal
        if card is None:
            card = EditCard(f"Saved: {_edits(event.edits)} to the note")
            await self.add(card)
        card.mark_applied(event)
        self._proposal, self.undoable = None, card
        self._edit_calls.clear()

    def batch_applied(self, event: BatchApplied) -> None:
        """The ticked changes of a batch were applied, and its card offers undo; or none was (one
        failed), and the card says why."""
        card = next((c for c in reversed(list(self.query(BatchCard))) if c.applied is None), None)
        if card is not None and not event.applied:
            card.mark_refused(event.message)
        elif card is not None:
            card.mark_batch_applied(event)
            self.undoable = card

    async def refused(self, message: str) -> None:
        """The edits were not saved (declined, or the note moved meanwhile)."""
        if self._proposal is not None:
            self._proposal.mark_refused(message)
        else:
            await self.add_notice(message, kind="warning")
        self._proposal = None
        self._edits_not_saved(message)

    def cut_short(self, ending: Ending = STOP) -> None:
        """The answer was stopped (or broke off on an error: ``ending``): its held edits were not
        saved, and calls left running never ran (as the saved chat says, resumed)."""
        if self._proposal is not None and self._proposal is not self.asking:  # accepted, not saved
            self._proposal.mark_refused(ending.not_saved)
            self._proposal = None
        self._edits_not_saved(ending.not_saved)
        for view in self._calls.values():
            if view.status is None:
                view.refuse(ending.not_run)

    def _edits_not_saved(self, message: str) -> None:
        # The edit tools answered ✓ while the edits were only held; nothing was written, so their
        # lines must not say it worked (a resumed chat shows them refused, from the saved results).
        for view in self._edit_calls:
            view.refuse(message)
        self._edit_calls.clear()

    def undone(self, card: EditCard, message: str | None = None) -> None:
        """The note is back as it was before ``card``'s change (a batch's: as ``message`` says)."""
        card.mark_undone(message)
        if self.undoable is card:
            self.undoable = None

    def not_undone(self, message: str) -> None:
        """Undo was refused (the note changed since); say why on the card."""
        if self.undoable is not None:
            self.undoable.mark_not_undone(message)
            self.undoable = None

    def forget_cards(self, *, keep_undo: bool = False) -> None:
        """Stop tracking cards (the run ended); a card still asking says nothing was written."""
        if self.asking is not None:
            self.asking.mark_stopped()
        self._proposal = self.asking = None
        self._cards.clear()
        if not keep_undo:
            self.undoable = None

    async def show_history(self, messages: Sequence[Entry], lines: Mapping[str, str] | None = None) -> None:
        """Draw a saved conversation (its last ``HISTORY_LIMIT`` messages), all at once; ``lines``
        gives tool calls' lines by call id (``noted.chat.calls.call_line``)."""
        widgets: list[Widget] = []
        hidden = max(0, len(messages) - HISTORY_LIMIT)
        if hidden:
            widgets.append(NoticeView(f"{hidden} earlier messages are not shown.", kind="earlier"))
        calls: dict[str, ToolCallView] = {}
        changes: dict[int, EditCard] = {}
        for message in messages[hidden:]:
            match message:
                case UserMessage(text=text):
                    widgets.append(UserMessageView(text))
                case AssistantMessage(text=text, tool_calls=tool_calls):
                    if text:
                        widgets.append(AnswerView(text))
                    for call in tool_calls:
                        if call.id == PRELOAD_CALL_ID:
                            continue  # the open note, read for the model; live runs do not show it
                        line = (lines or {}).get(call.id) or summary(call.name, dict(call.arguments))
                        view = ToolCallView(call.id, call.name, call.arguments, line)
                        calls[call.id] = view
                        widgets.append(view)
                case ToolResultMessage(call_id=call_id, content=content, is_error=is_error):
                    if (called := calls.get(call_id)) is not None:
                        called.finish(status_of(content, is_error), content)
                case Notice(kind="change", message=text, detail=diff, ticket=ticket):
                    card = EditCard("Change to the note", diff=diff)
                    card.mark_kept(text, saved=bool(ticket))
                    changes[ticket] = card
                    widgets.append(card)
                case Notice(kind="undone", ticket=ticket):
                    if (undone := changes.get(ticket)) is not None:
                        undone.mark_undone()
                case Notice(kind="undone-batch", message=text):
                    widgets.append(NoticeView(text, kind="info"))
                case Notice(message=text, remedy=remedy):  # a reply that ended in an error
                    widgets.append(NoticeView(text, kind="error", remedy=remedy))
        await self.reset()
        if widgets:
            await self.mount_all(widgets)
        self.anchor()


def _edits(count: int) -> str:
    return "1 edit" if count == 1 else f"{count} edits"

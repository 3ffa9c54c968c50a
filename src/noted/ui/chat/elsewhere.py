"""Catching up with what other windows did to the pane's conversation and note.

A message sent while another window (or ``noted ask``) answers in the same conversation is refused
by the conversation's run lease (``noted.chat.claim``), nothing of it saved. The pane gives the text
back and waits, in a worker thread, until the lease is free, then shows the conversation as that
window left it.

Another process may also add to the conversation (an answer there, an MCP client's proposal
answered) or retitle the note, with the pane idle. When the pane gets the focus it reads one row
of each (``Stamp``) and shows them anew only when they differ from what it shows: the next turn
no longer has to be the first to see them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.worker import get_current_worker

from noted.chat.transcripts import Conversation, Transcripts
from noted.errors import NotedError, NotFoundError
from noted.services import Services
from noted.ui.chat.views import ChatInput
from noted.ui.workers import in_thread

if TYPE_CHECKING:
    from noted.ui.chat.pane import ChatPane

FOLLOW_SECONDS = 0.5
"""How often the lease is looked at while the other window answers."""


@dataclass(frozen=True, slots=True)
class Stamp:
    """What the pane shows of its conversation and note, in a few numbers read cheaply."""

    conversation_id: str | None
    updated_time: int
    message_count: int
    note_title: str | None


def stamp_of(conversation: Conversation | None, note_title: str | None) -> Stamp:
    """The stamp of a conversation (None: the note's chat not started) about a note of that title."""
    if conversation is None:
        return Stamp(None, 0, 0, note_title)
    return Stamp(conversation.id, conversation.updated_time, conversation.message_count, note_title)


def read_stamp(services: Services, note_id: str | None, conversation_id: str | None) -> Stamp:
    """The stamp as the profile says now: the conversation's row (the note's latest when None) and
    the note's title."""
    transcripts = services.transcripts
    conversation = (
        transcripts.get(conversation_id) if conversation_id else transcripts.latest_for_note(note_id or "")
    )
    title = None
    if note_id:
        try:
            title = services.store.get_note(note_id).title
        except NotFoundError:
            title = None
    return stamp_of(conversation, title)


def wait_until_free(transcripts: Transcripts, conversation_id: str) -> bool:
    """Block until nobody answers in the conversation; False when the worker was cancelled first
    (the person moved to another chat or note)."""
    lease = transcripts.run_lease(conversation_id, "tui")
    worker = get_current_worker()
    while lease.holder() is not None:
        if worker.is_cancelled:
            return False
        time.sleep(FOLLOW_SECONDS)
    return not worker.is_cancelled


class Elsewhere:
    """The pane's catching up with other windows."""

    def __init__(self, pane: ChatPane) -> None:
        self._pane = pane
        self.shown: Stamp | None = None
        """What the pane shows (None: nothing to compare, e.g. a new chat started here)."""

    def answering(self, text: str) -> None:
        """Another window answers in this conversation: ``text``, not saved, goes back in the box,
        and the pane catches up with that window's exchange when its answer ends."""
        pane, box = self._pane, self._pane.query_one(ChatInput)
        if not box.value.strip():
            box.value = text
        box.focus()
        if pane.conversation is None:
            return
        conversation_id = pane.conversation.id
        in_thread(
            pane, lambda: self._follow(conversation_id), "chat-follow", "Waiting for another window's answer",
            exclusive=True,
        )  # fmt: skip

    def check(self) -> None:
        """Read the stamp (in a thread) and show the conversation anew if it differs."""
        pane, shown = self._pane, self.shown
        if shown is None or pane.running:
            return
        in_thread(
            pane,
            lambda: self._check(shown),
            "chat-check",
            "Looking for other windows' changes",
            exclusive=True,
        )

    def stop(self) -> None:
        """The person moved to another chat or note: stop waiting and looking."""
        self._pane.workers.cancel_group(self._pane, "chat-follow")
        self._pane.workers.cancel_group(self._pane, "chat-check")

    def _follow(self, conversation_id: str) -> None:
        if wait_until_free(self._pane.services.transcripts, conversation_id):
            self._pane.app.call_from_thread(self._caught_up, conversation_id)

    def _check(self, shown: Stamp) -> None:
        try:
            now = read_stamp(self._pane.services, self._pane.note_id, shown.conversation_id)
        except NotedError:  # deleted elsewhere, or a busy database: the next turn says so
            return
        if now != shown and not get_current_worker().is_cancelled:
            self._pane.app.call_from_thread(self._caught_up, shown.conversation_id)

    def _caught_up(self, conversation_id: str | None) -> None:
        pane = self._pane
        if pane.running or (pane.conversation.id if pane.conversation else None) != conversation_id:
            return  # a message sent, or another chat opened, meanwhile
        pane.reload(conversation_id)

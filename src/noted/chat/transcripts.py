"""Saved conversations: messages, tool calls and results, usage, and the note they were about.

Kept by the store as rows (``noted.store.chats.ChatRows``, on disk ``noted.store.sqlite.chats``),
so a conversation survives a restart and can be listed, resumed, searched and deleted. A
conversation is saved step by step: the person's message when sent, each model round with its tool results when the
round completes, so a crash or a cancel leaves a history the provider will accept.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from noted.errors import NotedError
from noted.providers import AssistantMessage, Message, ToolCall, ToolResultMessage, UserMessage
from noted.store.chats import NOTICE_ROLE, ChatRows, Conversation, RunLease


@dataclass(frozen=True, slots=True)
class Notice:
    """What a resumed chat shows besides the messages; never sent to the model.

    Attributes:
        message: What happened, in a sentence.
        remedy: What the person can do (an error's).
        kind: ``error``: how a reply ended in an error. ``change``: edits of the open note were
            saved (``detail`` is their diff, ``ticket`` the note's ``updated_time`` after them)
            or refused (``ticket`` 0). ``undone``: the change with that ``ticket`` was undone.
            ``undone-batch``: a batch of changes was undone; ``message`` says what was and was not.
        detail: The diff of a change.
        ticket: Ties an ``undone`` notice to its ``change``.
    """

    message: str
    remedy: str | None = None
    kind: str = "error"
    detail: str = ""
    ticket: int = 0


Entry = Message | Notice
"""What a conversation's transcript holds, for showing it."""


@dataclass(frozen=True, slots=True)
class LastTurn:
    """The person's last message in a conversation, and what stays when it is sent again.

    Attributes:
        text: The message.
        keep: How many entries of the transcript come before it (they stay as they are).
        history: Those entries as the model is sent them (no notices).
        carried: The notices after it of changes made to notes (``change`` and ``undone``): the
            changes stay made, so they stay in the transcript when the exchange is replaced.
    """

    text: str
    keep: int
    history: tuple[Message, ...]
    carried: tuple[Notice, ...]


BUSY = "another window is answering in this conversation"

__all__ = ["Conversation", "Entry", "LastTurn", "Notice", "Transcripts"]


def _encode(message: Entry) -> tuple[str, str]:
    if isinstance(message, Notice):
        data: dict[str, Any] = {"message": message.message, "remedy": message.remedy}
        if message.kind != "error":  # an error's row stays as it was before kinds were kept
            data |= {"kind": message.kind, "detail": message.detail, "ticket": message.ticket}
        return NOTICE_ROLE, json.dumps(data, ensure_ascii=False)
    # Unescaped text (ensure_ascii off) keeps the stored JSON readable and searchable as written.
    if isinstance(message, UserMessage):
        return "user", json.dumps({"text": message.text}, ensure_ascii=False)
    if isinstance(message, AssistantMessage):
        calls = [{"id": c.id, "name": c.name, "arguments": dict(c.arguments)} for c in message.tool_calls]
        return "assistant", json.dumps({"text": message.text, "tool_calls": calls}, ensure_ascii=False)
    return "tool", json.dumps(
        {"call_id": message.call_id, "content": message.content, "is_error": message.is_error},
        ensure_ascii=False,
    )


def _decode(role: str, raw: str) -> Entry:
    data: dict[str, Any] = json.loads(raw)
    if role == NOTICE_ROLE:
        kind, detail, ticket = data.get("kind", "error"), data.get("detail", ""), data.get("ticket", 0)
        return Notice(data["message"], data.get("remedy"), kind, detail, int(ticket))
    if role == "user":
        return UserMessage(data["text"])
    if role == "assistant":
        calls = tuple(
            ToolCall(c["id"], c["name"], c.get("arguments", {})) for c in data.get("tool_calls", [])
        )
        return AssistantMessage(data.get("text", ""), calls)
    return ToolResultMessage(data["call_id"], data["content"], bool(data.get("is_error")))


class Transcripts:
    """The conversations of one profile: the store's rows, as messages."""

    def __init__(self, rows: ChatRows) -> None:
        self.rows = rows

    # Conversations ---------------------------------------------------------------------
    def create(self, *, note_id: str = "", title: str = "") -> Conversation:
        return self.rows.create(note_id=note_id, title=title)

    def get(self, conversation_id: str) -> Conversation:
        return self.rows.get(conversation_id)

    def recent(self, *, note_id: str | None = None, limit: int = 50) -> list[Conversation]:
        """Conversations, newest first; those about ``note_id`` only when given."""
        return self.rows.recent(note_id=note_id, limit=limit)

    def find(self, id_or_prefix: str) -> Conversation:
        """The conversation with this id, or the only one whose id starts with it (listings show
        the first 8 characters).

        Raises:
            NotFoundError: No conversation matches.
            InvalidInputError: The prefix matches more than one.
        """
        return self.rows.find(id_or_prefix)

    def latest_for_note(self, note_id: str) -> Conversation | None:
        found = self.recent(note_id=note_id, limit=1)
        return found[0] if found else None

    def search(self, text: str, *, limit: int = 50) -> list[Conversation]:
        """Conversations whose title, or what the person or the assistant wrote, contains ``text``
        (case-insensitive for ASCII letters; tool calls and results are left out)."""
        return self.rows.search(text, limit=limit)

    def delete(self, conversation_id: str) -> None:
        """Erase the conversation, holding its run lease: refused while an answer runs in it
        (another window's), whose next save would otherwise go into no conversation."""
        lease = self.rows.run_lease(conversation_id, "noted")
        if not lease.acquire():
            holder = lease.holder()
            raise NotedError(
                f"{BUSY}: {holder}" if holder else BUSY, hint="delete it once that answer has ended"
            )
        try:
            self.rows.delete(conversation_id)
        finally:
            lease.release()

    def drop_if_empty(self, conversation_id: str) -> bool:
        """Delete a conversation just started if nothing was kept of it (its first message was
        refused: over the budget), so a refusal leaves no empty chat behind; True then."""
        if self.get(conversation_id).message_count:
            return False
        self.delete(conversation_id)
        return True

    def run_lease(self, conversation_id: str, label: str) -> RunLease:
        """The claim an answer holds on the conversation while it runs, so that a second window
        sending meanwhile is told, not interleaved (``noted.store.chats.RunLease``)."""
        return self.rows.run_lease(conversation_id, label)

    # Messages ----------------------------------------------------------------------------
    def messages(self, conversation_id: str) -> list[Message]:
        """The conversation as the model is sent it: without the notices of replies that failed."""
        return [m for m in self.transcript(conversation_id) if not isinstance(m, Notice)]

    def transcript(self, conversation_id: str) -> list[Entry]:
        """The conversation as the person saw it, notices of failed replies included."""
        return [_decode(role, content) for role, content in self.rows.rows(conversation_id)]

    def last_turn(self, conversation_id: str) -> LastTurn | None:
        """The person's last message and what comes before it; None when there is none."""
        entries = self.transcript(conversation_id)
        at = next((i for i in range(len(entries) - 1, -1, -1) if isinstance(entries[i], UserMessage)), None)
        if at is None:
            return None
        message = entries[at]
        assert isinstance(message, UserMessage)
        history = tuple(m for m in entries[:at] if not isinstance(m, Notice))
        carried = tuple(m for m in entries[at + 1 :] if isinstance(m, Notice) and _made(m))
        return LastTurn(message.text, at, history, carried)

    def append(
        self,
        conversation_id: str,
        messages: Sequence[Entry],
        *,
        usage: tuple[int, int] = (0, 0),
        title: str | None = None,
        keep: int | None = None,
    ) -> None:
        """Add messages (one step of the conversation) and usage, in one transaction; with
        ``keep``, only the first ``keep`` entries stay before them (``LastTurn.keep``: the last
        exchange is replaced)."""
        rows = [_encode(m) for m in messages]
        self.rows.append(conversation_id, rows, usage=usage, title=title, keep=keep)


def _made(notice: Notice) -> bool:
    """True for a notice of a change made (or undone), which stays when its exchange is replaced;
    an error or a change refused (no ``ticket``: nothing was written) goes with its answer."""
    return notice.kind != "error" and (notice.kind != "change" or bool(notice.ticket))

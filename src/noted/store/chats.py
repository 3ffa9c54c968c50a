"""Saved conversations as the store keeps them: rows of (role, JSON), with no model types.

``noted.chat.transcripts`` turns rows into messages; a backend keeps the rows (the SQLite one in
the profile's database or Joplin's sidecar: ``noted.store.sqlite.chats``). The assistant's code
sees only ``ChatRows``, so it never imports a backend or apsw.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

NOTICE_ROLE = "notice"
"""The role of a row that records how a reply ended in an error (never sent to the model)."""


@dataclass(frozen=True, slots=True)
class Conversation:
    """A saved conversation (without its messages)."""

    id: str
    note_id: str
    title: str
    created_time: int
    updated_time: int
    input_tokens: int = 0
    output_tokens: int = 0
    message_count: int = 0
    size_tokens: int = 0
    """The conversation's size as the provider counted its last request and answer (0: unknown)."""


class RunLease(Protocol):
    """One answer's claim on a conversation, so two windows never answer in it at once (their
    messages would interleave). A holder that died loses it (at once on this host)."""

    def acquire(self) -> bool:
        """Take the claim if nobody else holds it; True when this answer holds it afterwards."""
        ...

    def holder(self) -> str | None:
        """Who holds it (such as ``the app (pid 4242)``), or None when nobody does."""
        ...

    def start_heartbeat(self) -> None:
        """Keep the claim from lapsing, from a thread of its own, until ``release``."""
        ...

    def release(self) -> None:
        """Give the claim up."""
        ...


class ChatRows(Protocol):
    """The conversations of one profile, each message a ``(role, content)`` row in order."""

    def create(self, *, note_id: str = "", title: str = "") -> Conversation:
        """A new, empty conversation (about ``note_id`` when given)."""
        ...

    def get(self, conversation_id: str) -> Conversation:
        """The conversation, or ``NotFoundError``."""
        ...

    def recent(self, *, note_id: str | None = None, limit: int = 50) -> list[Conversation]:
        """Conversations, newest first; those about ``note_id`` only when given."""
        ...

    def find(self, id_or_prefix: str) -> Conversation:
        """The conversation with this id, or the only one whose id starts with it."""
        ...

    def search(self, text: str, *, limit: int = 50) -> list[Conversation]:
        """Conversations whose title, or what the person or the assistant wrote, contains ``text``."""
        ...

    def delete(self, conversation_id: str) -> None:
        """Erase the conversation and its messages, or ``NotFoundError``."""
        ...

    def run_lease(self, conversation_id: str, label: str) -> RunLease:
        """The claim an answer in the conversation holds while it runs (not taken yet); ``label``
        names this process to another that finds it taken (``tui``, ``noted ask``)."""
        ...

    def rows(self, conversation_id: str) -> list[tuple[str, str]]:
        """The conversation's ``(role, content)`` rows, in order."""
        ...

    def append(
        self,
        conversation_id: str,
        rows: Sequence[tuple[str, str]],
        *,
        usage: tuple[int, int] = (0, 0),
        title: str | None = None,
        keep: int | None = None,
    ) -> None:
        """Add rows (one step of the conversation) and usage, in one transaction; a request's
        usage also becomes the conversation's size (``Conversation.size_tokens``). With ``keep``,
        the rows after the first ``keep`` are deleted first, in the same transaction (a message
        edited and sent again replaces the exchange it began)."""
        ...

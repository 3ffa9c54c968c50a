"""Saved conversations: messages, tool calls and results, usage, and the note they were about.

Kept in the profile's database (their own tables, versioned in ``meta``), so a conversation
survives a restart and can be listed, resumed, searched and deleted. A conversation is saved
step by step: the person's message when sent, each model round with its tool results when the
round completes, so a crash or a cancel leaves a history the provider will accept.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import apsw

from noted.errors import InvalidInputError, NotFoundError
from noted.models import new_id, now_ms
from noted.providers import AssistantMessage, Message, ToolCall, ToolResultMessage, UserMessage
from noted.store.sqlite.db import Database

SCHEMA_KEY = "chat.schema"
SCHEMA_VERSION = 1
_NEWEST_FIRST = "ORDER BY c.updated_time DESC, c.rowid DESC"
"""Two chats saved in the same millisecond still come out in a stable order, the later first."""


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


@dataclass(frozen=True, slots=True)
class Notice:
    """How a reply ended in an error, kept so a resumed chat shows it; never sent to the model."""

    message: str
    remedy: str | None = None


Entry = Message | Notice
"""What a conversation's transcript holds, for showing it."""

NOTICE_ROLE = "notice"


def _encode(message: Entry) -> tuple[str, str]:
    if isinstance(message, Notice):
        return NOTICE_ROLE, json.dumps(
            {"message": message.message, "remedy": message.remedy}, ensure_ascii=False
        )
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
        return Notice(data["message"], data.get("remedy"))
    if role == "user":
        return UserMessage(data["text"])
    if role == "assistant":
        calls = tuple(
            ToolCall(c["id"], c["name"], c.get("arguments", {})) for c in data.get("tool_calls", [])
        )
        return AssistantMessage(data.get("text", ""), calls)
    return ToolResultMessage(data["call_id"], data["content"], bool(data.get("is_error")))


class Transcripts:
    """The conversations of one profile."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._ensure()

    def _ensure(self) -> None:
        with self.db.write() as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (SCHEMA_KEY,)).fetchone()
            if row and int(row[0]) >= SCHEMA_VERSION:
                return
            conn.execute(
                """
                CREATE TABLE IF NOT EXISTS chats (
                    id TEXT PRIMARY KEY,
                    note_id TEXT NOT NULL DEFAULT '',
                    title TEXT NOT NULL DEFAULT '',
                    created_time INTEGER NOT NULL,
                    updated_time INTEGER NOT NULL,
                    input_tokens INTEGER NOT NULL DEFAULT 0,
                    output_tokens INTEGER NOT NULL DEFAULT 0
                );
                CREATE INDEX IF NOT EXISTS chats_note ON chats(note_id, updated_time);
                CREATE TABLE IF NOT EXISTS chat_messages (
                    chat_id TEXT NOT NULL,
                    seq INTEGER NOT NULL,
                    role TEXT NOT NULL,
                    content TEXT NOT NULL,
                    time INTEGER NOT NULL,
                    PRIMARY KEY (chat_id, seq)
                ) WITHOUT ROWID;
                """
            )
            conn.execute(
                "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (SCHEMA_KEY, str(SCHEMA_VERSION)),
            )

    # Conversations ---------------------------------------------------------------------
    def create(self, *, note_id: str = "", title: str = "") -> Conversation:
        now = now_ms()
        conversation = Conversation(new_id(), note_id, title, now, now)
        with self.db.write() as conn:
            conn.execute(
                "INSERT INTO chats(id, note_id, title, created_time, updated_time) VALUES (?, ?, ?, ?, ?)",
                (conversation.id, note_id, title, now, now),
            )
        return conversation

    def get(self, conversation_id: str) -> Conversation:
        with self.db.read() as conn:
            row = self._select(conn, "WHERE c.id = ?", (conversation_id,)).fetchone()
        if row is None:
            raise NotFoundError(f'no conversation with id "{conversation_id}"')
        return Conversation(*row)

    def recent(self, *, note_id: str | None = None, limit: int = 50) -> list[Conversation]:
        """Conversations, newest first; those about ``note_id`` only when given."""
        where, params = ("WHERE c.note_id = ?", (note_id,)) if note_id is not None else ("", ())
        with self.db.read() as conn:
            rows = self._select(conn, f"{where} {_NEWEST_FIRST} LIMIT ?", (*params, limit))
            return [Conversation(*r) for r in rows]

    def find(self, id_or_prefix: str) -> Conversation:
        """The conversation with this id, or the only one whose id starts with it (listings show
        the first 8 characters).

        Raises:
            NotFoundError: No conversation matches.
            InvalidInputError: The prefix matches more than one.
        """
        prefix = id_or_prefix.strip().lower()
        if not prefix:
            raise InvalidInputError("give a conversation id (noted chats lists them)")
        with self.db.read() as conn:
            rows = self._select(
                conn, f"WHERE substr(c.id, 1, ?1) = ?2 {_NEWEST_FIRST} LIMIT 3", (len(prefix), prefix)
            ).fetchall()
        if not rows:
            raise NotFoundError(f'no conversation with id "{id_or_prefix}"', hint="noted chats lists them")
        if len(rows) > 1:
            raise InvalidInputError(f'"{id_or_prefix}" starts more than one conversation id; give more of it')
        return Conversation(*rows[0])

    def latest_for_note(self, note_id: str) -> Conversation | None:
        found = self.recent(note_id=note_id, limit=1)
        return found[0] if found else None

    def search(self, text: str, *, limit: int = 50) -> list[Conversation]:
        """Conversations whose title, or what the person or the assistant wrote, contains ``text``
        (case-insensitive for ASCII letters).

        Tool calls and results are left out: they are JSON the person never wrote or read (the
        pre-loaded note alone would make every chat about a note match its words), and matching
        the stored JSON itself would find every chat for words like "text".
        """
        pattern = "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        where = (
            "WHERE c.title LIKE ?1 ESCAPE '\\' OR c.id IN (SELECT chat_id FROM chat_messages "
            "WHERE role IN ('user', 'assistant') AND json_extract(content, '$.text') LIKE ?1 ESCAPE '\\') "
            f"{_NEWEST_FIRST} LIMIT ?2"
        )
        with self.db.read() as conn:
            return [Conversation(*r) for r in self._select(conn, where, (pattern, limit))]

    def delete(self, conversation_id: str) -> None:
        with self.db.write() as conn:
            if not conn.execute("SELECT 1 FROM chats WHERE id = ?", (conversation_id,)).fetchone():
                raise NotFoundError(f'no conversation with id "{conversation_id}"')
            conn.execute("DELETE FROM chat_messages WHERE chat_id = ?", (conversation_id,))
            conn.execute("DELETE FROM chats WHERE id = ?", (conversation_id,))

    @staticmethod
    def _select(conn: apsw.Connection, tail: str, params: tuple[object, ...]) -> apsw.Cursor:
        return conn.execute(
            "SELECT c.id, c.note_id, c.title, c.created_time, c.updated_time, c.input_tokens, "
            "c.output_tokens, (SELECT count(*) FROM chat_messages m WHERE m.chat_id = c.id "
            f"AND m.role != '{NOTICE_ROLE}') FROM chats c " + tail,
            params,
        )

    # Messages ----------------------------------------------------------------------------
    def messages(self, conversation_id: str) -> list[Message]:
        """The conversation as the model is sent it: without the notices of replies that failed."""
        return [m for m in self.transcript(conversation_id) if not isinstance(m, Notice)]

    def transcript(self, conversation_id: str) -> list[Entry]:
        """The conversation as the person saw it, notices of failed replies included."""
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT role, content FROM chat_messages WHERE chat_id = ? ORDER BY seq", (conversation_id,)
            ).fetchall()
        return [_decode(role, content) for role, content in rows]

    def append(
        self,
        conversation_id: str,
        messages: Sequence[Entry],
        *,
        usage: tuple[int, int] = (0, 0),
        title: str | None = None,
    ) -> None:
        """Add messages (one step of the conversation) and usage, in one transaction."""
        now = now_ms()
        with self.db.write() as conn:
            row = conn.execute(
                "SELECT coalesce(max(seq), 0) FROM chat_messages WHERE chat_id = ?", (conversation_id,)
            ).fetchone()
            seq = int(row[0])
            for message in messages:
                seq += 1
                role, content = _encode(message)
                conn.execute(
                    "INSERT INTO chat_messages(chat_id, seq, role, content, time) VALUES (?, ?, ?, ?, ?)",
                    (conversation_id, seq, role, content, now),
                )
            conn.execute(
                "UPDATE chats SET updated_time = ?, input_tokens = input_tokens + ?, "
                "output_tokens = output_tokens + ?, title = coalesce(?, title) WHERE id = ?",
                (now, usage[0], usage[1], title, conversation_id),
            )

"""The saved conversations' tables (``chats``, ``chat_messages``) in a SQLite database.

Kept in the profile's database (or the Joplin sidecar), versioned in ``meta``. Implements
``noted.store.chats.ChatRows``; ``noted.chat.transcripts`` encodes and decodes the messages.
"""

from __future__ import annotations

from collections.abc import Sequence

import apsw

from noted.errors import InvalidInputError, NotFoundError
from noted.models import new_id, now_ms
from noted.store.chats import NOTICE_ROLE, Conversation
from noted.store.sqlite.db import Database, get_meta, set_meta
from noted.store.sqlite.lease import Lease

SCHEMA_KEY = "chat.schema"
SCHEMA_VERSION = 2
"""2 added ``chats.size_tokens``: the conversation's size as the provider counted its last request."""
RUN_LEASE = "chat.run."
"""The ``meta`` key of a conversation's run lease, before its id."""
_NEWEST_FIRST = "ORDER BY c.updated_time DESC, c.rowid DESC"
"""Two chats saved in the same millisecond still come out in a stable order, the later first."""


class SqliteChats:
    """The conversations of one profile, in ``db``."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._ensure()

    def _ensure(self) -> None:
        with self.db.read() as conn:  # a profile that cannot be written still lists its chats
            if self._current(conn):
                return
        with self.db.write() as conn:
            if self._current(conn):
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
            columns = {str(c[1]) for c in conn.execute("PRAGMA table_info(chats)")}
            if "size_tokens" not in columns:
                conn.execute("ALTER TABLE chats ADD COLUMN size_tokens INTEGER NOT NULL DEFAULT 0")
            set_meta(conn, SCHEMA_KEY, str(SCHEMA_VERSION))

    @staticmethod
    def _current(conn: apsw.Connection) -> bool:
        version = get_meta(conn, SCHEMA_KEY)
        return version is not None and version != "" and int(version) >= SCHEMA_VERSION

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
            set_meta(conn, f"{RUN_LEASE}{conversation_id}", None)

    @staticmethod
    def _select(conn: apsw.Connection, tail: str, params: tuple[object, ...]) -> apsw.Cursor:
        return conn.execute(
            "SELECT c.id, c.note_id, c.title, c.created_time, c.updated_time, c.input_tokens, "
            "c.output_tokens, (SELECT count(*) FROM chat_messages m WHERE m.chat_id = c.id "
            f"AND m.role != '{NOTICE_ROLE}'), c.size_tokens FROM chats c " + tail,
            params,
        )

    def run_lease(self, conversation_id: str, label: str) -> Lease:
        """The claim an answer in the conversation holds while it runs (``noted.store.chats.RunLease``)."""
        return Lease(self.db, f"{RUN_LEASE}{conversation_id}", label=label)

    # Messages ----------------------------------------------------------------------------
    def rows(self, conversation_id: str) -> list[tuple[str, str]]:
        """The conversation's ``(role, content)`` rows, in order."""
        with self.db.read() as conn:
            found = conn.execute(
                "SELECT role, content FROM chat_messages WHERE chat_id = ? ORDER BY seq", (conversation_id,)
            ).fetchall()
        return [(str(role), str(content)) for role, content in found]

    def append(
        self,
        conversation_id: str,
        rows: Sequence[tuple[str, str]],
        *,
        usage: tuple[int, int] = (0, 0),
        title: str | None = None,
        keep: int | None = None,
    ) -> None:
        """Add rows (one step of the conversation) and usage, in one transaction; with ``keep``,
        only the first ``keep`` rows stay before them."""
        now = now_ms()
        with self.db.write() as conn:
            if keep is not None:
                conn.execute(
                    "DELETE FROM chat_messages WHERE chat_id = ?1 AND seq NOT IN "
                    "(SELECT seq FROM chat_messages WHERE chat_id = ?1 ORDER BY seq LIMIT ?2)",
                    (conversation_id, keep),
                )
            row = conn.execute(
                "SELECT coalesce(max(seq), 0) FROM chat_messages WHERE chat_id = ?", (conversation_id,)
            ).fetchone()
            seq = int(row[0])
            for role, content in rows:
                seq += 1
                conn.execute(
                    "INSERT INTO chat_messages(chat_id, seq, role, content, time) VALUES (?, ?, ?, ?, ?)",
                    (conversation_id, seq, role, content, now),
                )
            conn.execute(
                "UPDATE chats SET updated_time = ?1, input_tokens = input_tokens + ?2, "
                "output_tokens = output_tokens + ?3, title = coalesce(?4, title), "
                "size_tokens = CASE WHEN ?2 + ?3 > 0 THEN ?2 + ?3 ELSE size_tokens END WHERE id = ?5",
                (now, usage[0], usage[1], title, conversation_id),
            )

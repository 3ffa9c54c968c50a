"""The change feed and revisions with provenance.

A revision is the state a note was left in by one save. When a save joins the last one instead
of adding a row (only within one editing session) is a rule shared with the Joplin store, in
``noted.store.revisions``.
"""

from __future__ import annotations

from collections.abc import Sequence

import apsw

from noted.errors import NotFoundError
from noted.models import Change, ChangePage, Note, Revision
from noted.store.revisions import BURST_MS, REVISION_COLUMNS, SessionBursts, pack_body, revision_of
from noted.store.sqlite.base import StoreBase
from noted.store.sqlite.feed import changes_after, changes_of


class HistoryOps(StoreBase):
    """Change feed and revision history of the SQLite store."""

    bursts: SessionBursts

    def save_revision(
        self, conn: apsw.Connection, note: Note, actor: str, now: int, session: str | None = None
    ) -> None:
        """Record ``note`` as left by ``actor``; a save of the same editing ``session`` within a
        burst updates the revision that session wrote last instead."""
        last = conn.execute(
            "SELECT id, actor, time FROM revisions WHERE note_id = ? ORDER BY id DESC LIMIT 1",
            (note.id,),
        ).fetchone()
        body = pack_body(note.body)
        # The window is looked up here, at call time, so a test can shorten it.
        if self.bursts.joins(note.id, session, last, actor, now, window=BURST_MS):
            conn.execute(
                "UPDATE revisions SET title = ?, body = ?, time = ?, edits = edits + 1 WHERE id = ?",
                (note.title, body, now, last[0]),
            )
            self.bursts.wrote(note.id, session, last[0], now)
            return
        conn.execute(
            "INSERT INTO revisions(note_id, time, first_time, actor, title, body) VALUES (?, ?, ?, ?, ?, ?)",
            (note.id, now, now, actor, note.title, body),
        )
        self.bursts.wrote(note.id, session, conn.last_insert_rowid(), now)

    def note_history(self, note_id: str) -> list[Revision]:
        """The revisions of a note, newest first."""
        with self.db.read() as conn:
            self.note_row(conn, note_id)
            rows = conn.execute(
                f"SELECT {REVISION_COLUMNS} FROM revisions WHERE note_id = ? ORDER BY id DESC", (note_id,)
            ).fetchall()
        return [revision_of(r) for r in rows]

    def get_revision(self, revision_id: int) -> Revision:
        with self.db.read() as conn:
            row = conn.execute(
                f"SELECT {REVISION_COLUMNS} FROM revisions WHERE id = ?", (revision_id,)
            ).fetchone()
        if row is None:
            raise NotFoundError(f"no revision {revision_id}")
        return revision_of(row)

    def changes_since(self, cursor: int, limit: int = 1000) -> ChangePage:
        """Changes with an id above ``cursor``, oldest first, at most ``limit`` of them."""
        with self.db.read() as conn:
            return changes_after(conn, "changes", cursor, limit)

    def latest_cursor(self) -> int:
        """The id of the newest change (0 when there is none)."""
        with self.db.read() as conn:
            row = conn.execute("SELECT max(id) FROM changes").fetchone()
        return int(row[0] or 0)

    def item_changes(self, item_ids: Sequence[str], *, limit: int = 200) -> list[Change]:
        """The changes to any of ``item_ids``, newest first, at most ``limit``."""
        with self.db.read() as conn:
            return changes_of(conn, "changes", item_ids, limit)

"""The change feed and revisions with provenance.

A revision is the state a note was left in by one actor. Saves by the same actor within
``BURST_MS`` of that actor's last revision of the note update it instead of adding a row (Joplin
collapses ten minutes the same way), but an edit by one actor is never folded into another's, so
"undo what the assistant did" always has a state to go back to.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import apsw

from noted.errors import NotFoundError
from noted.models import Change, ChangePage, Note, Revision
from noted.store.sqlite.base import StoreBase
from noted.store.sqlite.feed import changes_after, changes_of

BURST_MS = 10 * 60 * 1000
_REVISION_COLUMNS = "id, note_id, time, actor, title, body, edits"


def _revision(row: tuple[int, str, int, str, str, bytes, int]) -> Revision:
    id_, note_id, time, actor, title, body, edits = row
    return Revision(id_, note_id, time, actor, title, zlib.decompress(body).decode("utf-8"), edits)


class HistoryOps(StoreBase):
    """Change feed and revision history of the SQLite store."""

    def save_revision(self, conn: apsw.Connection, note: Note, actor: str, now: int) -> None:
        """Record ``note`` as left by ``actor``, collapsing a burst of that actor's saves."""
        last = conn.execute(
            "SELECT id, actor, time FROM revisions WHERE note_id = ? ORDER BY id DESC LIMIT 1",
            (note.id,),
        ).fetchone()
        body = zlib.compress(note.body.encode("utf-8"), 6)
        if last and last[1] == actor and now - last[2] < BURST_MS:
            conn.execute(
                "UPDATE revisions SET title = ?, body = ?, time = ?, edits = edits + 1 WHERE id = ?",
                (note.title, body, now, last[0]),
            )
            return
        conn.execute(
            "INSERT INTO revisions(note_id, time, first_time, actor, title, body) VALUES (?, ?, ?, ?, ?, ?)",
            (note.id, now, now, actor, note.title, body),
        )

    def note_history(self, note_id: str) -> list[Revision]:
        """The revisions of a note, newest first."""
        with self.db.read() as conn:
            self.note_row(conn, note_id)
            rows = conn.execute(
                f"SELECT {_REVISION_COLUMNS} FROM revisions WHERE note_id = ? ORDER BY id DESC", (note_id,)
            ).fetchall()
        return [_revision(r) for r in rows]

    def get_revision(self, revision_id: int) -> Revision:
        with self.db.read() as conn:
            row = conn.execute(
                f"SELECT {_REVISION_COLUMNS} FROM revisions WHERE id = ?", (revision_id,)
            ).fetchone()
        if row is None:
            raise NotFoundError(f"no revision {revision_id}")
        return _revision(row)

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

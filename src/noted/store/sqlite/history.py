"""The change feed and revisions with provenance.

A revision is the state a note was left in by one save. When a save joins the last one instead
of adding a row (only within one editing session) is a rule shared with the Joplin store, in
``noted.store.revisions``; how revisions are stored and thinned is ``noted.store.history``, whose
``RevisionTable`` this store runs on its ``revisions`` table.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence

import apsw

from noted.models import Change, ChangePage, HistoryPruned, Note, Revision, now_ms
from noted.store.history.table import RevisionTable
from noted.store.history.versions import VersionTable
from noted.store.revisions import SessionBursts
from noted.store.sqlite.base import note_row
from noted.store.sqlite.db import Database
from noted.store.sqlite.feed import changes_after, changes_of, first_not_by, notes_changed_after


class History:
    """The change feed (read; each write appends its own rows) and the revisions of the SQLite store."""

    def __init__(self, db: Database, revision_table: RevisionTable, versions: VersionTable) -> None:
        self.db = db
        self.revision_table = revision_table
        self.versions = versions
        self.bursts = SessionBursts()

    def save_revision(
        self, conn: apsw.Connection, note: Note, actor: str, now: int, session: str | None = None
    ) -> int:
        """Record ``note`` as left by ``actor``; a save of the same editing ``session`` within a
        burst updates the revision that session wrote last instead; the revision's id."""
        return self.revision_table.save(conn, note, actor, now, session=session, bursts=self.bursts)

    def note_history(self, note_id: str, *, bodies: bool = True) -> list[Revision]:
        """The revisions of a note, newest first (without ``bodies``: their bodies empty)."""
        with self.db.read() as conn:
            note_row(conn, note_id)
            return self.revision_table.history(conn, note_id, bodies=bodies)

    def kept_notes(self, prefix: str = "") -> dict[str, str]:
        with self.db.read() as conn:
            return self.revision_table.kept_notes(conn, prefix)

    def get_revision(self, revision_id: int) -> Revision:
        with self.db.read() as conn:
            return self.revision_table.get(conn, revision_id)

    def prune_history(self, *, now: int | None = None) -> HistoryPruned:
        """Thin every note's history by the rule, pack what it keeps, and reclaim the space (the
        keyword index, which keeps what updates replaced until it merges, is compacted too); the
        attachments' old versions are thinned by the same rule, their files removed."""
        now = now or now_ms()
        versions = self.versions.prune(now)
        pruned = self.revision_table.prune(self.db, now, tidy=_optimize_keyword_index)
        return dataclasses.replace(pruned, versions=versions)

    def changes_since(self, cursor: int, limit: int = 1000) -> ChangePage:
        """Changes with an id above ``cursor``, oldest first, at most ``limit`` of them."""
        with self.db.read() as conn:
            return changes_after(conn, "changes", cursor, limit)

    def notes_changed_since(self, cursor: int, limit: int) -> tuple[set[str], bool]:
        with self.db.read() as conn:
            return notes_changed_after(conn, "changes", cursor, limit)

    def first_change_not_by(self, cursor: int, actors: Collection[str]) -> int | None:
        with self.db.read() as conn:
            return first_not_by(conn, "changes", cursor, actors)

    def latest_cursor(self) -> int:
        """The id of the newest change (0 when there is none)."""
        with self.db.read() as conn:
            row = conn.execute("SELECT max(id) FROM changes").fetchone()
        return int(row[0] or 0)

    def item_changes(self, item_ids: Sequence[str], *, limit: int = 200) -> list[Change]:
        """The changes to any of ``item_ids``, newest first, at most ``limit``."""
        with self.db.read() as conn:
            return changes_of(conn, "changes", item_ids, limit)


def _optimize_keyword_index(conn: apsw.Connection) -> None:
    conn.execute("INSERT INTO notes_fts(notes_fts) VALUES ('optimize')")

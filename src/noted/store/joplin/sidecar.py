"""The Joplin backend's local sidecar: what Joplin does not keep, in a SQLite file in the profile.

The notes stay in Joplin. The sidecar (``joplin-sidecar.db``, a ``Database`` like the embedded
store's, so the indexer, the lease and the chats keep their own tables in it unchanged) holds,
keyed by Joplin ids:

- ``joplin_writes``: every write noted sends, with its actor and when it was sent and answered,
  so a change Joplin later reports can be told apart from an edit made in Joplin itself;
- ``joplin_feed``: noted's change feed, every change noted has seen (Joplin keeps only the newest
  of each note). noted's own writes append their exact change when Joplin answers (a tag link,
  an attachment, a note, with the actor, and a note's place after it: ``noted.store.joplin.places``); Joplin's ``/events`` (notes only) are mirrored beside
  them, each at most once, and an event that is the change of one of noted's writes is taken as
  that write's row instead of being added again, so what is left are the edits made in Joplin
  (``joplin``: on this machine, the person's) or brought by its sync (``sync``: the event's ``source``);
- ``joplin_revisions``: the states of a note as left by each actor (Joplin keeps revisions
  without an author), collapsed per burst as in the embedded store;
- ``joplin_trash``: when noted moved a notebook to the trash, so restoring it brings back what
  went with it;
- ``joplin_resource_versions``: each attachment as it was before noted replaced or deleted it,
  its bytes in ``joplin-resource-versions/`` beside the sidecar (``noted.store.history.versions``).

Tables are created on first use and migrated by ``noted.store.joplin.sidecar_schema``.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path

import apsw

from noted.errors import ProfileError
from noted.models import (
    ACTOR_JOPLIN,
    Change,
    ChangePage,
    ChangeType,
    HistoryPruned,
    ItemState,
    ItemType,
    Note,
    Place,
    Revision,
    now_ms,
)
from noted.store.history.table import RevisionTable
from noted.store.history.thinning import Thinning
from noted.store.history.versions import VersionTable, pending_lists
from noted.store.joplin.event_items import JoplinEvent
from noted.store.joplin.lengths import BodyLengths
from noted.store.joplin.sidecar_schema import ensure_schema
from noted.store.revisions import SessionBursts
from noted.store.sqlite.db import Database, get_meta, set_meta
from noted.store.sqlite.feed import (
    changes_after,
    changes_of,
    first_not_by,
    kept_json,
    notes_changed_after,
    place_from,
)
from noted.store.sqlite.pending import PendingFiles, sweep

SIDECAR_NAME = "joplin-sidecar.db"
VERSIONS_FOLDER = "joplin-resource-versions"
"""Where the files of the attachments' old versions are kept, beside the sidecar."""
CURSOR_KEY = "joplin.events.cursor"
"""The id of the newest Joplin change mirrored into ``joplin_feed``."""

MATCH_SLACK_MS = 1_000
"""How long after noted's write was answered Joplin's change may be recorded and still be it
(Joplin records it just after answering). An edit made in Joplin itself that soon after one of
noted's is taken for noted's."""
UNKNOWN_WINDOW_MS = 60_000
"""How long after sending an unanswered write a change may still be that write."""


class Sidecar:
    """The sidecar database of one profile."""

    def __init__(self, db: Database, thinning: Thinning | None = None) -> None:
        self.db = db
        self.bursts = SessionBursts()
        self.revisions = RevisionTable("joplin_revisions", thinning)
        kept = db.path.parent / VERSIONS_FOLDER
        pending = PendingFiles(kept, pending_lists(kept))
        self.versions = VersionTable(db, "joplin_resource_versions", pending, thinning, feed="joplin_feed")
        self._ensure()
        self.lengths = BodyLengths(db)
        """The body lengths of the notes read (``noted.store.joplin.lengths``)."""
        sweep(kept, pending_lists(kept), self.versions.orphan_file)

    @classmethod
    def open(cls, path: Path, thinning: Thinning | None = None) -> Sidecar:
        path.parent.mkdir(parents=True, exist_ok=True)
        return cls(Database(path), thinning)

    def close(self) -> None:
        with contextlib.suppress(ProfileError, OSError):  # a closed or failing database: swept next time
            self.versions.pending.close(self.versions.orphan_file)
        self.db.close()

    @contextlib.contextmanager
    def _write(self) -> Iterator[apsw.Connection]:
        """A write transaction, or a savepoint when this thread is already inside one.

        The indexer keeps its tables in this same database and asks for the store's cursor from
        inside its own write transaction; a nested ``Database.write()`` would refuse that.
        """
        conn = self.db.connection()
        if not conn.get_autocommit():
            with conn:  # apsw: a savepoint of the caller's transaction
                yield conn
            return
        with self.db.write() as tx:
            yield tx

    def _ensure(self) -> None:
        with self._write() as conn:
            ensure_schema(conn)

    # Writes in flight ----------------------------------------------------------------------
    def begin_write(self, item_id: str, actor: str, item_type: ItemType = ItemType.NOTE) -> int:
        """Record that ``actor`` is about to change ``item_id``; returns the record's id."""
        if not actor:
            raise ValueError("every write needs an actor")
        with self._write() as conn:
            conn.execute(
                "INSERT INTO joplin_writes(item_id, item_type, actor, started) VALUES (?, ?, ?, ?)",
                (item_id, item_type.value, actor, now_ms()),
            )
            return int(conn.last_insert_rowid())

    def end_write(
        self,
        write_id: int,
        *,
        joplin_time: int | None = None,
        change: ChangeType | None = None,
        state: ItemState | Place | None = None,
    ) -> None:
        """The write was answered (``joplin_time``: the item's ``updated_time`` Joplin gave it).

        ``change``: the change it made, appended to the feed now unless Joplin's own report of it
        was mirrored already (a pull from another thread, while the answer was on its way), with
        ``state`` (a note's place, or a notebook's, tag's or attachment's state, after it, for the
        review), which a row mirrored already is given.
        """
        now = now_ms()
        with self._write() as conn:
            rows = conn.execute(
                "UPDATE joplin_writes SET finished = ?, joplin_time = ? WHERE id = ? "
                "RETURNING item_type, item_id, actor, feed_id",
                (now, joplin_time, write_id),
            ).fetchall()
            if change is None or not rows:
                return
            row = rows[0]
            if row[3] is not None:
                if state is not None:
                    conn.execute(
                        "UPDATE joplin_feed SET place = ? WHERE id = ? AND place IS NULL",
                        (kept_json(state), row[3]),
                    )
                return
            feed_id = _append(conn, ItemType(row[0]), str(row[1]), change, now, str(row[2]), state=state)
            conn.execute("UPDATE joplin_writes SET feed_id = ? WHERE id = ?", (feed_id, write_id))

    def drop_write(self, write_id: int) -> None:
        """The write was never sent (Joplin could not be reached): forget it."""
        with self._write() as conn:
            conn.execute("DELETE FROM joplin_writes WHERE id = ?", (write_id,))

    @staticmethod
    def _claim(conn: apsw.Connection, event: JoplinEvent) -> tuple[int, str, int | None] | None:
        """The note write of noted's whose change ``event`` is (id, actor, feed row), taken for it.

        Of the writes not yet taken whose time fits, the one answered closest to the change. A
        write causes one change, and Joplin reports a note's changes in order (dropping older
        ones), so the writes before it are taken too: a later change that fits is an edit made in
        Joplin just after, not noted's.
        """
        row = conn.execute(
            """
            SELECT id, actor, feed_id, started FROM joplin_writes
            WHERE item_id = ?1 AND item_type = ?5 AND joplin_id IS NULL
              AND ((?2 BETWEEN started AND coalesce(finished, started + ?4) + ?3)
                   OR (joplin_time IS NOT NULL AND abs(joplin_time - ?2) <= ?3))
            ORDER BY abs(coalesce(joplin_time, finished, started) - ?2), started DESC LIMIT 1
            """,
            (event.item_id, event.time, MATCH_SLACK_MS, UNKNOWN_WINDOW_MS, ItemType.NOTE.value),
        ).fetchone()
        if row is None:
            return None
        conn.execute(
            "UPDATE joplin_writes SET joplin_id = ? "
            "WHERE item_id = ? AND item_type = ? AND joplin_id IS NULL AND started <= ?",
            (event.id, event.item_id, ItemType.NOTE.value, row[3]),
        )
        return int(row[0]), str(row[1]), None if row[2] is None else int(row[2])

    # The feed ------------------------------------------------------------------------------
    def joplin_cursor(self) -> int | None:
        """The newest Joplin change mirrored so far (None before the first pull)."""
        with self.db.read() as conn:
            cursor = get_meta(conn, CURSOR_KEY)
        return None if cursor is None else int(cursor)

    def mirror(self, events: Sequence[JoplinEvent], joplin_cursor: int) -> None:
        """Append Joplin's events, each once (even if two processes mirror at once), but noted's own."""
        with self._write() as conn:
            stored = int(get_meta(conn, CURSOR_KEY) or 0)
            for event in events:
                if event.id <= stored:
                    continue
                claimed = self._claim(conn, event)
                if claimed is not None and claimed[2] is not None:
                    continue  # noted appended this change when Joplin answered
                actor = event.actor if claimed is None else claimed[1]
                feed_id = _append(
                    conn, ItemType.NOTE, event.item_id, event.change_type, event.time, actor, event.id
                )
                if claimed is not None:
                    conn.execute("UPDATE joplin_writes SET feed_id = ? WHERE id = ?", (feed_id, claimed[0]))
            if joplin_cursor > stored:
                set_meta(conn, CURSOR_KEY, str(joplin_cursor))

    def restart(self, present: Collection[str], joplin_cursor: int) -> None:
        """Joplin's change log started again at ``joplin_cursor``: every note of ``present`` (all
        Joplin has) is changed, every other note the feed knows is deleted, as Joplin's changes."""
        now = now_ms()
        note = ItemType.NOTE.value
        with self._write() as conn:
            known = conn.execute(
                "SELECT f.item_id FROM joplin_feed f JOIN (SELECT max(id) AS last FROM joplin_feed "
                "WHERE item_type = ? GROUP BY item_id) newest ON f.id = newest.last WHERE f.change_type != ?",
                (note, ChangeType.DELETE.value),
            ).fetchall()
            for (note_id,) in known:
                if note_id not in present:
                    _append(conn, ItemType.NOTE, note_id, ChangeType.DELETE, now, ACTOR_JOPLIN)
            for note_id in sorted(present):
                _append(conn, ItemType.NOTE, note_id, ChangeType.UPDATE, now, ACTOR_JOPLIN)
            # Joplin's new changes take those ids again: each must still find its own row free.
            conn.execute("UPDATE joplin_feed SET joplin_id = NULL WHERE joplin_id > ?", (joplin_cursor,))
            set_meta(conn, CURSOR_KEY, str(joplin_cursor))

    def record(
        self,
        item_type: ItemType,
        item_ids: Iterable[str],
        change_type: ChangeType,
        actor: str,
        states: Mapping[str, ItemState | Place] | None = None,
    ) -> None:
        """Append a change Joplin does not report (noted's to notebooks, tags and attachments; one
        to a note's place), each with its state or place after it where ``states`` has one."""
        now = now_ms()
        with self._write() as conn:
            for item_id in item_ids:
                _append(conn, item_type, item_id, change_type, now, actor, state=(states or {}).get(item_id))

    def kept_place(self, note_id: str) -> tuple[bool, Place | None]:
        """Whether the feed has a row of noted's own about the note, and the place it kept last
        (None also when a later row of noted's kept none: a notebook's trash took the note along)."""
        with self.db.read() as conn:
            row = conn.execute(
                "SELECT place FROM joplin_feed WHERE item_id = ? AND item_type IN (?, ?) "
                "AND (place IS NOT NULL OR joplin_id IS NULL) ORDER BY id DESC LIMIT 1",
                (note_id, ItemType.NOTE.value, ItemType.NOTE_TAG.value),
            ).fetchone()
        return row is not None, None if row is None or row[0] is None else place_from(str(row[0]))

    def changes_since(self, cursor: int, limit: int) -> ChangePage:
        with self.db.read() as conn:
            return changes_after(conn, "joplin_feed", cursor, limit)

    def notes_changed_since(self, cursor: int, limit: int) -> tuple[set[str], bool]:
        with self.db.read() as conn:
            return notes_changed_after(conn, "joplin_feed", cursor, limit)

    def first_change_not_by(self, cursor: int, actors: Collection[str]) -> int | None:
        with self.db.read() as conn:
            return first_not_by(conn, "joplin_feed", cursor, actors)

    def item_changes(self, item_ids: Sequence[str], limit: int) -> list[Change]:
        """The changes to any of ``item_ids`` the sidecar has seen, newest first, at most ``limit``."""
        with self.db.read() as conn:
            return changes_of(conn, "joplin_feed", item_ids, limit)

    def recent_notes(self, since: int) -> dict[str, tuple[int, int]]:
        """Notes changed (or re-tagged) at ``since`` or later, in the feed or by noted's writes.

        Returns id → (its newest feed row, its newest write record): a version that changes
        whenever the note may have. noted's writes count before Joplin reports them, since Joplin
        records a change just after answering.
        """
        kinds = (ItemType.NOTE.value, ItemType.NOTE_TAG.value)
        with self.db.read() as conn:
            fed = conn.execute(
                "SELECT item_id, max(id) FROM joplin_feed WHERE item_type IN (?, ?) AND time >= ? "
                "GROUP BY item_id",
                (*kinds, since),
            ).fetchall()
            written = conn.execute(
                "SELECT item_id, max(id) FROM joplin_writes WHERE item_type IN (?, ?) AND started >= ? "
                "GROUP BY item_id",
                (*kinds, since),
            ).fetchall()
        versions: dict[str, tuple[int, int]] = {str(item): (int(last), 0) for item, last in fed}
        for item, last in written:
            versions[str(item)] = (versions.get(str(item), (0, 0))[0], int(last))
        return versions

    def latest_cursor(self) -> int:
        with self.db.read() as conn:
            row = conn.execute("SELECT max(id) FROM joplin_feed").fetchone()
        return int(row[0] or 0)

    # Revisions (stored and thinned as in the embedded store: noted.store.history) ----------
    def last_revision(self, note_id: str) -> Revision | None:
        with self.db.read() as conn:
            return self.revisions.newest(conn, note_id)

    def save_revision(
        self, note: Note, actor: str, time: int | None = None, *, session: str | None = None
    ) -> None:
        """Record ``note`` as left by ``actor``; a save of the same editing ``session`` within a
        burst updates the revision that session wrote last instead (see ``noted.store.revisions``)."""
        with self._write() as conn:
            self.revisions.save(conn, note, actor, time or now_ms(), session=session, bursts=self.bursts)

    def note_history(self, note_id: str, *, bodies: bool = True) -> list[Revision]:
        with self.db.read() as conn:
            return self.revisions.history(conn, note_id, bodies=bodies)

    def kept_notes(self, prefix: str = "") -> dict[str, str]:
        with self.db.read() as conn:
            return self.revisions.kept_notes(conn, prefix)

    def get_revision(self, revision_id: int) -> Revision:
        with self.db.read() as conn:
            return self.revisions.get(conn, revision_id)

    def prune_history(self, now: int) -> HistoryPruned:
        """Thin the attachments' old versions, thin and pack every note's revisions, then
        reclaim the space."""
        versions = self.versions.prune(now)
        return dataclasses.replace(self.revisions.prune(self.db, now), versions=versions)

    def forget_notes(self, note_ids: Iterable[str]) -> None:
        """Drop the revisions of notes erased for good."""
        with self._write() as conn:
            for note_id in note_ids:
                self.revisions.forget(conn, note_id)

    # Trash ---------------------------------------------------------------------------------
    def trashed_at(self, folder_id: str, started: int | None) -> None:
        """Remember when noted began trashing ``folder_id`` (None: forget it, it was restored)."""
        with self._write() as conn:
            if started is None:
                conn.execute("DELETE FROM joplin_trash WHERE folder_id = ?", (folder_id,))
            else:
                conn.execute(
                    "INSERT INTO joplin_trash(folder_id, started) VALUES (?, ?) "
                    "ON CONFLICT(folder_id) DO UPDATE SET started = excluded.started",
                    (folder_id, started),
                )

    def trash_started(self, folder_id: str) -> int | None:
        with self.db.read() as conn:
            row = conn.execute(
                "SELECT started FROM joplin_trash WHERE folder_id = ?", (folder_id,)
            ).fetchone()
        return None if row is None else int(row[0])


def _append(
    conn: apsw.Connection,
    item_type: ItemType,
    item_id: str,
    change_type: ChangeType,
    time: int,
    actor: str,
    joplin_id: int | None = None,
    state: ItemState | Place | None = None,
) -> int:
    """Append one row to the feed (``state``: a note's place, or a notebook's, tag's or
    attachment's state, after the change); returns its id (noted's cursor)."""
    conn.execute(
        "INSERT INTO joplin_feed(joplin_id, item_type, item_id, change_type, time, actor, place) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (joplin_id, item_type.value, item_id, change_type.value, time, actor, state and kept_json(state)),
    )
    return int(conn.last_insert_rowid())

"""The revisions of notes in one SQLite table: saving, reading, thinning and packing them.

The embedded store's ``revisions`` and the Joplin sidecar's ``joplin_revisions`` have the same
columns, and both stores keep them through a ``RevisionTable``. A row's ``body`` is whole when
``base`` is NULL; otherwise it is a delta (``delta.py``) against the row ``base`` names, which is
always the revision of the same note just before it. ``depth`` counts the deltas between a row
and the whole row it is rebuilt from (never fewer than there are): a save stores a whole row when
the delta would reach ``MAX_CHAIN`` or save little, so any revision is rebuilt in at most that
many steps, and a new row is small (a rewrite would leave pages half empty). Every change here
runs inside the caller's write transaction: a crash keeps either the old rows or the new ones,
never a delta whose base is gone.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import apsw

from noted.errors import NotFoundError
from noted.models import HistoryPruned, Note, Revision
from noted.store import revisions
from noted.store.history.delta import pack_delta, pack_whole, unpack_delta, unpack_whole
from noted.store.history.thinning import DAY_MS, Row, Thinning, dropped

if TYPE_CHECKING:
    from noted.store.sqlite.db import Database

MAX_CHAIN = 100
"""The most deltas between a revision and the whole row it is rebuilt from."""
CHAIN_BYTES = 32 << 20
"""Rebuilding copies the text once per delta: a long note gets a shorter chain, so that rebuilding
any of its revisions copies at most about this much (a 1 MB note: 32 steps)."""
_THIN_EVERY_MS = 60 * 60 * 1000
"""How often (per note and process) a save looks for old revisions to thin."""
_STORED = "id, time, actor, base, depth, body"


@dataclass(frozen=True, slots=True)
class _Stored:
    id: int
    time: int
    actor: str
    base: int | None
    depth: int
    blob: bytes


@dataclass(frozen=True, slots=True)
class _Before:
    """The revision a new state is stored against: its id, depth and text."""

    id: int
    depth: int
    text: bytes


def _encoded(text: bytes, before: _Before | None) -> tuple[bytes, int | None, int]:
    """``text`` as a row stores it (body, base, depth): a delta against ``before`` when the chain
    allows one and it is smaller than the whole text compressed."""
    if before is not None and before.depth + 1 < min(MAX_CHAIN, CHAIN_BYTES // max(len(text), 1)):
        delta = pack_delta(before.text, text)
        if len(delta) * 8 <= len(text):  # clearly smaller: spare compressing the whole
            return delta, before.id, before.depth + 1
        whole = pack_whole(text)
        return (delta, before.id, before.depth + 1) if len(delta) < len(whole) else (whole, None, 0)
    return pack_whole(text), None, 0


class RevisionTable:
    """One table of revisions, as one store keeps it."""

    def __init__(self, name: str, rule: Thinning | None = None) -> None:
        self.name = name
        self.rule = rule or Thinning()
        self._thinned: dict[str, int] = {}
        self._lock = threading.Lock()

    # Saving ------------------------------------------------------------------------------
    def save(
        self,
        conn: apsw.Connection,
        note: Note,
        actor: str,
        now: int,
        *,
        session: str | None,
        bursts: revisions.SessionBursts,
    ) -> int:
        """Record ``note`` as left by ``actor``; a save of the same editing ``session`` within a
        burst updates the revision that session wrote last instead (``noted.store.revisions``).
        The id of the revision written or updated."""
        row = conn.execute(
            f"SELECT {_STORED} FROM {self.name} WHERE note_id = ? ORDER BY id DESC LIMIT 1", (note.id,)
        ).fetchone()
        newest = None if row is None else _Stored(*row)
        data = note.body.encode("utf-8")
        last = None if newest is None else (newest.id, newest.actor, newest.time)
        # BURST_MS is looked up at call time, so a test can shorten it.
        if newest is not None and bursts.joins(note.id, session, last, actor, now, window=revisions.BURST_MS):
            joined = max(now, newest.time)
            before = None if newest.base is None else self._before(conn, newest.base, newest.depth - 1)
            blob, base, depth = _encoded(data, before)
            conn.execute(
                f"UPDATE {self.name} SET title = ?, body = ?, base = ?, depth = ?, time = ?, edits = edits + 1 "
                "WHERE id = ?",
                (note.title, blob, base, depth, joined, newest.id),
            )
            bursts.wrote(note.id, session, newest.id, joined)
            return newest.id
        blob, base, depth = _encoded(
            data, None if newest is None else self._before(conn, newest.id, newest.depth)
        )
        conn.execute(
            f"INSERT INTO {self.name}(note_id, time, first_time, actor, title, body, base, depth, label) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (note.id, now, now, actor, note.title, blob, base, depth, revisions.current_label()),
        )
        made = int(conn.last_insert_rowid())
        bursts.wrote(note.id, session, made, now)
        self._thin_now_and_then(conn, note.id, now)
        return made

    def _before(self, conn: apsw.Connection, revision_id: int, depth: int) -> _Before:
        return _Before(revision_id, depth, self._content(conn, revision_id))

    # Reading -----------------------------------------------------------------------------
    _COLUMNS = "id, note_id, time, actor, title, edits, base, body, label"

    def history(self, conn: apsw.Connection, note_id: str, *, bodies: bool = True) -> list[Revision]:
        """The revisions of a note, newest first, each rebuilt from the one before it; without
        ``bodies``, none is rebuilt (``body`` is empty: a listing of a long history costs its rows)."""
        if not bodies:
            return [
                Revision(id_, note, time, actor, title, "", edits, label)
                for id_, note, time, actor, title, edits, label in conn.execute(
                    f"SELECT id, note_id, time, actor, title, edits, label FROM {self.name}"
                    " WHERE note_id = ? ORDER BY id DESC",
                    (note_id,),
                )
            ]
        rows = conn.execute(
            f"SELECT {self._COLUMNS} FROM {self.name} WHERE note_id = ? ORDER BY id", (note_id,)
        ).fetchall()
        stored = [_Stored(r[0], r[2], r[3], r[6], 0, r[7]) for r in rows]
        return [
            Revision(id_, note, time, actor, title, data.decode("utf-8"), edits, label)
            for (id_, note, time, actor, title, edits, _b, _d, label), data in zip(
                reversed(rows), reversed(list(self._texts(conn, stored))), strict=True
            )
        ]

    def get(self, conn: apsw.Connection, revision_id: int) -> Revision:
        """One revision. Raises ``NotFoundError`` when there is none (or it was thinned)."""
        row = conn.execute(f"SELECT {self._COLUMNS} FROM {self.name} WHERE id = ?", (revision_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"no revision {revision_id}")
        id_, note, time, actor, title, edits, _base, _blob, label = row
        return Revision(id_, note, time, actor, title, self._content(conn, id_).decode("utf-8"), edits, label)

    def newest(self, conn: apsw.Connection, note_id: str) -> Revision | None:
        row = conn.execute(
            f"SELECT id FROM {self.name} WHERE note_id = ? ORDER BY id DESC LIMIT 1", (note_id,)
        ).fetchone()
        return None if row is None else self.get(conn, row[0])

    def kept_notes(self, conn: apsw.Connection, prefix: str = "") -> dict[str, str]:
        """The notes with revisions here whose ids start with ``prefix``, each with the title of
        its newest revision (read through the ``(note_id, id)`` index)."""
        return dict(
            conn.execute(
                f"SELECT note_id, title FROM {self.name} WHERE id IN (SELECT max(id) FROM {self.name}"
                " WHERE note_id >= ? AND note_id < ? GROUP BY note_id)",
                (prefix, prefix + "\uffff"),
            ).fetchall()
        )

    def _content(self, conn: apsw.Connection, revision_id: int) -> bytes:
        """The body of one revision, rebuilt along its chain of deltas."""
        chain = conn.execute(
            f"""WITH RECURSIVE chain(id, base, body, step) AS (
                    SELECT id, base, body, 0 FROM {self.name} WHERE id = ?
                    UNION ALL
                    SELECT r.id, r.base, r.body, chain.step + 1
                    FROM {self.name} AS r JOIN chain ON r.id = chain.base
                )
                SELECT base, body FROM chain ORDER BY step DESC""",
            (revision_id,),
        ).fetchall()
        if not chain or chain[0][0] is not None:
            raise NotFoundError(
                f"revision {revision_id} cannot be rebuilt: the revision it is based on is gone"
            )
        data = unpack_whole(chain[0][1])
        for _base, blob in chain[1:]:
            data = unpack_delta(data, blob)
        return data

    # Thinning ----------------------------------------------------------------------------
    def _thin_now_and_then(self, conn: apsw.Connection, note_id: str, now: int) -> None:
        """Thin the note's old revisions, at most once an hour per note in this process."""
        with self._lock:
            if now - self._thinned.get(note_id, -_THIN_EVERY_MS) < _THIN_EVERY_MS:
                return
            self._thinned[note_id] = now
        self.thin(conn, note_id, now)

    def thin(self, conn: apsw.Connection, note_id: str, now: int) -> int:
        """Drop the note's revisions that the rule thins at ``now``; returns how many went."""
        cutoff = now - self.rule.keep_all_days * DAY_MS
        old = conn.execute(
            f"SELECT count(*) FROM {self.name} WHERE note_id = ? AND time < ?", (note_id, cutoff)
        ).fetchone()[0]
        if old < 2:
            return 0
        rows = [
            _Stored(*r)
            for r in conn.execute(
                f"SELECT id, time, actor, base, depth, x'' FROM {self.name} WHERE note_id = ? ORDER BY id",
                (note_id,),
            )
        ]
        drop = dropped([Row(r.id, r.time, r.actor) for r in rows], now, self.rule)
        if drop:
            self._drop(conn, rows, drop)
        return len(drop)

    def _drop(self, conn: apsw.Connection, rows: Sequence[_Stored], drop: set[int]) -> None:
        """Delete ``drop``, first basing the revision after each run of them on the one before."""
        rebased: list[tuple[bytes, int | None, int, int]] = []
        for i, row in enumerate(rows):
            if row.id in drop or row.base is None or row.base not in drop:
                continue
            j = i - 1
            while j >= 0 and rows[j].id in drop:
                j -= 1
            text = self._content(conn, row.id)
            before = rows[j] if j >= 0 else None
            # Based on the row before the run, its chain is no longer than it was, unless a whole
            # row was among those dropped: then it is stored whole, so no later chain grows.
            if before is None or before.depth + 1 > row.depth:
                rebased.append((pack_whole(text), None, 0, row.id))
            else:
                blob, base, depth = _encoded(text, self._before(conn, before.id, before.depth))
                rebased.append((blob, base, depth, row.id))
        conn.executemany(f"UPDATE {self.name} SET body = ?, base = ?, depth = ? WHERE id = ?", rebased)
        conn.executemany(f"DELETE FROM {self.name} WHERE id = ?", [(i,) for i in sorted(drop)])

    def pack(self, conn: apsw.Connection, note_id: str, now: int) -> int:
        """Thin a note's history and store every revision it keeps in its smallest form (whole
        rows written before deltas existed become deltas); returns how many revisions went."""
        rows = [
            _Stored(*r)
            for r in conn.execute(
                f"SELECT {_STORED} FROM {self.name} WHERE note_id = ? ORDER BY id", (note_id,)
            )
        ]
        drop = dropped([Row(r.id, r.time, r.actor) for r in rows], now, self.rule)
        updates: list[tuple[bytes, int | None, int, int]] = []
        before: _Before | None = None
        for row, text in zip(rows, self._texts(conn, rows), strict=True):
            if row.id in drop:
                continue
            blob, base, depth = _encoded(text, before)
            if (blob, base, depth) != (row.blob, row.base, row.depth):
                updates.append((blob, base, depth, row.id))
            before = _Before(row.id, depth, text)
        conn.executemany(f"UPDATE {self.name} SET body = ?, base = ?, depth = ? WHERE id = ?", updates)
        conn.executemany(f"DELETE FROM {self.name} WHERE id = ?", [(i,) for i in sorted(drop)])
        return len(drop)

    def _texts(self, conn: apsw.Connection, rows: Sequence[_Stored]) -> Iterator[bytes]:
        """The bodies of ``rows`` (one note's, oldest first), each rebuilt from the one before it
        (one at a time: a long history of a large note is many copies of it)."""
        text = b""
        for i, row in enumerate(rows):
            if row.base is None:
                text = unpack_whole(row.blob)
            elif i and rows[i - 1].id == row.base:
                text = unpack_delta(text, row.blob)
            else:
                text = self._content(conn, row.id)
            yield text

    def prune(
        self, db: Database, now: int, *, tidy: Callable[[apsw.Connection], object] | None = None
    ) -> HistoryPruned:
        """Thin and pack every note's history in ``db`` (a transaction per note, so another
        writer waits for one note at most), run ``tidy`` (another table's compaction) in a
        transaction of its own, then give the free space back (``VACUUM``)."""
        before = db.size()
        with db.read() as conn:
            note_ids = [str(r[0]) for r in conn.execute(f"SELECT DISTINCT note_id FROM {self.name}")]
        removed = 0
        for note_id in note_ids:
            with db.write() as conn:
                removed += self.pack(conn, note_id, now)
        if tidy is not None:
            with db.write() as conn:
                tidy(conn)
        db.vacuum()
        return HistoryPruned(len(note_ids), removed, before, db.size())

    def forget(self, conn: apsw.Connection, note_id: str) -> None:
        """Drop every revision of a note erased for good."""
        conn.execute(f"DELETE FROM {self.name} WHERE note_id = ?", (note_id,))

"""The review's tables (``review_entries``, ``review_places``, ``proposals``) in a SQLite database.

Kept in the profile's local database (the embedded store's own, Joplin's sidecar, the Markdown
folder's mirror), versioned in ``meta`` as the chats are. Implements ``noted.store.review.ReviewRows``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import apsw

from noted.errors import NotFoundError
from noted.store.processes import gone, this_process
from noted.store.review import (
    WAITING,
    Detail,
    EntryRow,
    EntryState,
    Merge,
    Place,
    ProposalRow,
    ProposalState,
    Touch,
    Word,
)
from noted.store.sqlite.db import Database, get_meta, set_meta
from noted.store.sqlite.review_sql import CARRIER, FOLDED, where

SCHEMA_KEY = "review.schema"
SCHEMA_VERSION = 2
CURSOR_KEY = "review.cursor"
_SEP = "\x1f"
_ENTRY = "id, note_id, title, folder_id, actor, first_time, last_time, state, detail, reviewed_time"
_ENTRY_E = ", ".join(f"e.{column}" for column in _ENTRY.split(", "))
_PROPOSAL = (
    "id, client, tool, note_id, title, base_updated_time, time, state, detail, reason, decided_time, "
    "result_note_id, claimant"
)


def _entry(row: Any) -> EntryRow:
    id_, note, title, folder, actor, first, last, state, detail, reviewed = row
    return EntryRow(
        id_, note, title, folder, actor, first, last, EntryState(state), json.loads(detail), reviewed
    )


def _proposal(row: Any) -> ProposalRow:
    id_, client, tool, note, title, base, time, state, detail, reason, decided, result, claimant = row
    return ProposalRow(
        id_,
        client,
        tool,
        note,
        title,
        base,
        time,
        ProposalState(state),
        json.loads(detail),
        reason,
        decided,
        result,
        claimant,
    )


def _dump(detail: Detail) -> str:
    return json.dumps(detail, ensure_ascii=False, sort_keys=True)


class SqliteReview:
    """The review entries and proposals of one profile, in ``db``."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._ensure()

    def _ensure(self) -> None:
        with self.db.read() as conn:
            version = get_meta(conn, SCHEMA_KEY)
        if version and int(version) >= SCHEMA_VERSION:
            return
        with self.db.write() as conn:
            conn.execute(
                """
                CREATE TABLE IF NOT EXISTS review_entries (
                    id INTEGER PRIMARY KEY,
                    note_id TEXT NOT NULL,
                    title TEXT NOT NULL,
                    folder_id TEXT NOT NULL DEFAULT '',
                    actor TEXT NOT NULL,
                    first_time INTEGER NOT NULL,
                    last_time INTEGER NOT NULL,
                    state TEXT NOT NULL DEFAULT 'pending',
                    open INTEGER NOT NULL DEFAULT 1,
                    detail TEXT NOT NULL DEFAULT '{}',
                    reviewed_time INTEGER NOT NULL DEFAULT 0
                );
                CREATE INDEX IF NOT EXISTS review_entries_state ON review_entries(state, last_time);
                CREATE INDEX IF NOT EXISTS review_entries_note ON review_entries(note_id, open);
                CREATE TABLE IF NOT EXISTS review_places (
                    note_id TEXT PRIMARY KEY,
                    parent_id TEXT NOT NULL,
                    deleted_time INTEGER NOT NULL,
                    tags TEXT NOT NULL
                ) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS proposals (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    client TEXT NOT NULL,
                    tool TEXT NOT NULL,
                    note_id TEXT NOT NULL,
                    title TEXT NOT NULL,
                    base_updated_time INTEGER NOT NULL,
                    time INTEGER NOT NULL,
                    state TEXT NOT NULL DEFAULT 'pending',
                    detail TEXT NOT NULL,
                    reason TEXT NOT NULL DEFAULT '',
                    decided_time INTEGER NOT NULL DEFAULT 0,
                    result_note_id TEXT NOT NULL DEFAULT '',
                    claimant TEXT NOT NULL DEFAULT ''
                );
                CREATE INDEX IF NOT EXISTS proposals_state ON proposals(state, id);
                """
            )
            columns = {str(r[1]) for r in conn.execute("PRAGMA table_info(proposals)")}
            if "claimant" not in columns:  # schema 1: who claimed a proposal was not kept
                conn.execute("ALTER TABLE proposals ADD COLUMN claimant TEXT NOT NULL DEFAULT ''")
            set_meta(conn, SCHEMA_KEY, str(SCHEMA_VERSION))

    # Following the feed -----------------------------------------------------------------
    def cursor(self) -> int:
        with self.db.read() as conn:
            return _cursor(conn)

    def places(self, note_ids: Sequence[str]) -> dict[str, Place]:
        ids = list(dict.fromkeys(note_ids))
        found: dict[str, Place] = {}
        with self.db.read() as conn:
            for start in range(0, len(ids), 500):
                part = ids[start : start + 500]
                marks = ",".join("?" * len(part))
                rows = conn.execute(
                    f"SELECT note_id, parent_id, deleted_time, tags FROM review_places WHERE note_id IN ({marks})",
                    part,
                )
                for note, parent, deleted, tags in rows:
                    found[note] = Place(parent, deleted, tuple(t for t in tags.split(_SEP) if t))
        return found

    def apply(
        self,
        cursor_from: int,
        cursor_to: int,
        touches: Sequence[Touch],
        places: Mapping[str, Place],
        *,
        merge: Merge,
        burst_ms: int,
        renames: Sequence[tuple[str, str]] = (),
    ) -> list[int] | None:
        touched: list[int] = []
        with self.db.write() as conn:
            if _cursor(conn) != cursor_from:
                return None
            for touch in touches:
                if touch.person:
                    conn.execute(
                        "UPDATE review_entries SET open = 0 WHERE note_id = ? AND open = 1", (touch.note_id,)
                    )
                else:
                    touched.append(_record(conn, touch, merge, burst_ms))
            for old, new in renames:
                _rename_tag(conn, old, new)
            conn.executemany(
                "INSERT INTO review_places(note_id, parent_id, deleted_time, tags) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(note_id) DO UPDATE SET parent_id = excluded.parent_id, "
                "deleted_time = excluded.deleted_time, tags = excluded.tags",
                [(n, p.parent_id, p.deleted_time, _SEP.join(p.tags)) for n, p in places.items()],
            )
            set_meta(conn, CURSOR_KEY, str(cursor_to))
        return list(dict.fromkeys(touched))

    # Entries ------------------------------------------------------------------------------
    def entries(
        self,
        *,
        state: EntryState | None = EntryState.PENDING,
        actor: str | None = None,
        since: int | None = None,
        folder_id: str | None = None,
        limit: int | None = None,
        words: Sequence[Word] = (),
        along: bool = True,
        note_ids: Sequence[str] | None = None,
    ) -> list[EntryRow]:
        clause, args = where(state, actor, since, folder_id, words, along=along, note_ids=note_ids)
        sql = f"SELECT {_ENTRY} FROM review_entries e{clause} ORDER BY last_time DESC, id DESC LIMIT ?"
        with self.db.read() as conn:
            return [_entry(r) for r in conn.execute(sql, [*args, -1 if limit is None else limit])]

    def count(
        self,
        *,
        actor: str | None = None,
        since: int | None = None,
        folder_id: str | None = None,
        words: Sequence[Word] = (),
        along: bool = True,
    ) -> int:
        clause, args = where(EntryState.PENDING, actor, since, folder_id, words, along=along)
        with self.db.read() as conn:
            row = conn.execute(f"SELECT count(*) FROM review_entries e{clause}", args).fetchone()
        return int(row[0])

    def along(self, entry_ids: Sequence[int]) -> list[tuple[int, EntryRow]]:
        with self.db.read() as conn:
            return _along(conn, entry_ids)

    def entry(self, entry_id: int) -> EntryRow:
        with self.db.read() as conn:
            row = conn.execute(f"SELECT {_ENTRY} FROM review_entries WHERE id = ?", (entry_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"no change {entry_id}", hint="`noted changes` lists them")
        return _entry(row)

    def set_detail(self, entry_id: int, detail: Detail) -> None:
        with self.db.write() as conn:
            conn.execute("UPDATE review_entries SET detail = ? WHERE id = ?", (_dump(detail), entry_id))

    def decide(self, entry_ids: Sequence[int], state: EntryState, time: int) -> list[int]:
        marked: list[int] = []
        settle = "UPDATE review_entries AS e SET state = ?, open = 0, reviewed_time = ? WHERE e.state = 'pending' AND "
        with self.db.write() as conn:
            for entry_id in dict.fromkeys(entry_ids):
                if conn.execute(f"{settle}e.id = ? RETURNING id", (state.value, time, entry_id)).fetchall():
                    marked.append(entry_id)
            # What came along with them, once nothing it came with waits (in this transaction).
            came = [e.id for _, e in _along(conn, marked)]
            for entry_id in dict.fromkeys(came):
                sql = f"{settle}e.id = ? AND NOT {FOLDED} RETURNING id"
                if conn.execute(sql, (state.value, time, entry_id)).fetchall():
                    marked.append(entry_id)
        return marked

    # Proposals ----------------------------------------------------------------------------
    def propose(
        self,
        *,
        client: str,
        tool: str,
        note_id: str,
        title: str,
        base_updated_time: int,
        time: int,
        detail: Detail,
    ) -> ProposalRow:
        with self.db.write() as conn:
            row = conn.execute(
                "INSERT INTO proposals(client, tool, note_id, title, base_updated_time, time, detail) "
                f"VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING {_PROPOSAL}",
                (client, tool, note_id, title, base_updated_time, time, _dump(detail)),
            ).fetchone()
        return _proposal(row)

    def proposal(self, proposal_id: int) -> ProposalRow:
        with self.db.read() as conn:
            row = conn.execute(f"SELECT {_PROPOSAL} FROM proposals WHERE id = ?", (proposal_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"no proposal {proposal_id}", hint="`noted changes --pending` lists them")
        return _proposal(row)

    def proposals(
        self, *, state: ProposalState | tuple[ProposalState, ...] | None = WAITING, client: str | None = None
    ) -> list[ProposalRow]:
        clause, args = where(state, client, None, None, (), who="client")
        sql = f"SELECT {_PROPOSAL} FROM proposals{clause} ORDER BY id DESC"
        with self.db.read() as conn:
            return [_proposal(r) for r in conn.execute(sql, args)]

    def claim(
        self, proposal_id: int, *, time: int, stuck_before: int, also: tuple[ProposalState, ...] = ()
    ) -> bool:
        open_states = {ProposalState.PENDING.value, *(s.value for s in also)}
        with self.db.write() as conn:
            row = conn.execute(
                "SELECT state, decided_time, claimant FROM proposals WHERE id = ?", (proposal_id,)
            ).fetchone()
            if row is None:
                return False
            state, decided, claimant = row
            stuck = state == ProposalState.APPLYING.value and (decided < stuck_before or gone(claimant))
            if state not in open_states and not stuck:
                return False
            conn.execute(
                "UPDATE proposals SET state = 'applying', decided_time = ?, claimant = ? WHERE id = ?",
                (time, this_process(), proposal_id),
            )
        return True

    def release(self, proposal_id: int, *, time: int, reason: str = "") -> None:
        with self.db.write() as conn:
            conn.execute(
                "UPDATE proposals SET state = 'pending', decided_time = 0, claimant = '', reason = ? "
                "WHERE id = ? AND state = 'applying' AND decided_time = ?",
                (reason, proposal_id, time),
            )

    def settle(
        self, proposal_id: int, state: ProposalState, *, time: int, reason: str = "", result_note_id: str = ""
    ) -> bool:
        with self.db.write() as conn:
            row = conn.execute(
                "UPDATE proposals SET state = ?, decided_time = ?, reason = ?, result_note_id = ? "
                "WHERE id = ? AND state IN ('pending', 'applying') RETURNING id",
                (state.value, time, reason, result_note_id, proposal_id),
            ).fetchone()
        return row is not None


def _rename_tag(conn: apsw.Connection, old: str, new: str) -> None:
    """Name the tag titled ``old`` ``new`` in every kept place."""
    rows = conn.execute(
        "SELECT note_id, tags FROM review_places WHERE instr(?1 || tags || ?1, ?2) > 0",
        (_SEP, f"{_SEP}{old}{_SEP}"),
    ).fetchall()
    conn.executemany(
        "UPDATE review_places SET tags = ? WHERE note_id = ?",
        [(_SEP.join(new if t == old else t for t in tags.split(_SEP)), note) for note, tags in rows],
    )


def _cursor(conn: apsw.Connection) -> int:
    return int(get_meta(conn, CURSOR_KEY) or 0)


def _along(conn: apsw.Connection, entry_ids: Sequence[int]) -> list[tuple[int, EntryRow]]:
    """The waiting entries that came along with the changes of ``entry_ids``, each with the one
    of those it came with (``review_sql``), newest first."""
    ids = list(dict.fromkeys(entry_ids))
    found: list[tuple[int, EntryRow]] = []
    for start in range(0, len(ids), 500):
        part = ids[start : start + 500]
        rows = conn.execute(  # one pass over what waits, each linked entry's carriers looked up
            f"WITH came AS MATERIALIZED (SELECT {CARRIER} AS carrier, {_ENTRY_E} FROM review_entries e, "
            "json_each(e.detail, '$.with') w WHERE e.state = 'pending' AND json_extract(e.detail, '$.with') "
            f"IS NOT NULL) SELECT carrier, {_ENTRY} FROM came WHERE carrier IN ({','.join('?' * len(part))})",
            part,
        )
        found += [(int(r[0]), _entry(r[1:])) for r in rows]
    return sorted(found, key=lambda f: (f[1].last_time, f[1].id), reverse=True)


_KNOWN = "coalesce(nullif(?, ''), (SELECT {0} FROM review_entries WHERE note_id = ? AND {0} != '' ORDER BY id DESC LIMIT 1), '')"
"""A new entry's title or notebook: the touch's, else the latest the note's entries knew."""


def _record(conn: apsw.Connection, touch: Touch, merge: Merge, burst_ms: int) -> int:
    """Grow the note's open entry by ``touch`` when it is the same actor's, within a burst;
    otherwise start a new entry (the note's other entries stop growing)."""
    row = conn.execute(
        "SELECT id, last_time, detail FROM review_entries "
        "WHERE note_id = ? AND open = 1 AND actor = ? AND state = 'pending' ORDER BY id DESC LIMIT 1",
        (touch.note_id, touch.actor),
    ).fetchone()
    new = touch.detail or {}
    if row and touch.time - row[1] <= burst_ms:
        entry_id = int(row[0])
        conn.execute(
            "UPDATE review_entries SET last_time = max(last_time, ?), title = coalesce(nullif(?, ''), title), "
            "folder_id = coalesce(nullif(?, ''), folder_id), detail = ? WHERE id = ?",
            (touch.time, touch.title, touch.folder_id, _dump(merge(json.loads(row[2]), new)), entry_id),
        )
        return entry_id
    conn.execute("UPDATE review_entries SET open = 0 WHERE note_id = ? AND open = 1", (touch.note_id,))
    conn.execute(  # a note gone when the feed is read keeps the name and notebook its last entry knew
        "INSERT OR IGNORE INTO review_entries(id, note_id, title, folder_id, actor, first_time, last_time, detail) "
        f"VALUES (?, ?, {_KNOWN.format('title')}, {_KNOWN.format('folder_id')}, ?, ?, ?, ?)",
        (
            touch.feed_id,
            touch.note_id,
            touch.title,
            touch.note_id,
            touch.folder_id,
            touch.note_id,
            touch.actor,
            touch.time,
            touch.time,
            _dump(new),
        ),
    )
    return touch.feed_id

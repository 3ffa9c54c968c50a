"""How much of a profile the search-by-meaning index covers, read without the model.

Search by meaning and hybrid search say when their results come from a partial index (a first
scan still running, or changes not yet followed), and ``noted index`` says how far the process
holding the lease is. Both read it from the index's own bookkeeping in ``meta``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from noted.indexer.lease import Lease
from noted.indexer.vectors import META_CURSOR, META_MODEL, META_PART, META_SCAN
from noted.store.protocol import Store
from noted.store.sqlite.db import Database, get_meta
from noted.wording import plural


@dataclass(frozen=True, slots=True)
class IndexCoverage:
    """``notes_indexed`` of ``notes_total`` notes have vectors; ``complete`` when nothing is pending.

    Empty notes are never indexed, so a complete index may cover fewer notes than the total.
    """

    notes_indexed: int
    notes_total: int
    complete: bool
    indexing: bool = False
    """A process holds the indexing lease (the app, the MCP server, ``noted index``), so the index
    is being brought up to date; False after such a process was killed midway, say."""
    changed: int = 0
    """Indexed notes changed since (the feed after the index's cursor): their vectors are of an
    older text. Counted over ``CHANGES_READ`` changes at most; ``changed_more``: there were more."""
    changed_more: bool = False

    @property
    def missing(self) -> bool:
        """Some notes have no vectors yet, so results by meaning may miss them (rather than only
        rank some by an older text)."""
        return self.notes_indexed < self.notes_total

    def as_json(self) -> dict[str, int | bool]:
        """The ``"index"`` object of ``--json`` search output (and of the MCP search tools)."""
        return {
            "notes_indexed": self.notes_indexed,
            "notes_total": self.notes_total,
            "complete": self.complete,
            "notes_changed": self.changed,
        }

    def notice(self) -> str | None:
        """One line for partial results (``the index covers N of M notes``, ``N notes changed since
        indexed``), or None when complete or when nothing behind concerns a note's text."""
        if self.complete or not (self.missing or self.changed):
            return None
        parts = (
            [f"the index covers {self.notes_indexed:,} of {self.notes_total:,} notes"] if self.missing else []
        )
        if self.changed:
            parts.append(
                f"{'at least ' if self.changed_more else ''}{plural(self.changed, 'note')} changed since indexed"
            )
        return "; ".join(parts)


def index_coverage(store: Store, db: Database, *, note_ids: Sequence[str] | None = None) -> IndexCoverage:
    """Where the index stands for ``store``: complete when built, not scanning, and not behind the feed.

    With ``note_ids`` (a caller's scope) the counts are of those notes only, so they say nothing
    about notes the caller cannot see.
    """
    with db.read() as conn:
        built = get_meta(conn, META_MODEL) is not None
        scanning = get_meta(conn, META_SCAN) is not None
        cursor = int(get_meta(conn, META_CURSOR) or 0)
        has_chunks = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'index_chunks'").fetchone()
        indexed = 0
        if has_chunks and note_ids is None:
            indexed = conn.execute("SELECT count(DISTINCT note_id) FROM index_chunks").fetchone()[0]
        elif has_chunks:
            indexed = conn.execute(
                "SELECT count(DISTINCT note_id) FROM index_chunks WHERE note_id IN (SELECT value FROM json_each(?))",
                (json.dumps(list(note_ids or ())),),
            ).fetchone()[0]
    total = len(note_ids) if note_ids is not None else sum(store.folder_note_counts().values())
    # A rebuild asked for (no model) keeps none of the chunks; those of notes trashed since stay
    # until the indexer follows: neither may say more notes are indexed than there are.
    indexed = min(int(indexed), total) if built else 0
    ready = built and bool(has_chunks) and not scanning
    complete = ready and cursor >= store.latest_cursor()
    skip = complete or scanning or not has_chunks
    changed, more, touched = (0, False, False) if skip else _changed(store, db, cursor, note_ids)
    if ready and note_ids is not None:  # in a scope a change elsewhere must not show, not even as a flag
        complete = not touched and not more
    indexing = not complete and Lease(db).current() is not None
    return IndexCoverage(indexed, total, complete, indexing, changed, more)


CHANGES_READ = 2000
"""The most changes read to count the notes changed since indexed (their note ids alone: 2,000
cost about 2 ms of CPU at 10,000 notes, where reading them as changes cost 28 ms)."""


def _changed(
    store: Store, db: Database, cursor: int, note_ids: Sequence[str] | None
) -> tuple[int, bool, bool]:
    """How many indexed notes (of ``note_ids``) the feed changed after ``cursor``, whether changes
    were left unread, and whether it changed any of those notes at all (a new one included)."""
    ids, more = store.notes_changed_since(cursor, CHANGES_READ)
    if note_ids is not None:
        ids.intersection_update(note_ids)
    with db.read() as conn:
        indexed = conn.execute(
            "SELECT count(*) FROM json_each(?) WHERE EXISTS (SELECT 1 FROM index_chunks WHERE note_id = value)",
            (json.dumps(sorted(ids)),),
        ).fetchone()[0]
    return int(indexed), more, bool(ids)


def unread_notes(store: Store, db: Database, note_ids: Sequence[str]) -> set[str]:
    """Those of ``note_ids`` the index has not read as they are now: changed after its cursor (after
    the target of a first scan under way), or, while it scans or more than ``CHANGES_READ`` changes
    are behind, with no vectors. None of them when the index is complete, so search by both ranks
    a complete index's notes exactly as it always did (a note that failed or is empty counts read).

    One read of the feed after the cursor (none left when complete) and, only then, one query over
    ``note_ids``: never a scan of the index or the notes.
    """
    ids = list(dict.fromkeys(note_ids))
    if not ids:
        return set()
    with db.read() as conn:
        scan = get_meta(conn, META_SCAN)
        cursor = int(get_meta(conn, META_CURSOR) or 0)
    since = int(json.loads(scan)["target"]) if scan is not None else cursor
    changed, more = store.notes_changed_since(since, CHANGES_READ)
    unread = changed.intersection(ids)
    if scan is not None or more:
        with db.read() as conn:
            rows = conn.execute(
                "SELECT value FROM json_each(?) WHERE NOT EXISTS "
                "(SELECT 1 FROM index_chunks WHERE note_id = value)",
                (json.dumps(ids),),
            )
            unread.update(str(r[0]) for r in rows)
    return unread


@dataclass(frozen=True, slots=True)
class IndexReport:
    """What ``noted index status`` says: how the index was built, how far it is, and who keeps it."""

    state: str
    """The index's state in words, with what to do about it (``report_state``)."""
    built: bool
    model: str | None
    notes: int
    """Notes in the index (0 until it is built: a killed rebuild's old rows count for nothing)."""
    notes_total: int
    """Notes in the notebooks (trash left out): how many ``notes`` will be once the index is whole,
    so a first scan under way says how far it is."""
    chunks: int
    behind_by_changes: int
    notes_changed: int
    """Indexed notes changed since (``IndexCoverage.changed``: at most ``CHANGES_READ`` changes read)."""
    first_scan_running: bool
    failed_notes: int
    notes_in_part: int
    """Notes longer than ``notes.largeNoteChars``, indexed from their opening only."""
    lease_holder: str | None
    sqlite_vec: str
    """``loaded``, or why the sqlite-vec extension did not load."""
    run_advised: bool = False
    """``state`` advises running ``noted index`` (work is left and no process holds the lease), so
    the caller may first check that this process could (``noted index status`` does). Not shown."""

    def as_json(self) -> dict[str, object]:
        """The fields in order, as ``--json`` prints them (and the text output lists them)."""
        return {name: getattr(self, name) for name in self.__slots__ if name != "run_advised"}


def index_built(db: Database) -> bool:
    """Whether an index has been built in ``db`` (asks nothing of the store: Joplin may be off)."""
    with db.read() as conn:
        return get_meta(conn, META_MODEL) is not None


def index_report(store: Store, db: Database) -> IndexReport:
    """The index's bookkeeping for ``store`` in ``db``, read without loading the model."""
    with db.read() as conn:
        model = get_meta(conn, META_MODEL)
        cursor = int(get_meta(conn, META_CURSOR) or 0)
        scanning = get_meta(conn, META_SCAN) is not None
        in_part = len(json.loads(get_meta(conn, META_PART) or "[]"))
        has_tables = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'index_chunks'").fetchone()
        counts = (
            conn.execute("SELECT count(DISTINCT note_id), count(*) FROM index_chunks").fetchone()
            if has_tables
            else (0, 0)
        )
        failures = conn.execute("SELECT count(*) FROM index_failures").fetchone()[0] if has_tables else 0
    behind = 0 if scanning or model is None else max(0, store.latest_cursor() - cursor)
    built = model is not None
    notes, chunks = (int(counts[0]), int(counts[1])) if built else (0, 0)
    total = sum(store.folder_note_counts().values())
    holder = Lease(db).holder()
    return IndexReport(
        state=report_state(built, scanning, behind, holder, f"{notes:,} of {total:,}"),
        built=built,
        model=model,
        notes=notes,
        notes_total=total,
        chunks=chunks,
        behind_by_changes=behind,
        notes_changed=_changed(store, db, cursor, None)[0] if behind and has_tables else 0,
        first_scan_running=scanning,
        failed_notes=int(failures),
        notes_in_part=in_part,
        lease_holder=holder,
        sqlite_vec=db.vec_error or "loaded",
        run_advised=holder is None and (scanning or not built or bool(behind)),
    )


def report_state(built: bool, scanning: bool, behind: int, holder: str | None, done: str) -> str:
    """What ``noted index status`` says first: the index's state and what to do about it.

    ``done`` is how far a first scan is (``3 of 40``). A process holding the lease is working on it;
    without one, work stopped midway (a killed run) waits for the next ``noted index``, which goes on
    from where it stopped.
    """
    if holder is not None:
        return (
            f"building: {done} notes ({holder})" if scanning or not built else f"following changes ({holder})"
        )
    if not built:
        return "not built: run `noted index` to build it"
    if scanning:
        return f"first scan stopped at {done} notes: run `noted index` to finish it"
    if behind:
        changes = "change" if behind == 1 else "changes"
        return f"behind by {behind:,} {changes}: run `noted index` (or keep `noted index --watch` running)"
    return "up to date"

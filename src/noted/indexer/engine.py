"""The indexer: follows the store's change feed and keeps the vectors in step with the notes.

Work is done in batches. A batch reads notes, cuts them into chunks, embeds only the chunks whose
text is new (a chunk whose hash the note already had keeps its vector), then stores the chunks and
advances the durable cursor in one transaction. A crash therefore re-does a batch and never skips
one. Trashed, conflicted, emptied and erased notes lose their vectors.

A profile indexed for the first time (or after a model change) is scanned note by note in id
order; the scan's position is saved with every batch so it resumes where it stopped, and the feed
is followed from the cursor the scan started at.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from noted.embeddings import Embedder
from noted.indexer.chunking import Chunk, chunk_note
from noted.indexer.vectors import (
    META_CURSOR,
    META_SCAN,
    NewChunk,
    VectorTables,
    as_blob,
    get_meta,
    set_meta,
)
from noted.models import ItemType, Note, now_ms
from noted.store.protocol import NoteOrder, Store
from noted.store.sqlite.db import Database

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class IndexProgress:
    """Where the indexer is: ``phase`` is ``scan`` (first full pass), ``follow`` or ``idle``."""

    phase: str
    done: int
    total: int
    chunks_per_second: float
    seconds_left: float | None
    failed: int = 0


ProgressCallback = Callable[[IndexProgress], None]


def _indexable(note: Note | None) -> bool:
    return bool(
        note is not None
        and not note.is_trashed
        and not note.is_conflict
        and (note.title.strip() or note.body.strip())
    )


class Indexer:
    """Keeps one database's vectors in step with one store, using one embedder."""

    def __init__(
        self,
        store: Store,
        db: Database,
        embedder: Embedder,
        *,
        batch_notes: int = 32,
        on_progress: ProgressCallback | None = None,
    ) -> None:
        self.store = store
        self.db = db
        self.embedder = embedder
        self.tables = VectorTables(db, embedder.model_id, embedder.dim)
        self.batch_notes = batch_notes
        self.on_progress = on_progress
        self._retry: list[str] = []
        self._scan_ids: list[str] | None = None
        self._scan_total = 0
        self._rate = _Rate()
        self.failed = 0

    # Set-up ----------------------------------------------------------------------------
    def prepare(self) -> None:
        """Make the tables (rebuilding for a new model) and queue notes that failed last time."""
        rebuilt = self.tables.ensure()
        # Asked before the write transaction: on Joplin this is a request to Joplin, which must
        # not hold the database's write lock (and writes the store's own sidecar rows).
        target = self.store.latest_cursor()
        with self.db.write() as conn:
            if rebuilt or get_meta(conn, META_CURSOR) is None and get_meta(conn, META_SCAN) is None:
                set_meta(conn, META_SCAN, json.dumps({"target": target, "after": ""}))
            self._retry = [r[0] for r in conn.execute("SELECT note_id FROM index_failures")]
            conn.execute("DELETE FROM index_failures")

    # One step --------------------------------------------------------------------------
    def step(self) -> int:
        """Do one batch of work; returns how many notes it looked at (0 when there was nothing)."""
        if self._retry:
            ids, self._retry = self._retry[: self.batch_notes], self._retry[self.batch_notes :]
            self._index_notes(ids, cursor=None)
            return len(ids)
        with self.db.read() as conn:
            scan_raw = get_meta(conn, META_SCAN)
            cursor = int(get_meta(conn, META_CURSOR) or 0)
        if scan_raw is not None:
            return self._scan_step(json.loads(scan_raw))
        return self._follow_step(cursor)

    def run_until_idle(self, *, should_stop: Callable[[], bool] = lambda: False) -> int:
        """Step until there is nothing left to do; returns the notes looked at."""
        total = 0
        while not should_stop():
            done = self.step()
            if not done:
                break
            total += done
        self._report("idle", 0, 0)
        return total

    def _scan_step(self, scan: dict[str, object]) -> int:
        after = str(scan.get("after", ""))
        if self._scan_ids is None:
            self._scan_ids = [n.id for n in self.store.list_notes(order=NoteOrder.ID) if n.id > after]
            self._scan_total = len(self._scan_ids) + self._done_before(after)
        ids, self._scan_ids = self._scan_ids[: self.batch_notes], self._scan_ids[self.batch_notes :]
        if not ids:
            with self.db.write() as conn:
                set_meta(conn, META_CURSOR, str(scan["target"]))
                set_meta(conn, META_SCAN, None)
            self._scan_ids = None
            return 1  # the switch to following counts as work, so the caller steps again
        next_scan = json.dumps({"target": scan["target"], "after": ids[-1]})
        self._index_notes(ids, cursor=None, scan=next_scan)
        self._report("scan", self._scan_total - len(self._scan_ids), self._scan_total)
        return len(ids)

    def _done_before(self, after: str) -> int:
        if not after:
            return 0
        return sum(1 for n in self.store.list_notes(order=NoteOrder.ID) if n.id <= after)

    def _follow_step(self, cursor: int) -> int:
        page = self.store.changes_since(cursor, limit=500)
        if not page.changes:
            return 0
        ids: list[str] = []
        seen: set[str] = set()
        for change in page.changes:
            if change.item_type is ItemType.NOTE and change.item_id not in seen:
                seen.add(change.item_id)
                ids.append(change.item_id)
        for start in range(0, max(len(ids), 1), self.batch_notes):
            last = start + self.batch_notes >= len(ids)
            self._index_notes(ids[start : start + self.batch_notes], cursor=page.cursor if last else None)
        latest = self.store.latest_cursor()
        self._report("follow", page.cursor, latest)
        return max(len(ids), 1)

    # The work --------------------------------------------------------------------------
    def _index_notes(self, ids: Sequence[str], *, cursor: int | None, scan: str | None = None) -> None:
        started = time.perf_counter()
        found = {n.id: n for n in self.store.get_notes(ids)}
        wanted = {i: found[i] for i in ids if _indexable(found.get(i))}
        chunks = self._chunk(wanted)
        with self.db.read() as conn:
            old = self.tables.chunks_of(conn, list(wanted))
            reuse_rows = {c.content_hash: c.rowid for cs in old.values() for c in cs}
            reused = self.tables.vectors_of(conn, reuse_rows.values())
        by_hash = {h: reused[r] for h, r in reuse_rows.items() if r in reused}
        vectors, failed = self._embed(chunks, by_hash)
        with self.db.write() as conn:
            self.tables.drop_notes(conn, [i for i in ids if i not in wanted])
            for note_id, note_chunks in chunks.items():
                if note_id in failed:
                    conn.execute(
                        "INSERT OR REPLACE INTO index_failures(note_id, error, time) VALUES (?, ?, ?)",
                        (note_id, failed[note_id], now_ms()),
                    )
                    continue
                rows = [_stored(c, vectors[c.content_hash]) for c in note_chunks]
                self.tables.put_note(conn, note_id, rows)
            if cursor is not None:
                set_meta(conn, META_CURSOR, str(cursor))
            if scan is not None:
                set_meta(conn, META_SCAN, scan)
        self.failed += len(failed)
        embedded = sum(len(cs) for cs in chunks.values())
        self._rate.add(embedded, len(ids), time.perf_counter() - started)

    def _chunk(self, notes: dict[str, Note]) -> dict[str, list[Chunk]]:
        return {i: chunk_note(i, n.title, n.body, self.embedder) for i, n in notes.items()}

    def _embed(
        self, chunks: dict[str, list[Chunk]], known: dict[str, bytes]
    ) -> tuple[dict[str, bytes], dict[str, str]]:
        """Vectors by content hash for every chunk, and the notes that failed with why."""
        vectors = dict(known)
        todo = {c.content_hash: c.text for cs in chunks.values() for c in cs if c.content_hash not in vectors}
        failed: dict[str, str] = {}
        if not todo:
            return vectors, failed
        try:
            out = self.embedder.embed_documents(list(todo.values()))
            vectors.update({h: as_blob(v) for h, v in zip(todo, out, strict=True)})
        except Exception:
            # Find the note(s) the model chokes on; the others go through.
            for note_id, note_chunks in chunks.items():
                missing = [c for c in note_chunks if c.content_hash not in vectors]
                if not missing:
                    continue
                try:
                    out = self.embedder.embed_documents([c.text for c in missing])
                    vectors.update({c.content_hash: as_blob(v) for c, v in zip(missing, out, strict=True)})
                except Exception as exc:
                    log.exception("indexing note %s failed; it is skipped and retried next start", note_id)
                    failed[note_id] = f"{type(exc).__name__}: {exc}"
        return vectors, failed

    def _report(self, phase: str, done: int, total: int) -> None:
        if self.on_progress is None:
            return
        chunks_rate, notes_rate = self._rate.per_second()
        left = (total - done) if phase == "scan" else None
        eta = left / notes_rate if left is not None and notes_rate > 0 else None
        self.on_progress(IndexProgress(phase, done, total, chunks_rate, eta, self.failed))


def _stored(chunk: Chunk, vector: bytes) -> NewChunk:
    return NewChunk(
        chunk.note_id,
        chunk.index,
        chunk.section_path,
        chunk.section_heading,
        chunk.start,
        chunk.end,
        chunk.content_hash,
        vector,
    )


class _Rate:
    """Chunks and notes indexed per second over the last twenty batches."""

    def __init__(self) -> None:
        self.samples: list[tuple[int, int, float]] = []

    def add(self, chunks: int, notes: int, seconds: float) -> None:
        self.samples = [*self.samples[-19:], (chunks, notes, seconds)]

    def per_second(self) -> tuple[float, float]:
        seconds = sum(s for _, _, s in self.samples)
        if seconds <= 0:
            return 0.0, 0.0
        return sum(c for c, _, _ in self.samples) / seconds, sum(n for _, n, _ in self.samples) / seconds

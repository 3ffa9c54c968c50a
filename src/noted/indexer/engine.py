"""The indexer: follows the store's change feed and keeps the vectors in step with the notes.

Work is done in batches. A batch reads notes, cuts them into chunks, embeds only the chunks whose
text is new (a chunk whose hash the note already had keeps its vector), then stores the chunks and
advances the durable cursor (past the notes stored) in one transaction. A crash therefore re-does
at most the notes it had not stored and never skips one. Trashed, conflicted, emptied and erased notes lose their vectors.

A profile indexed for the first time (or after a model change, or after the chunker's rules
changed: ``chunking.CHUNKING``) is scanned note by note in id order; the scan's position is saved with every batch so it resumes where it stopped, and the feed
is followed from the cursor the scan started at.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

from noted.embeddings import Embedder
from noted.errors import Interruption, ModelAwayError, database_gone
from noted.indexer.chunking import CHUNKING, OUTLINE_INDEX, Chunk, chunk_note, outline_chunk
from noted.indexer.lease import Lease, LeaseLost
from noted.indexer.requests import take_rebuild
from noted.indexer.retries import Retries
from noted.indexer.vectors import (
    META_CURSOR,
    META_MODEL,
    META_SCAN,
    NewChunk,
    VectorTables,
    as_blob,
)
from noted.indexer.work import Rate, Scan, Work, follow_cursors
from noted.markdown import opening
from noted.models import Note, now_ms
from noted.settings.handles import LARGE_NOTE_CHARS
from noted.store.protocol import NoteOrder, Store
from noted.store.sqlite.db import Database, get_meta, set_meta

log = logging.getLogger(__name__)

EMBED_STEP = 16
"""Chunks per model call: the lease is renewed and the clock read between calls."""
GROUP_CHUNKS = 64
GROUP_SECONDS = 2.0
"""Progress is committed after this many chunks or seconds of embedding, whichever comes first."""
META_CHUNKING = "index.chunking"
"""``CHUNKING`` as of the last full scan begun: the chunker's rules the chunks were cut by."""


@dataclass(frozen=True, slots=True)
class IndexProgress:
    """Where the indexer is: ``phase`` is ``scan`` (first full pass), ``follow`` or ``idle``.

    ``done`` and ``total`` count notes (changes when following); ``chunks_total`` is estimated
    from the characters left to scan.
    """

    phase: str
    done: int
    total: int
    chunks_per_second: float
    seconds_left: float | None
    failed: int = 0
    chunks_done: int = 0
    chunks_total: int = 0


ProgressCallback = Callable[[IndexProgress], None]


def _indexable(note: Note | None) -> bool:
    return bool(
        note is not None
        and not note.is_trashed
        and not note.is_conflict
        and (note.title.strip() or note.body.strip())
    )


class IndexingStopped(Interruption):
    """``should_stop`` said stop: the work done so far is committed, the rest waits for next time."""


class Indexer:
    """Keeps one database's vectors in step with one store, using one embedder.

    With a ``lease`` it renews it before every group of chunks and checks it inside every
    commit, raising ``LeaseLost`` (and storing nothing more) once another process has it.
    """

    def __init__(
        self,
        store: Store,
        db: Database,
        embedder: Embedder,
        *,
        batch_notes: int = 32,
        on_progress: ProgressCallback | None = None,
        lease: Lease | None = None,
        part_chars: int = LARGE_NOTE_CHARS.default,
    ) -> None:
        self.store = store
        self.part_chars = part_chars
        """A note is indexed from its first this many characters (``notes.largeNoteChars``), so a
        huge one costs a bounded time and memory and never holds up the notes after it."""
        self.db = db
        self.embedder = embedder
        self.batch_notes = batch_notes
        self.on_progress = on_progress
        self.lease = lease
        self.should_stop: Callable[[], bool] = lambda: False
        """Looked at between groups of chunks: True stops a batch midway (``IndexingStopped``)."""
        self.retries = Retries()
        """The failed notes to try again, and when (at once after ``prepare``, then backing off)."""
        self._scan: Scan | None = None
        self._rate = Rate()
        self._mark = time.monotonic()
        self._chars_done = 0
        self.chunks_done = 0
        """Chunks of the notes stored by this indexer (reused or embedded)."""
        self.looked_at = 0
        """Notes read to index (or drop) by this indexer; a step's return also counts other work."""

    @cached_property
    def tables(self) -> VectorTables:
        """The index's tables. Made on first use, which loads the model (to learn its width) in the
        thread that indexes: its model threads then share that thread's (lower) priority."""
        return VectorTables(self.db, self.embedder.model_id, self.embedder.dim)

    @property
    def failed(self) -> int:
        """Notes the model failed on that are not stored yet (each is tried again: ``retries``)."""
        return len(self.retries)

    # Set-up ----------------------------------------------------------------------------
    def drop_vectors(self) -> None:
        """Forget the model the vectors were made with, so ``prepare`` builds them all again."""
        with self.db.write() as conn:
            set_meta(conn, META_MODEL, None)

    def prepare(self) -> None:
        """Make the tables (rebuilding for a new model) and queue notes that failed last time."""
        rebuilt = self.tables.ensure()
        # Asked before the write transaction: on Joplin this is a request to Joplin, which must
        # not hold the database's write lock (and writes the store's own sidecar rows).
        target = self.store.latest_cursor()
        with self.db.write() as conn:
            rechunk = get_meta(conn, META_CHUNKING) != self._rules
            if (
                rebuilt
                or rechunk
                or get_meta(conn, META_CURSOR) is None
                and get_meta(conn, META_SCAN) is None
            ):
                set_meta(conn, META_SCAN, json.dumps({"target": target, "after": ""}))
                set_meta(conn, META_CHUNKING, self._rules)
            # Each stays until the note is stored or dropped (``drop_notes``): a retry stopped midway is
            # not the end of it.
            self.retries.load(str(r[0]) for r in conn.execute("SELECT note_id FROM index_failures"))
        self._scan = None

    @property
    def _rules(self) -> str:
        """``CHUNKING``, and the part of a large note indexed when it is not the default's."""
        return CHUNKING if self.part_chars == LARGE_NOTE_CHARS.default else f"{CHUNKING}:{self.part_chars}"

    # One step --------------------------------------------------------------------------
    def step(self) -> int:
        """Do one batch of work; returns how many notes it looked at (0 when there was nothing).

        Raises ``DatabaseGoneError`` when the database file was deleted or replaced meanwhile.
        """
        if self.db.replaced():
            raise database_gone(self.db.path)
        if self._take_request():
            return 1
        if ids := self.retries.due(self.batch_notes):
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
        before = self.looked_at
        while not should_stop() and self.step():
            pass
        self._report("idle", 0, 0)
        return self.looked_at - before

    def _take_request(self) -> bool:
        """Honour a rebuild another process asked for; True when there was one."""
        raw = take_rebuild(self.db)
        if raw is None:
            return False
        log.info("rebuilding the index as asked: %s", raw)
        self.prepare()
        return True

    def _scan_step(self, scan: dict[str, object]) -> int:
        after = str(scan.get("after", ""))
        if self._scan is None:
            notes = self.store.list_notes(order=NoteOrder.ID)
            # A scan ends by moving the cursor past the changes it did not follow: the notes those
            # trashed or erased are not listed, and a rescan (new rules) must not keep their vectors.
            with self.db.write() as conn:
                if self.lease is not None:
                    self.lease.check(conn)
                self.tables.drop_all_but(conn, {n.id for n in notes})
            left = [n for n in notes if n.id > after]
            self._scan = Scan([n.id for n in left], len(notes) - len(left), len(notes))
            self._scan.chars_left = sum(len(n.title) + min(n.body_length, self.part_chars) for n in left)
        ids = self._scan.take(self.batch_notes)
        if not ids:
            with self.db.write() as conn:
                set_meta(conn, META_CURSOR, str(scan["target"]))
                set_meta(conn, META_SCAN, None)
            self._scan = None
            return 1  # the switch to following counts as work, so the caller steps again
        self._index_notes(ids, cursor=None, scan_target=scan["target"])
        self._scan.done += len(ids)
        return len(ids)

    def _follow_step(self, cursor: int) -> int:
        page = self.store.changes_since(cursor, limit=500)
        if not page.changes:
            return 0
        ids, after = follow_cursors(page)
        for start in range(0, max(len(ids), 1), self.batch_notes):
            last = start + self.batch_notes >= len(ids)
            batch = ids[start : start + self.batch_notes]
            self._index_notes(batch, cursor=page.cursor if last else None, follow=after)
        latest = self.store.latest_cursor()
        self._report("follow", page.cursor, latest)
        return max(len(ids), 1)

    # The work --------------------------------------------------------------------------
    def _index_notes(
        self,
        ids: Sequence[str],
        *,
        cursor: int | None,
        scan_target: object = None,
        follow: dict[str, int] | None = None,
    ) -> None:
        """Index ``ids`` in order, committing every ``GROUP_CHUNKS`` chunks or ``GROUP_SECONDS``.

        Each commit stores the vectors made since the last one (in ``index_pending`` while their
        note is unfinished, so a kill loses at most one group), every note whose chunks are all
        there, and the scan position (``scan_target``) or the feed's cursor (``follow``) past the
        last such note.
        """
        self.looked_at += len(ids)
        found = {n.id: n for n in self.store.get_notes(ids)}
        wanted = {i: found[i] for i in ids if _indexable(found.get(i))}
        work = Work(list(ids), wanted, self._chunk(wanted), cursor, scan_target, follow)
        with self.db.read() as conn:
            work.vectors.update(self.tables.known_vectors(conn, list(wanted)))
        todo = work.todo()
        group_start, in_group = time.monotonic(), 0
        for first in range(0, len(todo), EMBED_STEP):
            if self.should_stop():  # keep what is done; the batch resumes from it next time
                self._commit(work)
                raise IndexingStopped("asked to stop")
            self._check_lease()
            piece = todo[first : first + EMBED_STEP]
            try:
                self._embed_piece(work, piece)
            except (KeyboardInterrupt, ModelAwayError):  # Ctrl+C or SIGTERM (``noted index``) in the
                self._commit(work)  # model, or the model away: keep what it made, as a stop does
                raise
            in_group += len(piece)
            if in_group >= GROUP_CHUNKS or time.monotonic() - group_start >= GROUP_SECONDS:
                self._commit(work)
                group_start, in_group = time.monotonic(), 0
        self._commit(work, final=True)
        self.retries.record(ids, work.failed)

    def _check_lease(self) -> None:
        if self.lease is not None and not self.lease.acquire():
            raise LeaseLost("another process took the indexing lease")

    def _commit(self, work: Work, *, final: bool = False) -> None:
        with self.db.write() as conn:
            if self.lease is not None:
                self.lease.check(conn)
            self.tables.put_pending(conn, work.take_fresh())
            done_ids = list(work.finished())
            for note_id in done_ids:
                if note_id not in work.wanted:
                    self.tables.drop_notes(conn, [note_id])
                elif note_id in work.failed:
                    conn.execute(
                        "INSERT OR REPLACE INTO index_failures(note_id, error, time) VALUES (?, ?, ?)",
                        (note_id, work.failed[note_id], now_ms()),
                    )
                else:
                    rows = [_stored(c, work.vectors[c.content_hash]) for c in work.chunks[note_id]]
                    self.tables.put_note(conn, note_id, rows)
            long = [
                i
                for i in done_ids
                if i not in work.failed and len(getattr(work.wanted.get(i), "body", "")) > self.part_chars
            ]
            self.tables.mark_parts(conn, done_ids, long)
            if work.scan_target is not None and work.last_done:
                set_meta(conn, META_SCAN, json.dumps({"target": work.scan_target, "after": work.last_done}))
            if work.last_done in work.follow:
                set_meta(conn, META_CURSOR, str(work.follow[work.last_done]))
            if final:
                self.tables.clear_pending(conn)
                if work.cursor is not None:
                    set_meta(conn, META_CURSOR, str(work.cursor))
        self._note_progress(work, done_ids)

    def _chunk(self, notes: dict[str, Note]) -> dict[str, list[Chunk]]:
        """Each note's chunks, then its outline (which ``VectorTables.put_note`` keeps apart)."""
        out = {}
        for i, n in notes.items():
            body = opening(n.body, self.part_chars)
            chunks = chunk_note(i, n.title, body, self.embedder)
            whole = outline_chunk(i, n.title, body, self.embedder) if chunks else None
            out[i] = chunks if whole is None else [*chunks, whole]
        return out

    def _embed_piece(self, work: Work, piece: list[tuple[str, str, str]]) -> None:
        """Embed ``(hash, text, note)`` triples into ``work``; a note the model chokes on is failed."""
        piece = [p for p in piece if p[2] not in work.failed]
        if not piece:
            return
        try:
            out = self.embedder.embed_documents([text for _, text, _ in piece])
            work.add({h: as_blob(v) for (h, _, _), v in zip(piece, out, strict=True)})
            return
        except ModelAwayError:
            raise  # no text's fault: no note fails, the caller waits for the model
        except Exception:
            pass
        # Find the note(s) the model chokes on; the others go through.
        for note_id in dict.fromkeys(n for _, _, n in piece):
            mine = [p for p in piece if p[2] == note_id]
            try:
                out = self.embedder.embed_documents([text for _, text, _ in mine])
                work.add({h: as_blob(v) for (h, _, _), v in zip(mine, out, strict=True)})
            except ModelAwayError:
                raise
            except Exception as exc:
                log.exception("indexing note %s failed; it is skipped and retried later", note_id)
                work.failed[note_id] = f"{type(exc).__name__}: {exc}"

    def _note_progress(self, work: Work, done_ids: list[str]) -> None:
        """Count what one commit stored, and report it while scanning."""
        now = time.monotonic()
        wanted = (n for i in done_ids if (n := work.wanted.get(i)) is not None)
        chars = sum(len(n.title) + min(len(n.body), self.part_chars) for n in wanted)
        self._rate.add(work.embedded - work.counted, chars, now - self._mark)
        self._mark, work.counted = now, work.embedded
        self.chunks_done += sum(c.index != OUTLINE_INDEX for i in done_ids for c in work.chunks.get(i, ()))
        self._chars_done += chars
        if work.scan_target is not None and self._scan is not None:
            self._scan.chars_left -= chars
            self._report("scan", self._scan.done + work.notes_done, self._scan.total)

    def _report(self, phase: str, done: int, total: int) -> None:
        if self.on_progress is None:
            return
        chunks_rate, chars_rate = self._rate.per_second()
        chars_left = self._scan.chars_left if phase == "scan" and self._scan is not None else 0
        eta = chars_left / chars_rate if phase == "scan" and chars_rate > 0 else None
        per_char = self.chunks_done / self._chars_done if self._chars_done else 0.0
        chunks_total = self.chunks_done + round(max(chars_left, 0) * per_char)
        self.on_progress(
            IndexProgress(phase, done, total, chunks_rate, eta, self.failed, self.chunks_done, chunks_total)
        )


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

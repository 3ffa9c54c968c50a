"""The index's own tables in a SQLite database: chunk metadata, each chunk's vector, and its sign bits.

The notes are the truth and this is a view of them that can always be rebuilt. The tables carry
the id of the model that made the vectors (in ``meta``); opening them with another model drops
everything and starts over, so vectors of two models are never mixed or compared.

Nearest chunks are found in two stages (``VectorTables.nearest``). The first ranks every chunk of
the scope by the Hamming distance between sign bits (``index_bits``, 48 bytes a chunk for 384
dimensions) and keeps several times more candidates than asked for; the second reads those
candidates' float vectors (``index_embeddings``) and ranks them by exact cosine. At 100,000 chunks
sqlite-vec's own ``vec0`` KNN took 183 ms at k=400 over floats and 360 ms at k=3,200 over bits:
its cost grows with k times the rows. A plain table scanned with ``ORDER BY
vec_distance_hamming(...) LIMIT m`` took 30-45 ms for m up to 3,200, and reading the candidates'
vectors by rowid 10-15 ms more (``tests/bench/bench_index.py``). A process that searches again
keeps the sign bits in memory and scans them with numpy instead (``noted.indexer.sign_bits``).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

import apsw
import numpy as np
import numpy.typing as npt

from noted.errors import UnavailableError
from noted.indexer.chunking import OUTLINE_INDEX
from noted.indexer.sign_bits import SignBits, bump
from noted.store.sqlite.db import Database, get_meta, set_meta

SCHEMA_VERSION = 2
"""1: vectors in a sqlite-vec ``vec0`` float table. 2: float vectors and sign bits in plain tables."""
META_MODEL = "index.model"
META_SCHEMA = "index.schema"
META_CURSOR = "index.cursor"
META_SCAN = "index.scan"
"""JSON ``{"target": cursor, "after": rowid}`` while a full scan is under way."""
META_PART = "index.inPart"
"""JSON list of the notes indexed from their opening only (longer than ``notes.largeNoteChars``)."""

_CHUNK_TABLES = """
CREATE TABLE index_chunks (
    rowid INTEGER PRIMARY KEY,
    note_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    section TEXT NOT NULL,
    heading TEXT NOT NULL,
    start INTEGER NOT NULL,
    "end" INTEGER NOT NULL,
    hash TEXT NOT NULL
);
CREATE INDEX index_chunks_note ON index_chunks(note_id, idx);
CREATE TABLE index_failures (
    note_id TEXT PRIMARY KEY,
    error TEXT NOT NULL,
    time INTEGER NOT NULL
);
"""
# The bits have a table of their own so the first stage scans 5 MB, not the 150 MB of floats.
_VECTOR_TABLES = """
CREATE TABLE index_embeddings (rowid INTEGER PRIMARY KEY, embedding BLOB NOT NULL);
CREATE TABLE index_bits (rowid INTEGER PRIMARY KEY, bits BLOB NOT NULL);
"""

# Vectors made for notes not yet stored whole: kept so a kill loses at most one group's work.
# Rows live only while one batch is in flight (its last commit clears them).
_PENDING_TABLE = "CREATE TABLE IF NOT EXISTS index_pending (hash TEXT PRIMARY KEY, embedding BLOB NOT NULL)"
# One vector a note of its outline (``chunking.outline_chunk``). Made where missing, so an index of
# an earlier version gains it; its rescan (``chunking.CHUNKING``) fills it, reusing every chunk.
_OUTLINE_TABLE = (
    "CREATE TABLE IF NOT EXISTS index_notes "
    "(note_id TEXT PRIMARY KEY, hash TEXT NOT NULL, embedding BLOB NOT NULL)"
)


@dataclass(frozen=True, slots=True)
class StoredChunk:
    """A chunk as kept in the index: where it is, and the hash of the text that was embedded."""

    rowid: int
    note_id: str
    index: int
    section_path: str
    section_heading: str
    start: int
    end: int
    content_hash: str


@dataclass(frozen=True, slots=True)
class NewChunk:
    """A chunk to store, with its vector."""

    note_id: str
    index: int
    section_path: str
    section_heading: str
    start: int
    end: int
    content_hash: str
    vector: bytes


@dataclass(frozen=True, slots=True)
class ChunkMatch:
    """A chunk near a query: where it is and its cosine to the query (1 = same direction)."""

    rowid: int
    note_id: str
    section_path: str
    section_heading: str
    start: int
    end: int
    score: float
    index: int = 0
    """The chunk's position in its note (0: the first, led by the title)."""
    content_hash: str = ""
    """The hash of the text embedded, to tell whether the note still holds it there."""


class VectorTables:
    """Chunk rows and their vectors for one model, in ``db``."""

    def __init__(self, db: Database, model_id: str, dim: int) -> None:
        if db.vec_error:
            raise UnavailableError(
                f"semantic search is unavailable: the sqlite-vec extension did not load ({db.vec_error})",
                hint="keyword search still works; reinstall noted's dependencies to get sqlite-vec",
            )
        self.db = db
        self.model_id = model_id
        self.dim = dim
        self._sign_bits = SignBits()

    def ensure(self) -> bool:
        """Create the tables, or rebuild them for a new model. True when they were (re)made empty.

        An index of this model in the first layout (schema 1) is moved into this one with its
        vectors, so an upgrade does not embed every note again.
        """
        with self.db.write() as conn:
            same_model = get_meta(conn, META_MODEL) == self.model_key()
            schema = get_meta(conn, META_SCHEMA)
            remade = False
            if same_model and schema == "1" and _has_table(conn, "index_vectors"):
                self._from_schema_1(conn)
            elif not same_model or schema != str(SCHEMA_VERSION):
                self._recreate(conn)
                remade = True
            conn.execute(_PENDING_TABLE)
            conn.execute(_OUTLINE_TABLE)
            return remade

    def model_key(self) -> str:
        return json.dumps({"model": self.model_id, "dim": self.dim}, sort_keys=True)

    def _recreate(self, conn: apsw.Connection) -> None:
        _drop_all(conn)
        conn.execute(_CHUNK_TABLES + _VECTOR_TABLES)
        set_meta(conn, META_MODEL, self.model_key())
        set_meta(conn, META_SCHEMA, str(SCHEMA_VERSION))
        set_meta(conn, META_CURSOR, None)
        set_meta(conn, META_SCAN, None)
        bump(conn)

    def _from_schema_1(self, conn: apsw.Connection) -> None:
        """Copy schema 1's ``vec0`` vectors into the plain tables; chunks, cursor and scan stay."""
        conn.execute("DROP TABLE IF EXISTS index_embeddings; DROP TABLE IF EXISTS index_bits")
        conn.execute(_VECTOR_TABLES)
        conn.execute(
            "INSERT INTO index_embeddings(rowid, embedding) SELECT rowid, embedding FROM index_vectors"
        )
        conn.execute("DROP TABLE index_vectors")
        after = 0
        while rows := conn.execute(
            "SELECT rowid, embedding FROM index_embeddings WHERE rowid > ? ORDER BY rowid LIMIT 2000",
            (after,),
        ).fetchall():
            conn.executemany(
                "INSERT INTO index_bits(rowid, bits) VALUES (?, ?)",
                [(r, binary_blob(np.frombuffer(b, dtype=np.float32))) for r, b in rows],
            )
            after = rows[-1][0]
        set_meta(conn, META_SCHEMA, str(SCHEMA_VERSION))
        bump(conn)

    # Reading ---------------------------------------------------------------------------
    def mark_parts(self, conn: apsw.Connection, done: Sequence[str], in_part: Sequence[str]) -> None:
        """Of the notes ``done`` just stored, ``in_part`` were indexed from their opening only:
        keep ``META_PART`` so (``noted index status``)."""
        if not done:
            return
        before = set(json.loads(get_meta(conn, META_PART) or "[]"))
        parts = (before - set(done)) | set(in_part)
        if parts != before:
            set_meta(conn, META_PART, json.dumps(sorted(parts)) if parts else None)

    def chunks_of(self, conn: apsw.Connection, note_ids: Sequence[str]) -> dict[str, list[StoredChunk]]:
        if not note_ids:
            return {}
        marks = ",".join("?" * len(note_ids))
        out: dict[str, list[StoredChunk]] = {n: [] for n in note_ids}
        for row in conn.execute(
            f'SELECT rowid, note_id, idx, section, heading, start, "end", hash FROM index_chunks '
            f"WHERE note_id IN ({marks}) ORDER BY note_id, idx",
            list(note_ids),
        ):
            out[row[1]].append(StoredChunk(*row))
        return out

    def vectors_of(self, conn: apsw.Connection, rowids: Iterable[int]) -> dict[int, bytes]:
        ids = list(rowids)
        if not ids:
            return {}
        rows = conn.execute(
            "SELECT rowid, embedding FROM index_embeddings WHERE rowid IN (SELECT value FROM json_each(?))",
            (json.dumps(ids),),
        )
        return {int(r[0]): bytes(r[1]) for r in rows}

    def known_vectors(self, conn: apsw.Connection, note_ids: Sequence[str]) -> dict[str, bytes]:
        """Vectors by content hash that need no embedding: the notes' stored chunks', and pending ones."""
        old = self.chunks_of(conn, note_ids)
        rows = {c.content_hash: c.rowid for cs in old.values() for c in cs}
        stored = self.vectors_of(conn, rows.values())
        known = {h: stored[r] for h, r in rows.items() if r in stored}
        known.update((str(h), bytes(v)) for h, v in conn.execute("SELECT hash, embedding FROM index_pending"))
        known.update((h, v) for h, v in self._outlines(conn, note_ids).values())
        return known

    def outline_vectors(self, conn: apsw.Connection, note_ids: Sequence[str]) -> dict[str, bytes]:
        """The outline vector of each of these notes that has one (none before the indexer's
        first run on an index older than them)."""
        return {n: v for n, (_, v) in self._outlines(conn, note_ids).items()}

    @staticmethod
    def _outlines(conn: apsw.Connection, note_ids: Sequence[str]) -> dict[str, tuple[str, bytes]]:
        if not note_ids or not _has_table(conn, "index_notes"):
            return {}
        rows = conn.execute(
            "SELECT note_id, hash, embedding FROM index_notes WHERE note_id IN (SELECT value FROM json_each(?))",
            (json.dumps(list(note_ids)),),
        )
        return {str(r[0]): (str(r[1]), bytes(r[2])) for r in rows}

    def counts(self) -> tuple[int, int]:
        """(notes, chunks) in the index."""
        with self.db.read() as conn:
            row = conn.execute("SELECT count(DISTINCT note_id), count(*) FROM index_chunks").fetchone()
        return int(row[0]), int(row[1])

    def nearest(
        self,
        conn: apsw.Connection,
        queries: Sequence[npt.NDArray[np.float32]],
        k: int,
        *,
        candidates: int,
        note_ids: Sequence[str] | None = None,
    ) -> list[ChunkMatch]:
        """The ``k`` chunks closest to any of ``queries`` by cosine (a chunk by its closest query),
        best first, among each query's ``candidates``.

        A query's candidates are the chunks whose sign bits differ least from its own
        (``noted.indexer.sign_bits``); when the scope holds no more chunks than ``candidates``,
        every one is scored and the answer is exact. With ``note_ids`` only those notes' chunks
        are candidates, so nothing outside the scope is ever ranked. Several queries (the wordings
        of one search) share one reading of the candidates' vectors.
        """
        if not queries:
            return []
        qs = np.stack([np.ascontiguousarray(q, dtype=np.float32) for q in queries])
        picked = self._sign_bits.candidates(conn, [binary_blob(q) for q in qs], max(candidates, k), note_ids)
        if not picked:
            return []
        rows = conn.execute(
            "SELECT e.rowid, e.embedding FROM json_each(?) j JOIN index_embeddings e ON e.rowid = j.value",
            (json.dumps(picked),),
        ).fetchall()
        if not rows:
            return []
        rowids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
        # einsum, not ``@``: a BLAS product this small spends more on threads than sums.
        dots = np.einsum("ij,qj->iq", matrix, qs)
        norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))[:, None] * np.linalg.norm(qs, axis=1)[None, :]
        scores = (dots / np.maximum(norms, np.float32(1e-12))).max(axis=1)
        top = np.lexsort((rowids, -scores))[:k]
        return self._matches(conn, [(int(rowids[i]), float(scores[i])) for i in top])

    @staticmethod
    def _matches(conn: apsw.Connection, ranked: list[tuple[int, float]]) -> list[ChunkMatch]:
        score = dict(ranked)
        rows = conn.execute(
            'SELECT rowid, note_id, section, heading, start, "end", idx, hash FROM index_chunks '
            "WHERE rowid IN (SELECT value FROM json_each(?))",
            (json.dumps(list(score)),),
        )
        found = {r[0]: ChunkMatch(r[0], r[1], r[2], r[3], r[4], r[5], score[r[0]], r[6], r[7]) for r in rows}
        return [found[rowid] for rowid, _ in ranked if rowid in found]

    # Writing (inside the caller's transaction) -------------------------------------------
    def drop_notes(self, conn: apsw.Connection, note_ids: Iterable[str]) -> None:
        """Forget these notes: their chunks, vectors and outline, and a failure waiting for a retry."""
        bump(conn)
        for note_id in note_ids:
            of_note = "WHERE rowid IN (SELECT rowid FROM index_chunks WHERE note_id = ?)"
            conn.execute(f"DELETE FROM index_embeddings {of_note}", (note_id,))
            conn.execute(f"DELETE FROM index_bits {of_note}", (note_id,))
            conn.execute("DELETE FROM index_chunks WHERE note_id = ?", (note_id,))
            conn.execute("DELETE FROM index_notes WHERE note_id = ?", (note_id,))
            conn.execute("DELETE FROM index_failures WHERE note_id = ?", (note_id,))

    def drop_all_but(self, conn: apsw.Connection, note_ids: Collection[str]) -> None:
        """Drop every note indexed here but ``note_ids``."""
        indexed = conn.execute("SELECT note_id FROM index_chunks UNION SELECT note_id FROM index_notes")
        gone = {str(r[0]) for r in indexed}.difference(note_ids)
        if gone:
            self.drop_notes(conn, gone)

    def put_note(self, conn: apsw.Connection, note_id: str, chunks: Sequence[NewChunk]) -> None:
        """Replace the chunks of one note, and its outline (the chunk of index ``OUTLINE_INDEX``)."""
        self.drop_notes(conn, [note_id])  # bumps the generation
        for c in chunks:
            if c.index == OUTLINE_INDEX:
                conn.execute(
                    "INSERT INTO index_notes(note_id, hash, embedding) VALUES (?, ?, ?)",
                    (note_id, c.content_hash, c.vector),
                )
                continue
            conn.execute(
                'INSERT INTO index_chunks(note_id, idx, section, heading, start, "end", hash) '
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (c.note_id, c.index, c.section_path, c.section_heading, c.start, c.end, c.content_hash),
            )
            self._put_vector(conn, conn.last_insert_rowid(), c.vector)

    @staticmethod
    def put_pending(conn: apsw.Connection, vectors: dict[str, bytes]) -> None:
        """Keep vectors whose notes are not stored whole yet."""
        conn.executemany(
            "INSERT OR REPLACE INTO index_pending(hash, embedding) VALUES (?, ?)", list(vectors.items())
        )

    @staticmethod
    def clear_pending(conn: apsw.Connection) -> None:
        """Forget pending vectors: every note they were made for is stored."""
        conn.execute("DELETE FROM index_pending")

    @staticmethod
    def _put_vector(conn: apsw.Connection, rowid: int, vector: bytes) -> None:
        conn.execute("INSERT INTO index_embeddings(rowid, embedding) VALUES (?, ?)", (rowid, vector))
        bits = binary_blob(np.frombuffer(vector, dtype=np.float32))
        conn.execute("INSERT INTO index_bits(rowid, bits) VALUES (?, ?)", (rowid, bits))


def as_blob(vector: npt.NDArray[np.float32]) -> bytes:
    """The bytes sqlite-vec reads as a float32 vector."""
    return np.ascontiguousarray(vector, dtype=np.float32).tobytes()


def binary_blob(vector: npt.NDArray[np.float32]) -> bytes:
    """The vector's sign bits (1 where positive) packed as sqlite-vec's ``vec_quantize_binary`` packs them.

    Packed here rather than in SQL so a dimension that is not a multiple of 8 works too: the
    padding bits are 0 on both sides of a comparison and add nothing to a distance.
    """
    return np.packbits(np.asarray(vector) > 0, bitorder="little").tobytes()


def _has_table(conn: apsw.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone() is not None


def _drop_all(conn: apsw.Connection) -> None:
    # index_vectors is schema 1's vec0 table: dropping it needs sqlite-vec, which __init__ checked.
    tables = (
        "index_chunks",
        "index_vectors",
        "index_embeddings",
        "index_bits",
        "index_failures",
        "index_pending",
        "index_notes",
    )
    for table in tables:
        conn.execute(f"DROP TABLE IF EXISTS {table}")

"""The index's own tables in a SQLite database: chunk metadata beside a sqlite-vec ``vec0`` table.

The notes are the truth and this is a view of them that can always be rebuilt. The tables carry
the id of the model that made the vectors (in ``meta``); opening them with another model drops
everything and starts over, so vectors of two models are never mixed or compared.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import apsw
import numpy as np
import numpy.typing as npt

from noted.errors import UnavailableError
from noted.store.sqlite.db import Database

SCHEMA_VERSION = 1
META_MODEL = "index.model"
META_SCHEMA = "index.schema"
META_CURSOR = "index.cursor"
META_SCAN = "index.scan"
"""JSON ``{"target": cursor, "after": rowid}`` while a full scan is under way."""


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


def get_meta(conn: apsw.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def set_meta(conn: apsw.Connection, key: str, value: str | None) -> None:
    if value is None:
        conn.execute("DELETE FROM meta WHERE key = ?", (key,))
    else:
        conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )


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

    def ensure(self) -> bool:
        """Create the tables, or rebuild them for a new model. True when they were (re)made."""
        with self.db.write() as conn:
            same = get_meta(conn, META_MODEL) == self.model_key() and (
                get_meta(conn, META_SCHEMA) == str(SCHEMA_VERSION)
            )
            if same:
                return False
            self._recreate(conn)
            return True

    def model_key(self) -> str:
        return json.dumps({"model": self.model_id, "dim": self.dim}, sort_keys=True)

    def _recreate(self, conn: apsw.Connection) -> None:
        conn.execute(
            f"""
            DROP TABLE IF EXISTS index_chunks;
            DROP TABLE IF EXISTS index_vectors;
            DROP TABLE IF EXISTS index_failures;
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
            CREATE VIRTUAL TABLE index_vectors USING vec0(embedding float[{self.dim}] distance_metric=cosine);
            CREATE TABLE index_failures (
                note_id TEXT PRIMARY KEY,
                error TEXT NOT NULL,
                time INTEGER NOT NULL
            );
            """
        )
        set_meta(conn, META_MODEL, self.model_key())
        set_meta(conn, META_SCHEMA, str(SCHEMA_VERSION))
        set_meta(conn, META_CURSOR, None)
        set_meta(conn, META_SCAN, None)

    # Reading ---------------------------------------------------------------------------
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
        marks = ",".join("?" * len(ids))
        rows = conn.execute(f"SELECT rowid, embedding FROM index_vectors WHERE rowid IN ({marks})", ids)
        return {int(r[0]): bytes(r[1]) for r in rows}

    def counts(self) -> tuple[int, int]:
        """(notes, chunks) in the index."""
        with self.db.read() as conn:
            row = conn.execute("SELECT count(DISTINCT note_id), count(*) FROM index_chunks").fetchone()
        return int(row[0]), int(row[1])

    # Writing (inside the caller's transaction) -------------------------------------------
    def drop_notes(self, conn: apsw.Connection, note_ids: Iterable[str]) -> None:
        for note_id in note_ids:
            rowids = [
                r[0] for r in conn.execute("SELECT rowid FROM index_chunks WHERE note_id = ?", (note_id,))
            ]
            for rowid in rowids:
                conn.execute("DELETE FROM index_vectors WHERE rowid = ?", (rowid,))
            conn.execute("DELETE FROM index_chunks WHERE note_id = ?", (note_id,))

    def put_note(self, conn: apsw.Connection, note_id: str, chunks: Sequence[NewChunk]) -> None:
        """Replace the chunks of one note."""
        self.drop_notes(conn, [note_id])
        for c in chunks:
            conn.execute(
                'INSERT INTO index_chunks(note_id, idx, section, heading, start, "end", hash) '
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (c.note_id, c.index, c.section_path, c.section_heading, c.start, c.end, c.content_hash),
            )
            rowid = conn.last_insert_rowid()
            conn.execute("INSERT INTO index_vectors(rowid, embedding) VALUES (?, ?)", (rowid, c.vector))


def as_blob(vector: npt.NDArray[np.float32]) -> bytes:
    """The bytes sqlite-vec reads as a float32 vector."""
    return np.ascontiguousarray(vector, dtype=np.float32).tobytes()

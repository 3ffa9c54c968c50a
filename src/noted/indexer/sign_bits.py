"""The first stage of the nearest-chunk search: chunks ranked by the Hamming distance of sign bits.

SQL ranks every chunk by ``vec_distance_hamming`` in one scan (13 ms at 100,000 chunks, almost all of
it calling the function once a row). A process that searches more than once (the app, the MCP
server) instead keeps every chunk's sign bits in memory, 48 bytes a chunk for 384 dimensions (4.8 MB
at 100,000), and ranks them with numpy in about 2 ms a query vector, so a query searched in two
wordings scans twice in memory rather than twice in SQL (``tests/bench/bench_index.py``).

The bits are read on the second search of a process (a one-shot command never pays for them) and
read again after the index changed: every write of the index's vectors bumps a generation number
in ``meta`` (``bump``), which each search reads (one row) and compares. A scope (``note_ids``) is
searched in SQL, where the chunks of its notes are found by index.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import apsw
import numpy as np
import numpy.typing as npt

_GENERATION = "SELECT value FROM meta WHERE key = 'index.generation'"
_BUMP = (
    "INSERT INTO meta(key, value) VALUES ('index.generation', '1') "
    "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
)
_ONE = "SELECT rowid FROM index_bits {where} ORDER BY vec_distance_hamming(vec_bit(bits), vec_bit(?)) LIMIT ?"
_IN_SCOPE = (
    "WHERE rowid IN (SELECT rowid FROM index_chunks WHERE note_id IN (SELECT value FROM json_each(?)))"
)
_BYTE_COUNTS = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def bump(conn: apsw.Connection) -> None:
    """Record that the index's vectors changed (inside the writer's transaction)."""
    conn.execute(_BUMP)


def _distances(bits: npt.NDArray[np.uint8], query: npt.NDArray[np.uint8]) -> npt.NDArray[np.int32]:
    """The Hamming distance of each row of ``bits`` to ``query`` (both packed bytes)."""
    differ = np.bitwise_xor(bits, query)
    ones = np.bitwise_count(differ) if hasattr(np, "bitwise_count") else _BYTE_COUNTS[differ]  # numpy 2, 1
    counted: npt.NDArray[np.int32] = ones.sum(axis=1, dtype=np.int32)
    return counted


@dataclass(frozen=True, slots=True)
class _Loaded:
    generation: str | None
    rowids: npt.NDArray[np.int64]
    bits: npt.NDArray[np.uint8]


class SignBits:
    """Candidates for the nearest-chunk search of one index (see the module's docstring)."""

    def __init__(self) -> None:
        self._loaded: _Loaded | None = None
        self._searches = 0
        self._lock = threading.Lock()

    def candidates(
        self,
        conn: apsw.Connection,
        queries: Sequence[bytes],
        count: int,
        note_ids: Sequence[str] | None = None,
    ) -> list[int]:
        """The rowids of the ``count`` chunks whose sign bits are nearest each of ``queries``
        (packed sign bits), merged: each query's own nearest, as if it were searched alone."""
        if note_ids is not None:
            return self._in_sql(conn, queries, count, note_ids)
        loaded = self._current(conn)
        if loaded is None:
            return self._in_sql(conn, queries, count, None)
        if not len(loaded.rowids):
            return []  # an index with no chunks (yet): its bits have no width to compare
        picked: set[int] = set()
        for query in queries:
            distances = _distances(loaded.bits, np.frombuffer(query, dtype=np.uint8))
            if count < len(distances):
                nearest = np.argpartition(distances, count)[:count]
                picked.update(loaded.rowids[nearest].tolist())
            else:
                picked.update(loaded.rowids.tolist())
        return sorted(picked)

    @staticmethod
    def _in_sql(
        conn: apsw.Connection, queries: Sequence[bytes], count: int, note_ids: Sequence[str] | None
    ) -> list[int]:
        picked: set[int] = set()
        for query in queries:
            if note_ids is None:
                rows = conn.execute(_ONE.format(where=""), (query, count))
            else:
                rows = conn.execute(
                    _ONE.format(where=_IN_SCOPE), (json.dumps(sorted(set(note_ids))), query, count)
                )
            picked.update(int(r[0]) for r in rows)
        return sorted(picked)

    def _current(self, conn: apsw.Connection) -> _Loaded | None:
        """The bits in memory, read (again) when stale; None on a process's first search."""
        with self._lock:
            self._searches += 1
            first = self._searches == 1
        row = conn.execute(_GENERATION).fetchone()
        generation = None if row is None else str(row[0])
        loaded = self._loaded
        if loaded is not None and loaded.generation == generation:
            return loaded
        if first:
            return None
        rows = conn.execute("SELECT rowid, bits FROM index_bits").fetchall()
        rowids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        width = len(rows[0][1]) if rows else 0
        bits = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.uint8).reshape(len(rows), width)
        self._loaded = _Loaded(generation, rowids, bits)
        return self._loaded

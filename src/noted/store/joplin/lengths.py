"""The body lengths of Joplin notes, kept in the sidecar as noted reads the notes.

Joplin's Data API gives a note's length only with its body, and a listing that asks for bodies
moves them all (a page holding a 39 MB note moved 39 MB at each load). So listings ask for none,
and each note noted reads whole (opening it, the indexer's reads, a save's answer) leaves its
length here, keyed by the ``updated_time`` it had: a listing fills ``NoteMeta.body_length`` from
it for each note not saved since, and leaves the rest at 0 for a caller that needs them to read.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable, Sequence

import apsw

from noted.errors import ProfileError
from noted.models import Note, NoteMeta
from noted.store.sqlite.db import Database

log = logging.getLogger(__name__)

_KEEP = """
INSERT INTO joplin_lengths(note_id, updated_time, length) VALUES (?, ?, ?)
ON CONFLICT(note_id) DO UPDATE SET updated_time = excluded.updated_time, length = excluded.length
WHERE excluded.updated_time >= joplin_lengths.updated_time
"""


class BodyLengths:
    """The lengths of the notes noted read whole, each at the save it read."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def keep(self, notes: Iterable[Note]) -> None:
        """Keep the lengths of ``notes``, as read; a cache, so never inside a caller's transaction
        (a read's snapshot may not turn into a write) and never failing the read that fills it."""
        rows = [(n.id, n.updated_time, len(n.body)) for n in notes]
        if not rows or not self._db.connection().get_autocommit():
            return
        try:
            with self._db.write() as conn:
                conn.executemany(_KEEP, rows)
        except (apsw.Error, ProfileError) as exc:
            log.debug("body lengths not kept: %s", exc)

    def fill(self, metas: Sequence[NoteMeta]) -> list[NoteMeta]:
        """``metas`` with the lengths known for the saves they list."""
        known: dict[str, tuple[int, int]] = {}
        with self._db.read() as conn:
            for start in range(0, len(metas), 500):
                ids = [m.id for m in metas[start : start + 500]]
                marks = ",".join("?" * len(ids))
                sql = f"SELECT note_id, updated_time, length FROM joplin_lengths WHERE note_id IN ({marks})"
                known.update({str(r[0]): (int(r[1]), int(r[2])) for r in conn.execute(sql, ids)})
        return [
            dataclasses.replace(m, body_length=known[m.id][1])
            if m.id in known and known[m.id][0] == m.updated_time
            else m
            for m in metas
        ]

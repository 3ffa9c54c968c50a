"""One call's worth of indexing: the notes, their chunks, the vectors made so far, what is finished.

The indexer embeds a batch's new chunks in small pieces and commits every few seconds; this
keeps the book of that: which vectors were made since the last commit (``take_fresh``), and
which notes, in the batch's order, now have every chunk's vector (``finished``), so a commit
stores whole notes only and the scan position never passes a note that is not stored.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from noted.indexer.chunking import Chunk
from noted.models import ChangePage, ItemType, Note


class Work:
    """The state of indexing ``ids`` (in this order) while their chunks are embedded."""

    def __init__(
        self,
        ids: list[str],
        wanted: dict[str, Note],
        chunks: dict[str, list[Chunk]],
        cursor: int | None,
        scan_target: object,
        follow: dict[str, int] | None = None,
    ) -> None:
        self.ids = ids
        self.wanted = wanted
        self.chunks = chunks
        self.cursor = cursor
        self.scan_target = scan_target
        self.follow = follow or {}
        """The feed's cursor each note of ``ids`` lets a commit store once it and those before it
        are finished (``follow_cursors``), so a follow stopped midway goes on after them."""
        self.vectors: dict[str, bytes] = {}
        """Vectors by content hash: reused, already pending, or made in this call."""
        self.failed: dict[str, str] = {}
        """Notes the model could not embed, with why."""
        self.last_done = ""
        """The last note of ``ids`` handed out by ``finished`` ('' before the first)."""
        self.embedded = 0
        """Chunks embedded in this call."""
        self.counted = 0
        """Of ``embedded``, how many the progress has counted."""
        self._fresh: dict[str, bytes] = {}
        self._pos = 0

    def todo(self) -> list[tuple[str, str, str]]:
        """``(hash, text, note id)`` of every chunk still to embed, once per text, in note order."""
        seen: set[str] = set(self.vectors)
        out: list[tuple[str, str, str]] = []
        for note_id in self.ids:
            for chunk in self.chunks.get(note_id, ()):
                if chunk.content_hash not in seen:
                    seen.add(chunk.content_hash)
                    out.append((chunk.content_hash, chunk.text, note_id))
        return out

    def add(self, vectors: dict[str, bytes]) -> None:
        """Record vectors just made."""
        self.vectors.update(vectors)
        self._fresh.update(vectors)
        self.embedded += len(vectors)

    def take_fresh(self) -> dict[str, bytes]:
        """The vectors made since the last call."""
        fresh, self._fresh = self._fresh, {}
        return fresh

    def finished(self) -> Iterator[str]:
        """The next notes in order that are ready to store (or drop, or record as failed)."""
        while self._pos < len(self.ids):
            note_id = self.ids[self._pos]
            ready = (
                note_id not in self.wanted
                or note_id in self.failed
                or all(c.content_hash in self.vectors for c in self.chunks[note_id])
            )
            if not ready:
                return
            self._pos += 1
            self.last_done = note_id
            yield note_id

    @property
    def notes_done(self) -> int:
        """How many of ``ids`` ``finished`` has handed out."""
        return self._pos


def follow_cursors(page: ChangePage) -> tuple[list[str], dict[str, int]]:
    """The notes a page of the feed changed, in order of their first change, and for each one the
    cursor up to which every change is of it or of a note before it: once those are stored, the
    feed is followed from there (a later change of a stored note is read again, rightly)."""
    first: dict[str, int] = {}
    for n, change in enumerate(page.changes):
        if change.item_type is ItemType.NOTE:
            first.setdefault(change.item_id, n)
    ids = list(first)
    after = {ids[k]: page.changes[first[ids[k + 1]] - 1].id for k in range(len(ids) - 1)}
    if ids:
        after[ids[-1]] = page.cursor
    return ids, after


@dataclass(slots=True)
class Scan:
    """The first full pass: the note ids still to index, and how far it is."""

    ids: list[str]
    done: int
    total: int
    chars_left: int = 0

    def take(self, count: int) -> list[str]:
        taken, self.ids = self.ids[:count], self.ids[count:]
        return taken


class Rate:
    """Chunks and characters indexed per second over the last twenty commits."""

    def __init__(self) -> None:
        self.samples: list[tuple[int, int, float]] = []

    def add(self, chunks: int, chars: int, seconds: float) -> None:
        self.samples = [*self.samples[-19:], (chunks, chars, seconds)]

    def per_second(self) -> tuple[float, float]:
        """(chunks, characters) per second."""
        seconds = sum(s for _, _, s in self.samples)
        if seconds <= 0:
            return 0.0, 0.0
        return sum(c for c, _, _ in self.samples) / seconds, sum(n for _, n, _ in self.samples) / seconds

"""Search by meaning: embed the query, find the nearest chunks, answer with one result per note.

A scope (notebooks, sub-notebooks included, or a tag) filters chunks *before* ranking, so a
scoped search can never return a note outside it, however close. Relevance presets trade recall
for precision with a number of nearest chunks and a floor on the cosine score; the floors are
tuned for the model in use (see ``PRESETS``) on the evaluation in ``tests/bench``.

The nearest chunks come from ``VectorTables.nearest``: ``OVERSAMPLE`` times the preset's chunks
(at least ``MIN_CANDIDATES``) are picked by their sign bits, then ranked by exact cosine.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from noted.embeddings import Embedder
from noted.errors import InvalidInputError, UnavailableError
from noted.indexer.chunking import title_lead
from noted.indexer.coverage import IndexCoverage, index_coverage, unread_notes
from noted.indexer.vectors import (
    META_MODEL,
    META_SCHEMA,
    SCHEMA_VERSION,
    ChunkMatch,
    StoredChunk,
    VectorTables,
)
from noted.models import Note
from noted.search.query import check_query_size
from noted.search.results import MAX_SECTIONS
from noted.search.sections import ChunkScore, SectionMatch, rank_sections
from noted.search.stale import Place, current_place
from noted.settings.handles import LARGE_NOTE_CHARS
from noted.store.protocol import Store
from noted.store.sqlite.db import Database, get_meta

if TYPE_CHECKING:
    import numpy.typing as npt

SNIPPET_CHARS = 240
OVERSAMPLE = 8
"""Candidates picked by sign bits per chunk wanted. On the evaluation's 5,841 real chunks, with k
and the candidates scaled down to their share of 100,000 chunks, these settings held 97-99% of
the exact nearest chunks and 98-99% of the exact top-10 notes, and the first note was always the
same; half as many candidates held 91-97% (``tests/bench``). A scope of no more chunks than the
candidates is searched exactly."""
MIN_CANDIDATES = 2048
"""At 100,000 chunks 2,048 candidates cost a few ms more than 1,024 (scanning every chunk's sign
bits is most of the cost), so strict and normal get 34 and 14 times their k."""


class Relevance(enum.StrEnum):
    """How close a chunk must be to count: ``strict`` shows fewer, surer results."""

    STRICT = "strict"
    NORMAL = "normal"
    LOOSE = "loose"


@dataclass(frozen=True, slots=True)
class Preset:
    """Nearest chunks to look at, and the lowest cosine score that still counts."""

    chunks: int
    floor: float


PRESETS: dict[str, dict[Relevance, Preset]] = {
    # all-MiniLM-L6-v2, from tests/bench/eval_search.py (Git's docs, 52 queries): the best chunk of
    # the page that answers a query scores 0.28-0.74 (5th percentile 0.35, quartile 0.47, median
    # 0.54), and the unlabelled notes of the top 10, mostly on-topic pages, 0.21-0.75 (median 0.49);
    # off-topic text scores about 0.0-0.15. Floors only cut the tail; they cannot sort the rest.
    # loose 0.25: below every labelled page (lowest 0.28), above off-topic text.
    # normal 0.35: keeps 96% of answers and 92% of related pages, cuts 10% of the other top-10.
    # strict 0.45: keeps 80% of answers, cuts a third of the others; a query with no close
    # page at all (3 of 52) returns nothing, which strict is for.
    "default": {
        Relevance.STRICT: Preset(60, 0.45),
        Relevance.NORMAL: Preset(150, 0.35),
        Relevance.LOOSE: Preset(400, 0.25),
    },
    # The dynamic-int8 copy noted runs (noted.embeddings.quantize) scores a little lower: at 0.45
    # strict kept 78% of answers (80% before) and hybrid strict lost 0.018 nDCG@10. At 0.42 hybrid
    # strict is within 0.007 of the original model's and semantic strict 0.014 above it
    # (eval_search.py --strict-floors); normal and loose keep their floors (within 0.01 as they are).
    "dynamic-int8": {
        Relevance.STRICT: Preset(60, 0.42),
        Relevance.NORMAL: Preset(150, 0.35),
        Relevance.LOOSE: Preset(400, 0.25),
    },
}


def presets_for(model_id: str) -> dict[Relevance, Preset]:
    """The presets tuned for the model that made the index (its ``model_id``)."""
    return PRESETS["dynamic-int8"] if ":dynamic-int8" in model_id else PRESETS["default"]


def relevance_of(value: Relevance | str) -> Relevance:
    """``value`` as a preset, or ``InvalidInputError`` saying which there are."""
    try:
        return Relevance(value)
    except ValueError:
        raise InvalidInputError(f'relevance must be one of strict, normal, loose (got "{value}")') from None


def _preset(model_id: str, relevance: Relevance | str) -> Preset:
    return presets_for(model_id)[relevance_of(relevance)]


@dataclass(frozen=True, slots=True)
class Passages:
    """A note's sections, closest first, with its closest chunk's text and a snippet of it, and
    a snippet of each section's closest chunk (``snippets``, in the order of ``sections``)."""

    sections: tuple[SectionMatch, ...]
    text: str
    snippet: str
    snippets: tuple[str, ...] = ()


def _snippet(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[: SNIPPET_CHARS - 1].rsplit(" ", 1)[0] + "…"


@dataclass(frozen=True, slots=True)
class SemanticHit:
    """The best chunk of one note: where it is, its text and how close it is (cosine, 1 = same)."""

    note_id: str
    title: str
    notebook_id: str
    updated_time: int
    """The note's own time (``user_updated_time``), as the lists and keyword search date it."""
    score: float
    section: str
    section_heading: str
    start: int
    end: int
    chunk_text: str
    snippet: str
    second_score: float = 0.0
    """The cosine of the note's second-closest chunk among those searched (0 when it had none)."""


class SemanticSearch:
    """Nearest-chunk search over the vectors the indexer keeps in ``db``."""

    def __init__(
        self,
        store: Store,
        db: Database,
        embedder: Embedder,
        *,
        oversample: int = OVERSAMPLE,
        min_candidates: int = MIN_CANDIDATES,
        part_chars: int = LARGE_NOTE_CHARS.default,
        indexing: bool = True,
    ) -> None:
        self.store = store
        self.db = db
        self.embedder = embedder
        self.oversample = oversample
        self.min_candidates = min_candidates
        self.part_chars = part_chars
        """``notes.largeNoteChars``: a longer note's chunks are of its opening (``noted.search.stale``)."""
        self.indexing = indexing
        """``search.indexer.enabled``: an open app indexes in the background (else only `noted index`)."""

    @functools.cached_property
    def tables(self) -> VectorTables:
        """The index's tables, opened on first use: learning the model's width loads the model (and
        the first time makes its int8 copy), which a search on an index never built must not do."""
        return VectorTables(self.db, self.embedder.model_id, self.embedder.dim)

    def coverage(self, note_ids: Sequence[str] | None = None) -> IndexCoverage:
        """How much of the store (or of ``note_ids``) the index these results come from covers."""
        return index_coverage(self.store, self.db, note_ids=note_ids)

    def unread(self, note_ids: Sequence[str]) -> set[str]:
        """Those of ``note_ids`` the index has not read as they are now (``unread_notes``)."""
        return unread_notes(self.store, self.db, note_ids)

    def candidates(self, chunks: int) -> int:
        """How many chunks the first stage keeps when ``chunks`` are wanted."""
        return max(self.min_candidates, self.oversample * chunks)

    def search(
        self,
        query: str,
        *,
        also: Sequence[str] = (),
        relevance: Relevance | str = Relevance.NORMAL,
        limit: int = 20,
        note_ids: Iterable[str] | None = None,
    ) -> list[SemanticHit]:
        """Notes whose text is closest in meaning to ``query``, best first.

        Args:
            query: Free text.
            also: Other wordings searched beside it (a translation): a chunk is as close as it
                is to the closest of them.
            relevance: A preset name (strict, normal, loose).
            limit: The most notes to return.
            note_ids: When given, only these notes are searched (the caller's scope).
        """
        preset = _preset(self.embedder.model_id, relevance)  # a bad preset is refused first
        return self.search_vectors(
            self.query_vectors((query, *also)), relevance=preset, limit=limit, note_ids=note_ids
        )

    def query_vectors(self, texts: Sequence[str]) -> list[npt.NDArray[np.float32]]:
        """The query vectors of ``texts``, once each is checked and the index is found usable:
        the model never runs for a query that would be refused or an index that cannot answer.

        Raises:
            InvalidInputError: A text is blank.
            QueryError: A text is too long.
            UnavailableError: The index cannot be used (``_check_ready``).
        """
        for text in texts:
            if not text.strip():
                raise InvalidInputError("a semantic search needs some text")
            check_query_size(text)
        self._check_ready()
        return [self.embedder.embed_query(text) for text in texts]

    def search_vectors(
        self,
        vectors: Sequence[npt.NDArray[np.float32]],
        *,
        relevance: Relevance | str | Preset = Relevance.NORMAL,
        limit: int = 20,
        note_ids: Iterable[str] | None = None,
    ) -> list[SemanticHit]:
        """``search`` for query vectors already made: a chunk counts by its closest vector."""
        preset = relevance if isinstance(relevance, Preset) else _preset(self.embedder.model_id, relevance)
        scope = None if note_ids is None else sorted(set(note_ids))
        if scope == []:
            return []
        matches = self._nearest(vectors, preset.chunks, scope)
        return self._per_note(matches, preset.floor, limit)

    def passages(
        self,
        vectors: Sequence[npt.NDArray[np.float32]],
        note_ids: Sequence[str],
        words: frozenset[str] = frozenset(),
    ) -> dict[str, Passages]:
        """Every indexed section of these notes, best first (``noted.search.sections``: the
        exact cosine of each chunk by its closest vector, and where ``words`` are), and the text
        of the best section's closest chunk. Notes without vectors are left out."""
        ids = list(dict.fromkeys(note_ids))
        if not ids or not vectors:
            return {}
        with self.db.read() as conn:
            chunks = self.tables.chunks_of(conn, ids)
            stored = self.tables.vectors_of(conn, [c.rowid for cs in chunks.values() for c in cs])
        kept = {n: [c for c in cs if c.rowid in stored] for n, cs in chunks.items()}
        notes = {n.id: n for n in self.store.get_notes([n for n, cs in kept.items() if cs])}
        out: dict[str, Passages] = {}
        for note_id, note in notes.items():
            of_note = kept[note_id]
            cosines = _cosines([stored[c.rowid] for c in of_note], vectors)
            lead = title_lead(note.title, self.embedder)
            places = [_now(note, c, lead, self.part_chars) for c in of_note]
            scored = [
                ChunkScore(p.path, p.heading, p.start, p.end, float(x))
                for p, x in zip(places, cosines, strict=True)
            ]
            sections = rank_sections(scored, note.body, words)
            text = note.body[sections[0].start : sections[0].end]
            snippets = tuple(_snippet(note.body[s.start : s.end]) for s in sections[:MAX_SECTIONS])
            out[note_id] = Passages(tuple(sections), text, _snippet(text), snippets)
        return out

    def outlines(
        self, vectors: Sequence[npt.NDArray[np.float32]], note_ids: Sequence[str]
    ) -> dict[str, float]:
        """The cosine of each note's outline vector (``chunking.outline_chunk``) to the closest of
        ``vectors``; notes without one (not indexed since the outline came in) are left out."""
        ids = list(dict.fromkeys(note_ids))
        if not ids or not vectors:
            return {}
        with self.db.read() as conn:
            stored = self.tables.outline_vectors(conn, ids)
        found = [n for n in ids if n in stored]
        if not found:
            return {}
        cosines = _cosines([stored[n] for n in found], vectors)
        return {n: float(x) for n, x in zip(found, cosines, strict=True)}

    def nearest(
        self, vector: npt.NDArray[np.float32], chunks: int, note_ids: list[str] | None = None
    ) -> list[ChunkMatch]:
        """The ``chunks`` chunks closest to ``vector`` (of ``note_ids``' notes when given), best first."""
        return self._nearest([vector], chunks, note_ids)

    def _nearest(
        self, vectors: Sequence[npt.NDArray[np.float32]], chunks: int, note_ids: list[str] | None
    ) -> list[ChunkMatch]:
        """The ``chunks`` chunks closest to any of ``vectors`` (a chunk by its closest), best first."""
        with self.db.read() as conn:
            return self.tables.nearest(
                conn, vectors, chunks, candidates=self.candidates(chunks), note_ids=note_ids
            )

    def _check_ready(self) -> None:
        if self.db.vec_error:
            raise UnavailableError(
                f"semantic search is unavailable: the sqlite-vec extension did not load ({self.db.vec_error})",
                hint="keyword search still works",
            )
        with self.db.read() as conn:
            built, schema = get_meta(conn, META_MODEL), get_meta(conn, META_SCHEMA)
        # With the background indexer off, nothing builds the index but `noted index`.
        off = "run `noted index` (the background indexer is off: search.indexer.enabled)"
        if built is None:
            raise UnavailableError(
                "semantic search is unavailable: the index has not been built yet",
                hint="run `noted index`, or keep noted open while it indexes" if self.indexing else off,
            )
        waiting = "run `noted index` or wait for the indexer to finish" if self.indexing else off
        if built != self.tables.model_key():
            raise UnavailableError(
                "semantic search is unavailable: the index was built with another model and is being rebuilt",
                hint=waiting,
            )
        if schema != str(SCHEMA_VERSION):
            # Another layout (an older noted's): its tables are not the ones queried here.
            raise UnavailableError(
                "semantic search is unavailable: the index was made by another version of noted "
                "and is being rebuilt",
                hint=waiting,
            )

    def _per_note(self, matches: list[ChunkMatch], floor: float, limit: int) -> list[SemanticHit]:
        best: dict[str, ChunkMatch] = {}
        second: dict[str, float] = {}
        for m in matches:
            if m.score < floor:
                continue
            if m.note_id in best:
                second.setdefault(m.note_id, m.score)
                continue
            if len(best) >= limit * 2:
                continue  # enough notes: only the second chunks of those are still wanted
            best[m.note_id] = m
        notes = {n.id: n for n in self.store.get_notes(list(best))}
        hits: list[SemanticHit] = []
        for note_id, m in best.items():
            note = notes.get(note_id)
            if note is None or note.is_trashed or note.is_conflict:
                continue  # the indexer has not caught up with a trash or delete yet
            hits.append(
                _hit(
                    note, m, second.get(note_id, 0.0), title_lead(note.title, self.embedder), self.part_chars
                )
            )
            if len(hits) >= limit:
                break
        return hits


def _cosines(blobs: Sequence[bytes], vectors: Sequence[npt.NDArray[np.float32]]) -> npt.NDArray[np.float32]:
    """The cosine of each stored vector to the closest of ``vectors``."""
    queries = np.stack([np.asarray(v, dtype=np.float32) for v in vectors])
    queries /= np.maximum(np.linalg.norm(queries, axis=1, keepdims=True), np.float32(1e-12))
    matrix = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), -1)
    norms = np.maximum(np.linalg.norm(matrix, axis=1), np.float32(1e-12))
    cosines: npt.NDArray[np.float32] = (matrix @ queries.T).max(axis=1) / norms
    return cosines


def _now(note: Note, chunk: ChunkMatch | StoredChunk, lead: str, part: int) -> Place:
    """Where ``chunk`` is in the note now (``noted.search.stale``: the index may be behind an edit)."""
    place = Place(chunk.section_path, chunk.section_heading, chunk.start, chunk.end)
    return current_place(
        place, note.body, lead=lead, index=chunk.index, embedded=chunk.content_hash, limit=part
    )


def _hit(note: Note, m: ChunkMatch, second: float, lead: str, part: int) -> SemanticHit:
    at = _now(note, m, lead, part)
    text = note.body[at.start : at.end]
    return SemanticHit(
        note.id, note.title, note.parent_id, note.user_updated_time, round(m.score, 4),
        at.path, at.heading, at.start, at.end, text, _snippet(text), round(second, 4),
    )  # fmt: skip

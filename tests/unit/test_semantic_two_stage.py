"""Two-stage semantic search (sign-bit candidates, then exact cosine) agrees with exact search.

The corpus is written straight into the index through ``VectorTables.put_note`` (the indexer's
own write path) with seeded random vectors, so the tests control how close every chunk is to the
query. The searches use few candidates so that the first stage really leaves chunks out.
"""

from __future__ import annotations

import hashlib

import numpy as np
import numpy.typing as npt
import pytest

from noted.embeddings.fake import FakeEmbedder
from noted.indexer.engine import Indexer
from noted.indexer.vectors import NewChunk, VectorTables, as_blob, binary_blob
from noted.models import NoteDraft
from noted.search.semantic import PRESETS, Relevance, SemanticSearch
from noted.store.sqlite import SqliteStore

DIM = 64
NOTES = 100
CHUNKS_PER_NOTE = 20  # 2,000 chunks
QUERIES = ("alpha", "bravo", "charlie")


class DenseQueries(FakeEmbedder):
    """The fake model, with a dense random unit vector per query text.

    The fake's own query vectors are sparse (a few hashed words), and the sign bits of a mostly
    zero vector say little; real models' vectors are dense, as these are.
    """

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=4).digest(), "little")
        vector = np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
        return vector / np.linalg.norm(vector)


def _corpus(store: SqliteStore, embedder: DenseQueries, inside: set[int] | None = None) -> dict[int, str]:
    """Notes of random chunks; a few chunks of some notes lie near each query, at graded distances.

    Returns the note id of every chunk rowid. ``inside``: indexes of notes put in a second folder.
    """
    rng = np.random.default_rng(11)
    folders = [store.create_folder(t, parent_id="", actor="user").id for t in ("Out", "In")]
    tables = VectorTables(store.db, embedder.model_id, embedder.dim)
    tables.ensure()
    queries = [embedder.embed_query(q) for q in QUERIES]
    notes = [
        store.create_note(
            NoteDraft(f"note {n}", "x" * 400, parent_id=folders[inside is not None and n in inside]),
            actor="user",
        )
        for n in range(NOTES)
    ]
    owner: dict[int, str] = {}
    with store.db.write() as conn:
        for n, note in enumerate(notes):
            rows = []
            for i in range(CHUNKS_PER_NOTE):
                vector = rng.standard_normal(DIM).astype(np.float32)
                if i < 2 and n % 3 == 0:  # near one query, from cosine ~0.3 to ~0.95
                    q = queries[(n // 3) % len(queries)]
                    vector = q + vector / np.float32(np.sqrt(DIM)) * np.float32(rng.uniform(0.3, 3.0))
                vector /= np.linalg.norm(vector)
                rows.append(NewChunk(note.id, i, "0", "", i * 20, i * 20 + 20, f"{n}:{i}", as_blob(vector)))
            tables.put_note(conn, note.id, rows)
        for rowid, note_id in conn.execute("SELECT rowid, note_id FROM index_chunks"):
            owner[int(rowid)] = str(note_id)
    return owner


def _exact(
    store: SqliteStore, query: npt.NDArray[np.float32], relevance: Relevance, scope: set[str] | None = None
) -> list[tuple[str, float]]:
    """The oracle: every chunk scored with numpy, then the search's per-note rules (k, floor)."""
    preset = PRESETS["default"][relevance]
    with store.db.read() as conn:
        rows = conn.execute(
            "SELECT c.rowid, c.note_id, e.embedding FROM index_chunks c JOIN index_embeddings e USING (rowid)"
        ).fetchall()
    rows = [r for r in rows if scope is None or r[1] in scope]
    matrix = np.stack([np.frombuffer(r[2], dtype=np.float32) for r in rows])
    scores = matrix @ query / np.linalg.norm(matrix, axis=1) / np.linalg.norm(query)
    order = sorted(range(len(rows)), key=lambda i: (-scores[i], rows[i][0]))[: preset.chunks]
    best: dict[str, float] = {}
    for i in order:
        if scores[i] >= preset.floor:
            best.setdefault(rows[i][1], float(scores[i]))
    return list(best.items())


@pytest.mark.parametrize("relevance", list(Relevance))
def test_two_stage_returns_the_exact_top_results(store: SqliteStore, relevance: Relevance) -> None:
    embedder = DenseQueries(dim=DIM)
    owner = _corpus(store, embedder)
    search = SemanticSearch(store, store.db, embedder, oversample=4, min_candidates=0)
    # Not vacuous: the first stage keeps a fraction of the chunks, so a search that ranked by the
    # sign bits alone, or dropped the close ones, would differ from the oracle below.
    assert search.candidates(PRESETS["default"][relevance].chunks) < len(owner)
    for text in QUERIES:
        want = _exact(store, embedder.embed_query(text), relevance)[:10]
        hits = search.search(text, relevance=relevance, limit=10)
        assert [h.note_id for h in hits] == [n for n, _ in want]
        assert [h.score for h in hits] == pytest.approx([s for _, s in want], abs=1e-4)


def test_nearest_chunks_match_exact_ranking_when_all_are_candidates(store: SqliteStore) -> None:
    embedder = DenseQueries(dim=DIM)
    owner = _corpus(store, embedder)
    exact = SemanticSearch(store, store.db, embedder, min_candidates=len(owner))
    pruned = SemanticSearch(store, store.db, embedder, oversample=8, min_candidates=0)
    query = embedder.embed_query("bravo")
    everything = exact.nearest(query, 60)
    assert [m.score for m in everything] == sorted((m.score for m in everything), reverse=True)
    # The 20 closest chunks sit far above the random ones: 480 candidates must hold them all.
    assert [m.rowid for m in pruned.nearest(query, 60)][:20] == [m.rowid for m in everything][:20]


def test_a_scoped_search_never_ranks_a_note_outside_the_scope(store: SqliteStore) -> None:
    embedder = DenseQueries(dim=DIM)
    inside = {n for n in range(NOTES) if n % 2 == 1}  # the closest notes (n % 3 == 0) are half outside
    owner = _corpus(store, embedder, inside)
    scope = {owner[r] for r in owner if int(store.get_note(owner[r]).title.split()[1]) in inside}
    search = SemanticSearch(store, store.db, embedder, oversample=4, min_candidates=0)
    unscoped = [h.note_id for h in search.search("alpha", relevance="loose", limit=10)]
    assert set(unscoped) - scope  # the best notes overall include outside ones: a leak would show
    # The scope holds 1,000 chunks, more than the 240 candidates of strict: the first stage prunes.
    assert sum(1 for n in owner.values() if n in scope) > search.candidates(60)
    for relevance in Relevance:
        hits = search.search("alpha", relevance=relevance, limit=10, note_ids=scope)
        assert {h.note_id for h in hits} <= scope
        want = _exact(store, embedder.embed_query("alpha"), relevance, scope)[:10]
        assert [h.note_id for h in hits] == [n for n, _ in want]


def test_sign_bits_pad_a_dimension_that_is_not_a_multiple_of_8(store: SqliteStore) -> None:
    assert binary_blob(np.array([1, -1, 0, 2, 0.5, -3, 1, 1, 1, -1], dtype=np.float32)) == bytes(
        [0b11011001, 0b00000001]
    )
    folder = store.create_folder("F", parent_id="", actor="user").id
    note = store.create_note(
        NoteDraft("walrus", "walrus tusks and ice floes", parent_id=folder), actor="user"
    )
    store.create_note(NoteDraft("other", "tax forms due in april", parent_id=folder), actor="user")
    embedder = FakeEmbedder(dim=12)
    indexer = Indexer(store, store.db, embedder)
    indexer.prepare()
    indexer.run_until_idle()
    hits = SemanticSearch(store, store.db, embedder).search("walrus tusks", relevance="loose")
    assert hits[0].note_id == note.id


def test_the_int8_copy_of_the_model_gets_its_own_strict_floor() -> None:
    # The copy scores a little lower than the packaged model, so strict is tuned for it apart;
    # any other model keeps the original's presets.
    from noted.embeddings import quantize
    from noted.search.semantic import PRESETS, Relevance, presets_for

    copy = presets_for(f"onnx:all-MiniLM-L6-v2-int8:8199be6f699a:99295fa8:{quantize.VARIANT}")
    original = presets_for("onnx:all-MiniLM-L6-v2-int8:8199be6f699a:99295fa8")
    assert copy is PRESETS["dynamic-int8"] and original is PRESETS["default"]
    assert copy[Relevance.STRICT].floor < original[Relevance.STRICT].floor
    assert copy[Relevance.NORMAL] == original[Relevance.NORMAL]


def test_a_process_that_searches_again_ranks_sign_bits_in_memory_alike(store: SqliteStore) -> None:
    embedder = DenseQueries(dim=DIM)
    _corpus(store, embedder)
    search = SemanticSearch(store, store.db, embedder, oversample=4, min_candidates=0)
    first = [(h.note_id, h.score) for h in search.search("alpha", relevance="loose", limit=20)]
    # The first search of a process ranks the bits in SQL; later ones in memory (not vacuous: the
    # bits are loaded only now, and both stages prune, so a wrong in-memory ranking would differ).
    assert search.tables._sign_bits._loaded is None
    again = [(h.note_id, h.score) for h in search.search("alpha", relevance="loose", limit=20)]
    assert search.tables._sign_bits._loaded is not None
    assert again == first
    for text in QUERIES:
        want = _exact(store, embedder.embed_query(text), Relevance.LOOSE)[:10]
        assert [h.note_id for h in search.search(text, relevance="loose", limit=10)] == [n for n, _ in want]


def test_a_search_after_the_index_changed_sees_the_new_chunks(store: SqliteStore) -> None:
    embedder = DenseQueries(dim=DIM)
    _corpus(store, embedder)
    search = SemanticSearch(store, store.db, embedder, oversample=4, min_candidates=0)
    for _ in range(2):  # the bits are in memory now
        search.search("delta", relevance="strict", limit=5)
    folder = store.create_folder("New", parent_id="", actor="user").id
    note = store.create_note(NoteDraft("new", "x" * 40, parent_id=folder), actor="user")
    vector = as_blob(embedder.embed_query("delta"))
    with store.db.write() as conn:
        search.tables.put_note(conn, note.id, [NewChunk(note.id, 0, "0", "", 0, 20, "new:0", vector)])
    # Bits read before the write do not hold the new chunk, so it would not be a candidate.
    hits = search.search("delta", relevance="strict", limit=5)
    assert hits and hits[0].note_id == note.id and hits[0].score == pytest.approx(1.0, abs=1e-4)


def test_an_empty_index_searched_again_finds_nothing_then_what_is_added(store: SqliteStore) -> None:
    embedder = DenseQueries(dim=DIM)
    indexer = Indexer(store, store.db, embedder)
    indexer.prepare()
    indexer.run_until_idle()
    search = SemanticSearch(store, store.db, embedder, oversample=4, min_candidates=0)
    for _ in range(2):  # the second search reads the index's (no) sign bits into memory
        assert search.search("alpha", relevance="loose") == []
    assert search.tables._sign_bits._loaded is not None
    _corpus(store, embedder)
    want = _exact(store, embedder.embed_query("alpha"), Relevance.LOOSE)[:5]
    assert [h.note_id for h in search.search("alpha", relevance="loose", limit=5)] == [n for n, _ in want]


@pytest.mark.parametrize("searches", [1, 2])
def test_two_wordings_find_what_each_finds_alone(store: SqliteStore, searches: int) -> None:
    embedder = DenseQueries(dim=DIM)
    _corpus(store, embedder)
    search = SemanticSearch(store, store.db, embedder, oversample=4, min_candidates=0)
    for _ in range(searches - 1):
        search.search("warm up", relevance="loose")
    # Each wording's own chunks, merged by their best score: what a search of each alone finds.
    alone: dict[str, float] = {}
    for text in ("alpha", "charlie"):
        for note_id, score in _exact(store, embedder.embed_query(text), Relevance.LOOSE):
            alone[note_id] = max(score, alone.get(note_id, -1.0))
    want = sorted(alone.items(), key=lambda item: -item[1])[:10]
    hits = search.search("alpha", also=("charlie",), relevance="loose", limit=10)
    assert [h.note_id for h in hits] == [n for n, _ in want]
    assert [h.score for h in hits] == pytest.approx([s for _, s in want], abs=1e-4)
    assert {n for n, _ in _exact(store, embedder.embed_query("charlie"), Relevance.LOOSE)[:3]} <= {
        h.note_id for h in hits
    }


def test_hamming_distances_without_numpy_2(monkeypatch: pytest.MonkeyPatch) -> None:
    from noted.indexer import sign_bits

    rng = np.random.default_rng(3)
    bits = rng.integers(0, 256, size=(50, 8), dtype=np.uint8)
    query = rng.integers(0, 256, size=8, dtype=np.uint8)
    want = [sum(bin(a ^ b).count("1") for a, b in zip(row, query, strict=True)) for row in bits.tolist()]
    assert sign_bits._distances(bits, query).tolist() == want
    monkeypatch.delattr(np, "bitwise_count", raising=False)
    assert sign_bits._distances(bits, query).tolist() == want

"""The indexer follows the change feed durably and semantic search reads what it stored."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

from noted.embeddings.fake import FakeEmbedder
from noted.errors import UnavailableError
from noted.indexer import engine
from noted.indexer.chunking import CHUNKING, Chunk, chunk_note, content_hash, outline_chunk
from noted.indexer.engine import Indexer, IndexProgress
from noted.indexer.requests import request_pending, request_rebuild
from noted.indexer.vectors import (
    META_CURSOR,
    META_MODEL,
    META_SCHEMA,
    SCHEMA_VERSION,
    NewChunk,
    as_blob,
)
from noted.models import NoteDraft, NotePatch
from noted.search.semantic import SemanticSearch
from noted.store.sqlite import SqliteStore
from noted.store.sqlite.db import get_meta, set_meta


class Crash(BaseException):
    """Stands for the process dying: not an ``Exception``, so nothing handles it."""


class Flaky(FakeEmbedder):
    """A fake model that fails on cue: raises on a poison word, or 'crashes' after N calls."""

    def __init__(self, *, crash_after: int | None = None, **kw: object) -> None:
        super().__init__(**kw)  # type: ignore[arg-type]
        self.crash_after = crash_after

    def embed_documents(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if self.crash_after is not None and self.calls >= self.crash_after:
            raise Crash()
        if any("POISON" in t for t in texts):
            self.calls += 1
            raise ValueError("the model cannot read this")
        return super().embed_documents(texts)


def _folder(store: SqliteStore, title: str = "F", parent: str = "") -> str:
    return store.create_folder(title, parent_id=parent, actor="user").id


def _add(store: SqliteStore, folder: str, title: str, body: str) -> str:
    return store.create_note(NoteDraft(title, body, parent_id=folder), actor="user").id


def _search(store: SqliteStore, embedder: FakeEmbedder, query: str, **kw: object) -> list[str]:
    hits = SemanticSearch(store, store.db, embedder).search(query, relevance="loose", **kw)  # type: ignore[arg-type]
    return [h.note_id for h in hits]


def test_first_run_scans_existing_notes_with_progress(store: SqliteStore) -> None:
    folder = _folder(store)
    ids = [_add(store, folder, f"note {i}", f"apples and pears number {i}") for i in range(10)]
    seen: list[IndexProgress] = []
    indexer = Indexer(store, store.db, FakeEmbedder(), batch_notes=3, on_progress=seen.append)
    indexer.prepare()
    indexer.run_until_idle()
    scans = [p for p in seen if p.phase == "scan"]
    assert [p.done for p in scans] == [3, 6, 9, 10] and {p.total for p in scans} == {10}
    assert scans[-1].chunks_per_second > 0
    assert set(ids) <= set(_search(store, indexer.embedder, "apples pears"))  # type: ignore[arg-type]
    assert store.get_meta(META_CURSOR) == str(store.latest_cursor())


def test_follows_new_and_changed_notes(store: SqliteStore) -> None:
    folder = _folder(store)
    embedder = FakeEmbedder()
    indexer = Indexer(store, store.db, embedder)
    indexer.prepare()
    indexer.run_until_idle()
    note = _add(store, folder, "Boat", "the sailing boat has a red sail")
    indexer.run_until_idle()
    assert _search(store, embedder, "sailing boat") == [note]
    store.update_note(note, NotePatch(body="a recipe for lemon cake"), actor="user")
    indexer.run_until_idle()
    assert _search(store, embedder, "lemon cake recipe") == [note]
    assert note not in _search(store, embedder, "sailing red sail")


def test_only_changed_chunks_are_embedded_again(store: SqliteStore) -> None:
    folder = _folder(store)
    body = "# One\nfirst section about rivers\n# Two\nsecond section about mountains\n"
    note = _add(store, folder, "Geo", body)
    embedder = FakeEmbedder()
    indexer = Indexer(store, store.db, embedder)
    indexer.prepare()
    indexer.run_until_idle()
    before = len(embedder.embedded)
    store.update_note(note, NotePatch(body=body.replace("mountains", "volcanoes")), actor="user")
    indexer.run_until_idle()
    again = embedder.embedded[before:]
    # The changed section's chunk, and the note's outline (its opening holds the change); the
    # unchanged first section is not embedded again.
    assert again == [
        "# Two\nsecond section about volcanoes",
        outline_chunk(note, "Geo", body.replace("mountains", "volcanoes"), embedder).text,  # type: ignore[union-attr]
    ]


def _sections(store: SqliteStore) -> list[str]:
    with store.db.read() as conn:
        return [r[0] for r in conn.execute("SELECT section FROM index_chunks ORDER BY note_id, idx")]


def test_new_chunking_rules_cut_every_note_again_without_embedding_again(store: SqliteStore) -> None:
    body = "intro\n# Rivers\n## Nile\nthe longest river\n"
    note = _add(store, _folder(store), "Geo", body)
    embedder = FakeEmbedder()
    indexer = Indexer(store, store.db, embedder)
    indexer.prepare()
    indexer.run_until_idle()
    assert _sections(store) == ["0", "1.1"]
    # The index as the rules before version 2 cut it: "# Rivers", a heading alone, was a chunk too.
    first, nile = chunk_note(note, "Geo", body, embedder)
    at = body.index("# Rivers")
    rivers = Chunk(note, 1, "1", "Rivers", at, at + 8, "# Rivers", content_hash("# Rivers"))
    old = [first, rivers, dataclasses.replace(nile, index=2)]
    vectors = embedder.embed_documents([c.text for c in old])
    with store.db.write() as conn:
        stored = [
            NewChunk(
                note, c.index, c.section_path, c.section_heading, c.start, c.end, c.content_hash, as_blob(v)
            )
            for c, v in zip(old, vectors, strict=True)
        ]
        indexer.tables.put_note(conn, note, stored)
        set_meta(conn, engine.META_CHUNKING, "1")
    assert _sections(store) == ["0", "1", "1.1"]
    before = len(embedder.embedded)
    again = Indexer(store, store.db, embedder)
    again.prepare()
    again.run_until_idle()
    assert _sections(store) == ["0", "1.1"]
    # The chunks left each had a vector: only the note's outline, which the old rules lacked, is new.
    assert embedder.embedded[before:] == [outline_chunk(note, "Geo", body, embedder).text]  # type: ignore[union-attr]
    assert store.get_meta(engine.META_CHUNKING) == CHUNKING


def test_trashed_conflicted_and_emptied_notes_lose_their_vectors(store: SqliteStore) -> None:
    folder = _folder(store)
    trashed = _add(store, folder, "t", "zebra stripes savanna")
    emptied = _add(store, folder, "e", "zebra stripes savanna")
    conflicted = _add(store, folder, "c", "zebra stripes savanna")
    embedder = FakeEmbedder()
    indexer = Indexer(store, store.db, embedder)
    indexer.prepare()
    indexer.run_until_idle()
    assert len(_search(store, embedder, "zebra stripes")) == 3
    store.trash_note(trashed, actor="user")
    store.update_note(emptied, NotePatch(title="", body="  "), actor="user")
    with store.db.write() as conn:  # conflicts come from sync; mark one as the sync layer would
        conn.execute("UPDATE notes SET is_conflict = 1 WHERE id = ?", (conflicted,))
    store.update_note(conflicted, NotePatch(todo_due=1), actor="sync")
    indexer.run_until_idle()
    assert indexer.tables.counts() == (0, 0)


def test_crash_mid_follow_redoes_the_notes_not_stored_and_skips_nothing(store: SqliteStore) -> None:
    folder = _folder(store)
    indexer = Indexer(store, store.db, FakeEmbedder())
    indexer.prepare()
    indexer.run_until_idle()
    cursor = store.get_meta(META_CURSOR)
    ids = [_add(store, folder, f"n{i}", f"giraffe number {i}") for i in range(6)]
    crashing = Indexer(store, store.db, Flaky(crash_after=1), batch_notes=2)
    crashing.prepare()
    with pytest.raises(Crash):
        crashing.run_until_idle()
    # The first batch is stored and the cursor passed it; nothing half-done was recorded as done.
    after = store.changes_since(int(store.get_meta(META_CURSOR) or 0)).changes
    assert int(store.get_meta(META_CURSOR) or 0) > int(cursor or 0)
    assert {c.item_id for c in after} == set(ids[2:])
    embedder = FakeEmbedder()
    resumed = Indexer(store, store.db, embedder)
    resumed.prepare()
    resumed.run_until_idle()
    assert set(_search(store, embedder, "giraffe number")) == set(ids)


def test_crash_mid_scan_resumes_after_the_last_stored_batch(store: SqliteStore) -> None:
    folder = _folder(store)
    for i in range(8):
        _add(store, folder, f"n{i}", f"okapi {i}")
    crashing = Indexer(store, store.db, Flaky(crash_after=2), batch_notes=2)
    crashing.prepare()
    with pytest.raises(Crash):
        crashing.run_until_idle()
    embedder = FakeEmbedder()
    resumed = Indexer(store, store.db, embedder, batch_notes=2)
    resumed.prepare()
    resumed.run_until_idle()
    assert len(embedder.embedded) == 4  # the 4 notes of the two stored batches were not redone
    assert resumed.tables.counts()[0] == 8


def test_a_failing_note_is_skipped_logged_and_retried_next_start(store: SqliteStore) -> None:
    folder = _folder(store)
    bad = _add(store, folder, "bad", "POISON pill")
    good = _add(store, folder, "good", "healthy walrus")
    flaky = Flaky()
    indexer = Indexer(store, store.db, flaky)
    indexer.prepare()
    indexer.run_until_idle()
    assert indexer.failed == 1
    assert _search(store, flaky, "healthy walrus") == [good]
    store.update_note(bad, NotePatch(body="cured pill"), actor="user")  # the feed would retry too…
    with store.db.write() as conn:  # …so take it back: only the failure list should bring it back
        conn.execute("UPDATE meta SET value = ? WHERE key = ?", (str(store.latest_cursor()), META_CURSOR))
    embedder = FakeEmbedder()
    restarted = Indexer(store, store.db, embedder)
    restarted.prepare()
    restarted.run_until_idle()
    assert _search(store, embedder, "cured pill") == [bad]


def test_a_change_of_model_rebuilds_the_index(store: SqliteStore) -> None:
    folder = _folder(store)
    note = _add(store, folder, "n", "quokka smiles")
    old = Indexer(store, store.db, FakeEmbedder(name="old", dim=32))
    old.prepare()
    old.run_until_idle()
    new_model = FakeEmbedder(name="new", dim=48)
    # Searching with the new model before the rebuild must refuse, not compare across models.
    with pytest.raises(UnavailableError, match="another model"):
        _search(store, new_model, "quokka")
    new = Indexer(store, store.db, new_model)
    new.prepare()
    new.run_until_idle()
    assert _search(store, new_model, "quokka smiles") == [note]
    assert new_model.embedded  # everything was embedded again by the new model


def _to_schema_1(store: SqliteStore, dim: int) -> None:
    """Turn the index into the first layout: its vectors in a sqlite-vec ``vec0`` float table."""
    with store.db.write() as conn:
        conn.execute(
            f"CREATE VIRTUAL TABLE index_vectors USING vec0(embedding float[{dim}] distance_metric=cosine);"
            "INSERT INTO index_vectors(rowid, embedding) SELECT rowid, embedding FROM index_embeddings;"
            "DROP TABLE index_embeddings; DROP TABLE index_bits;"
        )
        set_meta(conn, META_SCHEMA, "1")


def _tables(store: SqliteStore) -> set[str]:
    with store.db.read() as conn:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE name LIKE 'index_%'")}


def test_an_index_of_schema_1_is_moved_to_the_new_layout_without_embedding_again(
    store: SqliteStore,
) -> None:
    folder = _folder(store)
    note = _add(store, folder, "n", "narwhal tusk spiral")
    other = _add(store, folder, "m", "tax forms due in april")
    indexer = Indexer(store, store.db, FakeEmbedder())
    indexer.prepare()
    indexer.run_until_idle()
    _to_schema_1(store, 64)
    embedder = FakeEmbedder()
    # The old tables are not the ones the search reads: it must say why, not fail in SQL.
    with pytest.raises(UnavailableError, match="another version"):
        _search(store, embedder, "narwhal")
    upgraded = Indexer(store, store.db, embedder)
    upgraded.prepare()
    upgraded.run_until_idle()
    assert "index_vectors" not in _tables(store) and {"index_embeddings", "index_bits"} <= _tables(store)
    with store.db.read() as conn:
        assert get_meta(conn, META_SCHEMA) == str(SCHEMA_VERSION)
    assert embedder.calls == 0  # the vectors were carried over, not made again
    assert _search(store, embedder, "narwhal tusk spiral")[0] == note
    assert _search(store, embedder, "tax forms april")[0] == other


@pytest.mark.parametrize("schema", ["0", "1", "99"])
def test_an_index_of_an_unknown_or_broken_layout_is_rebuilt(store: SqliteStore, schema: str) -> None:
    folder = _folder(store)
    note = _add(store, folder, "n", "okapi stripes forest")
    indexer = Indexer(store, store.db, FakeEmbedder())
    indexer.prepare()
    indexer.run_until_idle()
    with store.db.write() as conn:  # a layout this code does not know: "1" without its vec0 table
        conn.execute("DROP TABLE index_bits")
        set_meta(conn, META_SCHEMA, schema)
    embedder = FakeEmbedder()
    with pytest.raises(UnavailableError, match="another version"):
        _search(store, embedder, "okapi")
    rebuilt = Indexer(store, store.db, embedder)
    rebuilt.prepare()
    rebuilt.run_until_idle()
    assert embedder.embedded  # made again from the notes
    assert _search(store, embedder, "okapi stripes forest") == [note]


def test_scope_filters_before_ranking(store: SqliteStore) -> None:
    inside = _folder(store, "Inside")
    outside = _folder(store, "Outside")
    near = _add(store, outside, "exact", "capybara hot spring bath")
    far = _add(store, inside, "vague", "a capybara somewhere")
    embedder = FakeEmbedder()
    indexer = Indexer(store, store.db, embedder)
    indexer.prepare()
    indexer.run_until_idle()
    # Unscoped, the best match is outside: the scoped search below could leak it.
    assert _search(store, embedder, "capybara hot spring bath")[0] == near
    scoped = _search(store, embedder, "capybara hot spring bath", note_ids=[far])
    assert scoped == [far]


def test_hits_name_their_section(store: SqliteStore) -> None:
    folder = _folder(store)
    body = "intro text\n# Animals\n## Birds\nthe puffin nests on cliffs\n## Fish\ncod and haddock\n"
    note = _add(store, folder, "Zoo", body)
    embedder = FakeEmbedder()
    indexer = Indexer(store, store.db, embedder)
    indexer.prepare()
    indexer.run_until_idle()
    hit = SemanticSearch(store, store.db, embedder).search("puffin nests cliffs", relevance="loose")[0]
    assert (hit.note_id, hit.section, hit.section_heading) == (note, "1.1", "Birds")
    assert "puffin" in body[hit.start : hit.end]


def test_search_before_any_index_says_why(store: SqliteStore) -> None:
    with pytest.raises(UnavailableError, match="not been built"):
        _search(store, FakeEmbedder(), "anything")


def test_a_crash_inside_a_long_note_loses_at_most_one_group_of_chunks(store: SqliteStore) -> None:
    folder = _folder(store)
    body = "\n\n".join(f"# Part {i}\n" + " ".join(f"w{i}x{j}" for j in range(6)) for i in range(200))
    note = _add(store, folder, "Manual", body)
    fresh = FakeEmbedder(max_tokens=8)
    Indexer(store, store.db, fresh).prepare()
    chunks = len(chunk_note(note, "Manual", body, fresh))
    assert chunks >= 150  # one note, far more chunks than a group
    # 6 calls of 16 chunks = 96 embedded: at least one group of 64 is committed before the crash.
    crashing = Indexer(store, store.db, Flaky(crash_after=6, max_tokens=8))
    with pytest.raises(Crash):
        crashing.run_until_idle()
    assert crashing.tables.counts() == (0, 0)  # the note itself is not stored half-done
    resumed_model = FakeEmbedder(max_tokens=8)
    resumed = Indexer(store, store.db, resumed_model)
    resumed.prepare()
    resumed.run_until_idle()
    # Before, nothing was kept until the whole batch was embedded: all of it was done again.
    assert len(resumed_model.embedded) <= chunks + 1 - 64
    assert _chunk_rows(store) == _fresh_rows(store, FakeEmbedder(max_tokens=8))


def _chunk_rows(store: SqliteStore) -> list[tuple[object, ...]]:
    with store.db.read() as conn:
        rows: list[tuple[object, ...]] = conn.execute(
            'SELECT c.note_id, c.idx, c.start, c."end", c.hash, e.embedding FROM index_chunks c '
            "JOIN index_embeddings e ON e.rowid = c.rowid ORDER BY c.note_id, c.idx"
        ).fetchall()
    return rows


def _fresh_rows(store: SqliteStore, embedder: FakeEmbedder) -> list[tuple[object, ...]]:
    """The chunk rows of an index built from nothing, for comparison."""
    with store.db.write() as conn:
        set_meta(conn, META_MODEL, None)
    indexer = Indexer(store, store.db, embedder)
    indexer.prepare()
    indexer.run_until_idle()
    return _chunk_rows(store)


def test_progress_is_committed_after_two_seconds_even_within_a_group(
    store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _folder(store)
    body = "\n\n".join(f"# Part {i}\n" + " ".join(f"w{i}x{j}" for j in range(6)) for i in range(40))
    _add(store, folder, "Manual", body)
    # A model so slow that every call takes the group's time: each call's work is committed.
    monkeypatch.setattr(engine, "GROUP_SECONDS", 0.0)
    crashing = Indexer(store, store.db, Flaky(crash_after=2, max_tokens=8))
    crashing.prepare()
    with pytest.raises(Crash):
        crashing.run_until_idle()
    resumed_model = FakeEmbedder(max_tokens=8)
    resumed = Indexer(store, store.db, resumed_model)
    resumed.prepare()
    resumed.run_until_idle()
    total = len(chunk_note("x", "Manual", body, resumed_model)) + 1  # and the note's outline
    assert len(resumed_model.embedded) == total - 2 * engine.EMBED_STEP  # the two calls were kept


def test_a_rebuild_request_is_honoured_before_the_next_batch(store: SqliteStore) -> None:
    folder = _folder(store)
    note = _add(store, folder, "n", "pelican beak pouch")
    embedder = FakeEmbedder()
    indexer = Indexer(store, store.db, embedder)
    indexer.prepare()
    indexer.run_until_idle()
    calls = embedder.calls
    request_rebuild(store.db, "a test")
    assert request_pending(store.db)
    indexer.run_until_idle()
    assert not request_pending(store.db)
    assert embedder.calls > calls  # embedded again from nothing
    assert _search(store, embedder, "pelican beak pouch") == [note]

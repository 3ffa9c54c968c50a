"""A note's outline (title, headings, opening) has one vector of its own, kept apart from its chunks,
filled in for an index made before it without a user step, and weighed by hybrid search."""

from __future__ import annotations

from pathlib import Path

import pytest

from noted.embeddings.fake import FakeEmbedder
from noted.indexer import engine
from noted.indexer.chunking import OUTLINE_INDEX, chunk_note, outline_chunk
from noted.indexer.engine import Indexer
from noted.models import NoteDraft, NotePatch
from noted.search import hybrid
from noted.search.finder import Finder
from noted.search.keyword import KeywordSearch
from noted.search.results import Mode
from noted.search.semantic import SemanticSearch
from noted.settings import Settings
from noted.store.sqlite import SqliteStore
from noted.store.sqlite.db import set_meta


def _add(store: SqliteStore, title: str, body: str) -> str:
    folder = store.list_folders()[0].id if store.list_folders() else store.create_folder("F", actor="user").id
    return store.create_note(NoteDraft(title, body, parent_id=folder), actor="user").id


def _index(store: SqliteStore, embedder: FakeEmbedder) -> None:
    indexer = Indexer(store, store.db, embedder)
    indexer.prepare()
    indexer.run_until_idle()


def _outlines(store: SqliteStore) -> dict[str, str]:
    with store.db.read() as conn:
        return {str(r[0]): str(r[1]) for r in conn.execute("SELECT note_id, hash FROM index_notes")}


def test_an_outline_holds_the_title_the_headings_in_order_and_the_opening() -> None:
    embedder = FakeEmbedder()
    body = "Soil first.\n# Compost\nheaps and bins\n## Worms\nred wigglers\n# Mulch\nbark\n"
    whole = outline_chunk("n", "Garden  notes", body, embedder)
    assert whole is not None
    assert whole.index == OUTLINE_INDEX
    assert whole.text == f"Garden notes\n\nCompost · Worms · Mulch\n\n{body.strip()}"
    # Cut to what the model takes, the title and headings first.
    short = outline_chunk("n", "Garden notes", body, FakeEmbedder(max_tokens=9))
    assert short is not None and short.text == "Garden notes\n\nCompost · Worms · Mulch\n\nSoil first."
    assert outline_chunk("n", " ", "\n\n", embedder) is None


def test_a_note_has_one_outline_vector_apart_from_its_chunks(store: SqliteStore) -> None:
    embedder = FakeEmbedder()
    body = "# Compost\nheaps and bins\n# Mulch\nbark chips\n"
    note = _add(store, "Garden", body)
    _index(store, embedder)
    expected = outline_chunk(note, "Garden", body, embedder)
    assert expected is not None
    assert _outlines(store) == {note: expected.content_hash}
    with store.db.read() as conn:
        indexes = [r[0] for r in conn.execute("SELECT idx FROM index_chunks WHERE note_id = ?", (note,))]
    assert indexes == list(range(len(chunk_note(note, "Garden", body, embedder))))  # no outline among them
    # A search never names the outline as a passage or a section.
    hits = SemanticSearch(store, store.db, embedder).search("Garden Compost Mulch", relevance="loose")
    assert [h.note_id for h in hits] == [note] and hits[0].section in {"1", "2"}
    # An edit makes a new outline; trashing the note drops it with its chunks.
    store.update_note(note, NotePatch(body=body + "# Leaves\nraked\n"), actor="user")
    _index(store, embedder)
    assert _outlines(store)[note] != expected.content_hash
    store.trash_note(note, actor="user")
    _index(store, embedder)
    assert _outlines(store) == {}


def test_an_index_made_before_outlines_gains_them_without_embedding_its_chunks(store: SqliteStore) -> None:
    embedder = FakeEmbedder()
    notes = {_add(store, "Garden", "# Compost\nheaps\n"), _add(store, "Kitchen", "# Bread\nflour water\n")}
    _index(store, embedder)
    # The index as the version before outlines left it: no table for them, chunking rules 2.
    with store.db.write() as conn:
        conn.execute("DROP TABLE index_notes")
        set_meta(conn, engine.META_CHUNKING, "2")
    semantic = SemanticSearch(store, store.db, embedder)
    vectors = semantic.query_vectors(["compost"])
    assert semantic.outlines(vectors, sorted(notes)) == {}  # searching before the indexer runs works
    before = len(embedder.embedded)
    _index(store, embedder)  # what the app's indexer does at start: no step by the person
    assert set(_outlines(store)) == notes
    again = embedder.embedded[before:]
    assert len(again) == 2 and all("\n\n" in text for text in again)  # the two outlines, no chunk
    assert set(semantic.outlines(vectors, sorted(notes))) == notes


def test_outlines_are_the_cosine_to_the_closest_query_vector(store: SqliteStore) -> None:
    embedder = FakeEmbedder(dim=256)
    garden = _add(store, "Garden", "# Compost\nheaps and bins\n# Mulch\nbark chips\n")
    kitchen = _add(store, "Kitchen", "# Bread\nflour and water\n")
    _index(store, embedder)
    semantic = SemanticSearch(store, store.db, embedder)
    close = semantic.outlines(semantic.query_vectors(["garden compost mulch"]), [garden, kitchen])
    assert close[garden] > 0.5 > close[kitchen]
    # Several wordings: each outline by the closest one.
    both = semantic.outlines(
        semantic.query_vectors(["garden compost mulch", "kitchen bread"]), [garden, kitchen]
    )
    assert both[garden] == pytest.approx(close[garden]) and both[kitchen] > 0.5
    assert (
        semantic.outlines([], [garden]) == {} and semantic.outlines(semantic.query_vectors(["x"]), []) == {}
    )


def test_hybrid_lifts_the_note_whose_outline_answers(
    store: SqliteStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "whole" is about the question as a whole (its title and headings hold every word), though no
    # one passage of it is as close as "part"'s one passage. Without the outline's share (checked
    # below by setting it to 0) "part" ranks first, so the test shows what the outline adds.
    embedder = FakeEmbedder(dim=256)
    whole = _add(
        store,
        "Compost",
        "# Heaps\nturn the heap weekly alpha beta gamma\n# Worms\nworms eat scraps delta epsilon\n",
    )
    part = _add(
        store, "Notes", "compost heaps worms and many other things zeta eta theta iota kappa lambda mu\n"
    )
    _index(store, embedder)
    semantic = SemanticSearch(store, store.db, embedder)
    finder = Finder(store, KeywordSearch(store), lambda: semantic, Settings(tmp_path / "c.toml", environ={}))

    def order() -> list[str]:
        hits = finder.search("compost heaps worms", mode=Mode.HYBRID, relevance="loose").hits
        return [h.note_id for h in hits]

    assert order() == [whole, part]
    monkeypatch.setattr(hybrid, "OUTLINE_WEIGHT", 0.0)
    assert order() == [part, whole]


def test_while_a_rescan_fills_outlines_a_note_not_reached_yet_is_not_sunk(
    store: SqliteStore, tmp_path: Path
) -> None:
    """A rescan for outlines (an index of an earlier version) reaches notes one batch at a time;
    hybrid search gave the notes not reached yet an outline of 0, so they sank under their equals
    until the rescan ended. Not vacuous: the two notes are the same, so their scores can differ
    only through the outline one of them lacks."""
    embedder = FakeEmbedder(dim=256)
    body = "# Heaps\nturn the heap weekly\n# Worms\nworms eat scraps\n"
    first, second = _add(store, "Compost", body), _add(store, "Compost", body)
    _index(store, embedder)
    with store.db.write() as conn:  # the rescan has stored the first note's outline, not yet the second's
        conn.execute("DELETE FROM index_notes WHERE note_id = ?", (second,))
    semantic = SemanticSearch(store, store.db, embedder)
    finder = Finder(store, KeywordSearch(store), lambda: semantic, Settings(tmp_path / "c.toml", environ={}))
    hits = finder.search("compost heaps worms", mode=Mode.HYBRID, relevance="loose").hits
    assert {h.note_id for h in hits} == {first, second}
    assert hits[0].score == pytest.approx(hits[1].score)

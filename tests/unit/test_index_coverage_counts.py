"""The counts ``noted index`` and search by meaning say (``N of M notes``) never exceed the notes.

``noted index`` waiting for another process said ``303 of 280 notes done`` (notes trashed since
still had chunks), and ``400 of 400 notes done`` while a rebuild was pending, when none of the
old vectors will be kept.
"""

from __future__ import annotations

from pathlib import Path

from noted.embeddings.fake import FakeEmbedder
from noted.indexer.coverage import index_coverage
from noted.indexer.engine import Indexer
from noted.models import NoteDraft
from noted.store.sqlite import SqliteStore


def _indexed(tmp_path: Path) -> tuple[SqliteStore, Indexer, list[str]]:
    store = SqliteStore.open(tmp_path / "notes.db", tmp_path / "resources")
    folder = store.create_folder("F", actor="user")
    ids = [
        store.create_note(NoteDraft(f"n{i}", f"walrus number {i}", parent_id=folder.id), actor="user").id
        for i in range(3)
    ]
    indexer = Indexer(store, store.db, FakeEmbedder())
    indexer.prepare()
    indexer.run_until_idle()
    assert index_coverage(store, store.db).complete  # the counts below start from a whole index
    return store, indexer, ids


def test_notes_trashed_since_indexed_do_not_count_past_the_total(tmp_path: Path) -> None:
    store, _, ids = _indexed(tmp_path)
    for note_id in ids[:2]:
        store.trash_note(note_id, actor="user")
    coverage = index_coverage(store, store.db)
    # Not vacuous: the two trashed notes still have their chunks (the indexer has not run).
    assert coverage.notes_total == 1 and not coverage.complete
    assert coverage.notes_indexed <= coverage.notes_total


def test_a_pending_rebuild_counts_no_note_as_indexed(tmp_path: Path) -> None:
    store, indexer, _ = _indexed(tmp_path)
    indexer.drop_vectors()  # what --rebuild (or a new model) does before the tables are remade
    coverage = index_coverage(store, store.db)
    assert coverage.notes_total == 3 and not coverage.complete
    assert coverage.notes_indexed == 0

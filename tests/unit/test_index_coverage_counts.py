"""The counts ``noted index`` and search by meaning say (``N of M notes``) never exceed the notes.

``noted index`` waiting for another process said ``303 of 280 notes done`` (notes trashed since
still had chunks), and ``400 of 400 notes done`` while a rebuild was pending, when none of the
old vectors will be kept.
"""

from __future__ import annotations

from pathlib import Path

from noted.embeddings.fake import FakeEmbedder
from noted.indexer.coverage import index_coverage, index_report
from noted.indexer.engine import Indexer
from noted.models import NoteDraft, NotePatch
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


def test_status_says_what_state_the_index_is_in_and_what_to_do(tmp_path: Path) -> None:
    store, indexer, ids = _indexed(tmp_path)
    assert index_report(store, store.db).state == "up to date"
    store.update_note(ids[0], NotePatch(body="walrus moved"), actor="user")
    assert index_report(store, store.db).state.startswith("behind by 1 change: run `noted index`")
    indexer.drop_vectors()  # a --rebuild killed before the model loaded: the old rows are still there
    report = index_report(store, store.db)
    assert (report.built, report.notes, report.chunks, report.behind_by_changes) == (False, 0, 0, 0)
    assert report.state == "not built: run `noted index` to build it"
    indexer.prepare()  # the tables remade, the first scan begun, then killed: nobody holds the lease
    report = index_report(store, store.db)
    assert report.first_scan_running and report.lease_holder is None
    assert report.state == "first scan stopped at 0 of 3 notes: run `noted index` to finish it"
    assert list(report.as_json())[0] == "state"  # said first, in text and --json

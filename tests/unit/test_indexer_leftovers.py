"""What the indexer leaves behind: vectors of notes gone, failures it has not retried yet."""

from __future__ import annotations

from noted.embeddings.fake import FakeEmbedder
from noted.indexer.engine import Indexer
from noted.models import NoteDraft
from noted.store.sqlite import SqliteStore


def _add(store: SqliteStore, folder: str, title: str, body: str) -> str:
    return store.create_note(NoteDraft(title, body, parent_id=folder), actor="user").id


def _indexed(indexer: Indexer) -> set[str]:
    with indexer.db.read() as conn:
        return {
            str(r[0])
            for r in conn.execute("SELECT note_id FROM index_chunks UNION SELECT note_id FROM index_notes")
        }


def test_a_rescan_drops_the_vectors_of_notes_gone_since_the_last_follow(store: SqliteStore) -> None:
    folder = store.create_folder("F", actor="user").id
    kept = _add(store, folder, "kept", "okapis live in the forest")
    trashed = _add(store, folder, "trashed", "zebras have stripes")
    erased = _add(store, folder, "erased", "giraffes have long necks")
    first = Indexer(store, store.db, FakeEmbedder())
    first.prepare()
    first.run_until_idle()
    assert _indexed(first) == {kept, trashed, erased}  # each note was indexed: their going can show
    # Nobody follows the feed meanwhile (the CLI, the app closed)…
    store.trash_note(erased, actor="user")
    store.empty_trash(actor="user")
    store.trash_note(trashed, actor="user")
    # …then notes.largeNoteChars changes: every note is cut again by a scan, which jumps the cursor
    # past the trash and the erasure; they must not stay in the index as if they were notes.
    rescan = Indexer(store, store.db, FakeEmbedder(), part_chars=50_000)
    rescan.prepare()
    rescan.run_until_idle()
    assert _indexed(rescan) == {kept}
    assert rescan.tables.counts()[0] == 1

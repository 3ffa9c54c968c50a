"""What the indexer leaves behind: vectors of notes gone, failures it has not retried yet."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

from noted.embeddings.fake import FakeEmbedder
from noted.indexer.engine import Indexer, IndexingStopped
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


class Poisoned(FakeEmbedder):
    """A model that cannot read a text holding POISON."""

    def embed_documents(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if any("POISON" in t for t in texts):
            raise ValueError("the model cannot read this")
        return super().embed_documents(texts)


def _failures(store: SqliteStore) -> set[str]:
    with store.db.read() as conn:
        return {str(r[0]) for r in conn.execute("SELECT note_id FROM index_failures")}


def test_a_failed_note_stays_to_retry_until_a_retry_stores_it(store: SqliteStore) -> None:
    folder = store.create_folder("F", actor="user").id
    bad = _add(store, folder, "bad", "POISON walrus")
    first = Indexer(store, store.db, Poisoned())
    first.prepare()
    first.run_until_idle()
    assert first.failed == 1 and _failures(store) == {bad}
    # The next start retries it first; stopped there (the app closed, Ctrl+C, a kill), the note
    # has neither vectors nor a failure, and the cursor is past it: nothing would retry it again.
    stopped = Indexer(store, store.db, FakeEmbedder())
    stopped.prepare()
    stopped.should_stop = lambda: True
    with pytest.raises(IndexingStopped):
        stopped.run_until_idle()
    assert _failures(store) == {bad}  # noted index status still counts it failed
    retried = Indexer(store, store.db, FakeEmbedder())
    retried.prepare()
    retried.run_until_idle()
    assert _indexed(retried) == {bad} and not _failures(store)

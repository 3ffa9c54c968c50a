"""What the indexer leaves behind: vectors of notes gone, failures it has not retried yet."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

from noted.embeddings.fake import FakeEmbedder
from noted.indexer.coverage import index_report
from noted.indexer.engine import Indexer, IndexingStopped
from noted.indexer.retries import RETRY_FIRST_SECONDS, Retries
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


class FailsAtFirst(FakeEmbedder):
    """A model that refuses a text holding FLAKY the first ``refusals`` times it is given one."""

    def __init__(self, refusals: int) -> None:
        super().__init__()
        self.refusals = refusals

    def embed_documents(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if self.refusals and any("FLAKY" in t for t in texts):
            self.refusals -= 1
            self.calls += 1
            raise ValueError("the model ran out of memory")
        return super().embed_documents(texts)


def test_a_running_indexer_tries_a_failed_note_again_backing_off(store: SqliteStore) -> None:
    folder = store.create_folder("F", actor="user").id
    bad = _add(store, folder, "bad", "FLAKY walrus")
    good = _add(store, folder, "good", "healthy okapi")
    # Each attempt at the note costs two refusals: its piece, then the note alone.
    model = FailsAtFirst(refusals=4)
    clock = [1000.0]
    indexer = Indexer(store, store.db, model)
    indexer.retries = Retries(clock=lambda: clock[0])
    indexer.prepare()
    indexer.run_until_idle()
    assert _indexed(indexer) == {good} and _failures(store) == {bad} and indexer.failed == 1
    assert index_report(store, store.db).failed_notes == 1  # noted index status says so meanwhile

    def idle_after(seconds: float) -> bool:
        """Move the clock on and step as the app does while idle: True when no model call was made."""
        clock[0] += seconds
        calls = model.calls
        indexer.run_until_idle()
        return model.calls == calls

    # Not a busy loop: nothing is tried before the wait is over.
    assert idle_after(0) and idle_after(RETRY_FIRST_SECONDS - 1)
    assert not idle_after(1)  # tried again, and refused again
    assert _failures(store) == {bad} and indexer.failed == 1
    assert idle_after(RETRY_FIRST_SECONDS)  # the wait doubled after a second failure
    assert not idle_after(RETRY_FIRST_SECONDS)
    # Stored while running, with no start in between: searchable by meaning, no longer failed.
    assert _indexed(indexer) == {good, bad} and not _failures(store) and indexer.failed == 0
    assert index_report(store, store.db).failed_notes == 0
    assert idle_after(100 * RETRY_FIRST_SECONDS)  # a stored note is not tried again

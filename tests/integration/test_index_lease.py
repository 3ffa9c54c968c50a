"""Only one process indexes a profile; when it dies another takes over."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

from noted.embeddings.fake import FakeEmbedder
from noted.indexer.engine import Indexer
from noted.indexer.lease import Lease
from noted.indexer.service import IndexerService
from noted.models import NoteDraft
from noted.search.semantic import SemanticSearch
from noted.store.sqlite import SqliteStore

_HOLDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from noted.embeddings.fake import FakeEmbedder
    from noted.indexer.engine import Indexer
    from noted.indexer.lease import Lease
    from noted.indexer.service import IndexerService
    from noted.store.sqlite import SqliteStore

    root = Path(sys.argv[1])
    store = SqliteStore.open(root / "notes.db", root / "resources")
    service = IndexerService(Indexer(store, store.db, FakeEmbedder()), Lease(store.db, ttl_ms=1500, label="holder"))
    service.start()
    while service.status.state not in ("idle", "indexing"):
        time.sleep(0.02)
    print("holding", flush=True)
    time.sleep(600)
    """
)


def _until(predicate: Callable[[], bool], seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.05)


def test_second_process_waits_then_takes_over_when_the_holder_dies(tmp_path: Path) -> None:
    store = SqliteStore.open(tmp_path / "notes.db", tmp_path / "resources")
    folder = store.create_folder("F", actor="user")
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "holding"
        embedder = FakeEmbedder()
        service = IndexerService(
            Indexer(store, store.db, embedder), Lease(store.db, ttl_ms=1500, label="tui")
        )
        service.start()
        _until(lambda: service.status.state == "standby")
        assert service.status.holder is not None and "holder" in service.status.holder

        # The holder indexes what this process writes.
        note = store.create_note(NoteDraft("n", "narwhal tusk", parent_id=folder.id), actor="user")
        search = SemanticSearch(store, store.db, FakeEmbedder())  # same model, its own log of texts
        _until(lambda: [h.note_id for h in search.search("narwhal tusk", relevance="loose")] == [note.id])
        assert embedder.embedded == []  # this process did none of that work

        holder.kill()
        holder.wait()
        _until(lambda: service.status.state in ("idle", "indexing"))
        later = store.create_note(NoteDraft("m", "manatee grazing", parent_id=folder.id), actor="user")
        service.notify()
        _until(lambda: [h.note_id for h in search.search("manatee grazing", relevance="loose")] == [later.id])
        assert any("manatee" in t for t in embedder.embedded)  # this process did that work
        service.stop()
        assert Lease(store.db).holder() is None  # given back on stop
    finally:
        holder.kill()
        store.close()

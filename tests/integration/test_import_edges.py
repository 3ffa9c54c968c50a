"""Import at its edges (issue 34): files that are not files, kills, and other writers waiting.

Before: a named pipe in the folder (as a note, or linked as an attachment) made ``noted import``
wait forever for a writer.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.polling import scaled

from noted.store.sqlite import SqliteStore
from noted.store.transfer import import_markdown
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

"""An import into a Markdown folder syncs its new files once, at the batch's end, and stays all or
nothing: a crash before that sync undoes the batch, even a file the crash left empty.

Real files, a real VaultStore, a real SIGKILL; ``os.fsync`` is counted on its way to the disk.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.support.cli import env_with_src
from tests.support.vaults import opened
from tests.unit.test_vault_kill_batches import KILL_AFTER

from noted.store.transfer import import_markdown


def _source(tmp_path: Path, count: int) -> Path:
    source = tmp_path / "src"
    source.mkdir()
    for i in range(count):
        (source / f"n{i}.md").write_text(f"# N{i}\n\nStep {i}.\n")
    return source


def test_an_import_of_many_new_notes_syncs_each_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each new file cost three fsyncs (its bytes, its move log line, its folder): 505 notes took
    27 s, 18 of them in fsync. Its line is what a crash needs before the rename; the bytes and the
    folder wait for the batch's end. Not vacuous: 40 notes gave 122 syncs."""
    vault, profile = tmp_path / "notes", tmp_path / "profile"
    vault.mkdir()
    source = _source(tmp_path, 40)
    with opened(vault, profile) as store:
        real, calls = os.fsync, []

        def counted(fd: int) -> None:
            calls.append(fd)
            real(fd)

        monkeypatch.setattr(os, "fsync", counted)
        report = import_markdown(store, source)
        monkeypatch.undo()
        assert report.notes_created == 40
        assert len(calls) <= 40 + 10
        assert len(list((vault / "src").glob("*.md"))) == 40


LOSE_THE_LAST_BYTES = """
real_kill = os.kill

def kill(pid, sig):
    open(done[-1], "wb").close()  # as a power cut before the batch's sync leaves its newest file
    real_kill(pid, sig)

os.kill = kill
from noted.store.transfer import import_markdown
import_markdown(store, Path(sys.argv[4]))
"""


def test_an_import_killed_before_its_sync_leaves_no_file_even_one_left_empty(tmp_path: Path) -> None:
    """The third new file's bytes lost (empty), then the kill: the next start took the empty file
    in as a note "n2", so the import was no longer all or nothing. Not vacuous: the first
    assertion checks the three files were there, one of them empty."""
    vault, profile = tmp_path / "notes", tmp_path / "profile"
    vault.mkdir()
    source = _source(tmp_path, 6)
    with opened(vault, profile):
        pass
    killed = subprocess.run(
        [sys.executable, "-c", KILL_AFTER + LOSE_THE_LAST_BYTES, str(vault), str(profile), "3", str(source)],
        env=env_with_src(),
        check=False,
    )
    assert killed.returncode == -9
    files = sorted((vault / "src").glob("*.md"))
    assert len(files) == 3 and sum(p.stat().st_size == 0 for p in files) == 1
    with opened(vault, profile) as store:
        assert store.list_notes() == [] and list((vault / "src").glob("*.md")) == []
    assert not (profile / "vault-moves.log").exists()

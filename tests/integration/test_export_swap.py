"""An export never deletes what it did not write, whatever appears in the target while it runs.

Before: the target was checked once, the export staged for seconds, then the old folder removed
whole, so a file saved into it meanwhile was gone (exit 0); empty folders the person made went
too, and a killed export left its hidden staging folder beside the target for good.

The tests write into the target at the moment the export has staged its files (by wrapping the
exporter's write step), and test the clearing of the old folder on its own for the instant
between the last check and the swap.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from filelock import FileLock

from noted.models import NoteDraft
from noted.store.sqlite import SqliteStore
from noted.store.transfer import exporter
from noted.store.transfer.common import TransferError
from noted.store.transfer.exporter import export_markdown
from noted.store.transfer.manifest import manifest_text
from noted.store.transfer.replace import _clear_old, sweep


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    s = SqliteStore.open(tmp_path / "notes.db", tmp_path / "resources")
    folder = s.create_folder("Work", actor="user")
    for i in range(5):
        s.create_note(NoteDraft(title=f"Note {i}", body=f"text {i}\n", parent_id=folder.id), actor="user")
    yield s
    s.close()


def _during_write(monkeypatch: pytest.MonkeyPatch, act: Callable[[], object]) -> None:
    """Run ``act`` once the export has written its staged files, before it swaps them in."""
    real = exporter._write

    def write(*args: Any) -> None:
        real(*args)
        act()

    monkeypatch.setattr(exporter, "_write", write)


def _beside(target: Path) -> list[str]:
    return sorted(p.name for p in target.parent.iterdir() if p.name.startswith(f".{target.name}."))


def test_a_file_saved_into_the_target_during_an_export_is_kept(
    store: SqliteStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "out"
    export_markdown(store, target)
    _during_write(monkeypatch, lambda: (target / "Work" / "mine.md").write_text("my words\n"))

    with pytest.raises(
        TransferError, match=r"appeared or changed while the export was written: Work/mine.md"
    ):
        export_markdown(store, target)

    assert (target / "Work" / "mine.md").read_text() == "my words\n"
    assert (target / "Work" / "Note 0.md").is_file() and _beside(target) == []


def test_a_file_changed_during_a_forced_export_is_kept(
    store: SqliteStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # --force agreed to delete mine.md as it was when the export began, not what it became.
    target = tmp_path / "out"
    export_markdown(store, target)
    (target / "mine.md").write_text("first\n")
    _during_write(monkeypatch, lambda: (target / "mine.md").write_text("second, longer\n"))
    with pytest.raises(TransferError, match="mine.md"):
        export_markdown(store, target, force=True)
    assert (target / "mine.md").read_text() == "second, longer\n"


def test_files_appearing_in_an_empty_target_during_an_export_are_kept(
    store: SqliteStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "out"
    target.mkdir()
    _during_write(monkeypatch, lambda: (target / "draft.txt").write_text("x"))
    with pytest.raises(TransferError, match="files appeared"):
        export_markdown(store, target)
    assert os.listdir(target) == ["draft.txt"] and _beside(target) == []


def test_empty_folders_the_person_made_stay(store: SqliteStore, tmp_path: Path) -> None:
    target = tmp_path / "out"
    export_markdown(store, target)
    (target / "Later" / "Empty").mkdir(parents=True)
    (target / "Work" / "Scratch").mkdir()

    export_markdown(store, target)

    assert (target / "Later" / "Empty").is_dir() and (target / "Work" / "Scratch").is_dir()
    assert (target / "Work" / "Note 4.md").is_file() and _beside(target) == []


def test_clearing_the_old_export_removes_only_what_its_manifest_vouches_for(tmp_path: Path) -> None:
    # The instant between the last check and the swap: whatever is in the old folder then and is
    # not vouched for goes back into the new export, or stays where it is when its place is taken.
    old, root = tmp_path / ".out.noted-old-1", tmp_path / "out"
    (old / "Work").mkdir(parents=True)
    (old / "Work" / "a.md").write_text("a\n")
    (old / "Work" / "edited.md").write_text("changed by the person\n")
    (old / "Work" / "new.md").write_text("saved at the last instant\n")
    (old / "Gone").mkdir()
    (old / "Gone" / "b.md").write_text("b\n")
    (old / "Mine").mkdir()
    files = {"Work/a.md": "a\n", "Work/edited.md": "as exported\n", "Gone/b.md": "b\n"}
    (old / ".noted-export.yml").write_text(
        manifest_text("2026-01-01T00:00:00Z", {k: _sha(v) for k, v in files.items()}, {})
    )
    (root / "Work").mkdir(parents=True)
    (root / "Work" / "edited.md").write_text("the new export's\n")

    left = _clear_old(old, root, {})

    assert (
        left == ["Work/edited.md"] and (old / "Work" / "edited.md").read_text() == "changed by the person\n"
    )
    assert (root / "Work" / "new.md").read_text() == "saved at the last instant\n"
    assert (root / "Mine").is_dir() and not (root / "Gone").exists()
    assert (root / "Work" / "edited.md").read_text() == "the new export's\n"


def _sha(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode()).hexdigest()


def test_a_killed_exports_staging_folder_is_swept_and_a_running_ones_is_not(
    store: SqliteStore, tmp_path: Path
) -> None:
    target = tmp_path / "out"
    stale = tmp_path / ".out.noted-export-dead01"
    (stale / "Work").mkdir(parents=True)
    (stale / "Work" / "Note 0.md").write_text("half written")
    live = tmp_path / ".out.noted-export-live01"
    live.mkdir()
    holder = FileLock(tmp_path / ".out.noted-live01.lock")
    holder.acquire()  # another export of this folder, still running
    try:
        export_markdown(store, target)
        assert not stale.exists() and live.is_dir()
    finally:
        holder.release()
    assert sweep(target) == [] and not live.exists()


def test_an_export_killed_between_its_two_renames_is_put_back(store: SqliteStore, tmp_path: Path) -> None:
    target = tmp_path / "out"
    export_markdown(store, target)
    (target / "mine.txt").write_text("mine")
    os.replace(target, tmp_path / ".out.noted-old-cut001")  # the kill: the target is gone

    with pytest.raises(TransferError, match="mine.txt"):  # the old export is back, with mine.txt
        export_markdown(store, target)
    assert (target / "mine.txt").read_text() == "mine" and _beside(target) == []


def test_a_title_of_100_emoji_exports_under_the_name_limit(store: SqliteStore, tmp_path: Path) -> None:
    # Before: "File name too long" (400 bytes) failed every export of the profile.
    title = "🦊" * 100
    folder = store.create_folder(title, actor="user")
    store.create_note(NoteDraft(title=title, body="fox\n", parent_id=folder.id), actor="user")
    target = tmp_path / ("é" * 120)  # a long target name too: the staging folder beside it fits

    export_markdown(store, target)

    names = [p.name for p in target.rglob("*")]
    assert max(len(n.encode()) for n in names) <= 255 and _beside(target) == []
    (written,) = [p for p in target.rglob("*.md") if p.read_text().endswith("fox\n")]
    assert (
        written.parent.name == "🦊" * 50
        and yaml.safe_load(written.read_text().split("---")[1])["title"] == title
    )


def test_a_new_export_folder_is_made_under_the_umask_not_with_its_parents_mode(
    store: SqliteStore, tmp_path: Path
) -> None:
    # The parent is world-writable and sticky, as /tmp is: the export took that mode, so any user
    # could plant a note file in it that a later import brings in.
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    old_mask = os.umask(0o022)
    try:
        export_markdown(store, shared / "out")
    finally:
        os.umask(old_mask)
    assert (shared / "out").stat().st_mode & 0o7777 == 0o755


def test_a_replaced_export_keeps_its_own_mode(store: SqliteStore, tmp_path: Path) -> None:
    target = tmp_path / "out"
    export_markdown(store, target)
    target.chmod(0o700)
    export_markdown(store, target)
    assert target.stat().st_mode & 0o7777 == 0o700

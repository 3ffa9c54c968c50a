"""What the Markdown-folder tests share: real ``git`` in a folder, a store opened on it, a note by title."""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator
from pathlib import Path

from noted.store.vault import VaultStore


def git(vault: Path, *args: str) -> str:
    """Run ``git`` in the folder (as a fixed author) and give its output; a failure raises."""
    done = subprocess.run(
        ["git", "-C", str(vault), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def committed(vault: Path, files: dict[str, str]) -> Path:
    """``vault`` made a git repository holding ``files`` (path in it → text), committed; the path of
    the first file."""
    for name, text in files.items():
        (vault / name).parent.mkdir(parents=True, exist_ok=True)
        (vault / name).write_text(text)
    git(vault, "init", "-q")
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "notes")
    return vault / next(iter(files))


def fresh(tmp_path: Path, files: dict[str, str]) -> tuple[Path, Path]:
    """A folder ``tmp_path/notes`` holding ``files`` (path in it → text), and its profile's path."""
    vault = tmp_path / "notes"
    vault.mkdir()
    for name, text in files.items():
        (vault / name).write_text(text)
    return vault, tmp_path / "profile"


@contextlib.contextmanager
def opened(vault: Path, profile: Path) -> Iterator[VaultStore]:
    store = VaultStore.open(vault, profile)
    try:
        yield store
    finally:
        store.close()


def by_title(store: VaultStore, title: str) -> str:
    """The id of the one live note with that title."""
    (meta,) = [m for m in store.list_notes() if m.title == title]
    return meta.id

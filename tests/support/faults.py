"""Real storage faults for tests: unwritable folders and files, a full disk, a damaged database.

Root ignores permission bits, so as root a path is made unwritable with the immutable flag
(``chattr +i``), which stops root too; as anyone else ``chmod`` does it. A full disk is a small
tmpfs (root only). Each helper skips the test, saying why, when the fault cannot be made here.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import apsw
import pytest

from noted.store.sqlite import SqliteStore

EXIT = {
    "bad input": 2,
    "folder not writable": 10,
    "database read-only": 11,
    "disk full": 12,
    "database damaged": 13,
    "database busy": 14,
}
"""The exit codes the README documents, written out so a test fails if one of them moves."""


@contextlib.contextmanager
def unwritable(path: Path) -> Iterator[None]:
    """``path`` (a file or folder) cannot be written, even by root, until the block ends."""
    if os.geteuid() != 0:
        mode = path.stat().st_mode
        path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
        try:
            yield
        finally:
            path.chmod(mode)
        return
    if shutil.which("chattr") is None:
        pytest.skip("running as root without chattr: cannot make a path unwritable for root")
    done = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"chattr +i is not supported here: {done.stderr.strip()}")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


@contextlib.contextmanager
def small_disk(path: Path, size: str = "4m") -> Iterator[Path]:
    """A tmpfs of ``size`` mounted at ``path`` (created), unmounted afterwards; root only."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root")
    path.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True, text=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def fill(folder: Path, leave: int = 0) -> Path:
    """Fill the disk holding ``folder`` up to ``leave`` free bytes with a filler file; return it."""
    filler = folder / "filler"
    free = shutil.disk_usage(folder).free
    with open(filler, "wb") as fh:
        with contextlib.suppress(OSError):
            remaining = max(free - leave, 0)
            while remaining > 0:
                chunk = min(remaining, 1 << 20)
                fh.write(b"\0" * chunk)
                fh.flush()
                remaining -= chunk
    return filler


def damage(db_path: Path, table: str = "notes") -> None:
    """Overwrite the root page of ``table`` with garbage: SQLite reports it as corrupt."""
    conn = apsw.Connection(str(db_path))
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute("SELECT rootpage FROM sqlite_schema WHERE name = ?", (table,)).fetchone()[0]
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    with open(db_path, "r+b") as fh:
        fh.seek((root - 1) * page_size)
        fh.write(b"\xde\xad\xbe\xef" * (page_size // 4))


@dataclass(frozen=True)
class State:
    """What a refused command must leave exactly as it was."""

    cursor: int
    notes: int
    notebooks: int
    resource_files: tuple[str, ...]


def state(profile: Path) -> State:
    """The profile's change-feed cursor, counts and attachment files, read through a real store."""
    store = SqliteStore.open(profile / "notes.db", profile / "resources")
    try:
        return State(
            store.latest_cursor(),
            len(store.list_notes()) + len(store.list_notes(trashed=True)),
            len(store.list_folders(include_trashed=True)),
            tuple(sorted(p.name for p in (profile / "resources").iterdir())),
        )
    finally:
        store.close()

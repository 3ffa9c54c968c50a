"""Putting a staged export in the target's place, deleting nothing noted did not write.

An export is written to a staging folder beside the target (``.NAME.noted-export-TOKEN``), held
by a lock file (``.NAME.noted-TOKEN.lock``) for as long as its export runs. Just before the swap
the target is checked again: a file that appeared, or changed, since the export began refuses the
export, and nothing moves. Otherwise the target is renamed aside (``.NAME.noted-old-TOKEN``), the
staged folder takes its name, and from the old folder only what its manifest vouches for (files
noted wrote, unchanged, and the folders that held them) and what ``--force`` was given for is
deleted. Whatever else is there (a file saved in the instant between the check and the rename, an
empty folder the person made) moves back into the new export, or, where the new export has a file
of that name, stays in the old folder, which the report then names.

A killed export leaves its staging (or old) folder with a lock file that no process holds; the next
export to the same target sweeps it: a staging folder is removed, an old folder is cleared as above.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from filelock import FileLock, Timeout

from noted.store.transfer.common import EXPORT_MARKER, TransferError
from noted.store.transfer.manifest import file_hash, recorded_files, refusal, unknown_files

_LOCK_WAIT_S = 30
"""A backstop: a sweep by another export of the same target holds this lock only for an instant."""

Fingerprint = tuple[int, int]
"""A file's size and modification time (ns): what ``--force`` agreed to delete."""


def fingerprint(path: Path) -> Fingerprint | None:
    try:
        st = path.lstat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


@dataclass
class Staging:
    """The staging folder of one export of ``root``, and the lock that says it is alive."""

    root: Path
    token: str = field(default_factory=lambda: secrets.token_hex(6))
    _lock: FileLock | None = None

    def _beside(self, kind: str) -> Path:
        return self.root.parent / f".{_short(self.root.name)}.noted-{kind}{self.token}"

    @property
    def stage(self) -> Path:
        return self._beside("export-")

    @property
    def old(self) -> Path:
        return self._beside("old-")

    @property
    def lock_path(self) -> Path:
        return self.root.parent / f".{_short(self.root.name)}.noted-{self.token}.lock"

    def begin(self) -> Path:
        """Take the lock, then make the staging folder: with the permissions of the export it
        replaces, else as any new folder is made (under the umask). Never the parent's: under
        ``/tmp`` (1777) that made the export writable by every user, who could plant notes in it.

        Raises:
            OSError: no file can be made beside the target. The lock file is made here first, as
                filelock retries forever on a folder that says "no such file" to a new file (``/proc``).
        """
        os.close(os.open(self.lock_path, os.O_WRONLY | os.O_CREAT, 0o644))
        self._lock = FileLock(self.lock_path)
        self._lock.acquire(timeout=_LOCK_WAIT_S)  # the name is this export's own: nobody else holds it long
        self.stage.mkdir()
        if self.root.is_dir():
            self.stage.chmod(self.root.stat().st_mode & 0o7777)
        return self.stage

    def end(self) -> None:
        """Remove the staging folder if it is still there, then the lock."""
        with contextlib.suppress(OSError):
            if self.stage.exists():
                shutil.rmtree(self.stage)
        with contextlib.suppress(OSError):
            self.lock_path.unlink()
        if self._lock is not None:
            self._lock.release()


def _short(name: str) -> str:
    """``name``, or for a long one its start and a hash, so the names beside it fit in 255 bytes."""
    data = name.encode("utf-8", "surrogateescape")
    if len(data) <= 120:
        return name
    return data[:100].decode("utf-8", "ignore") + "-" + hashlib.sha256(data).hexdigest()[:12]


def sweep(root: Path) -> list[str]:
    """Clear what killed exports of ``root`` left beside it; returns the old folders still holding
    files noted did not write (each kept, with the files it could not put back)."""
    pattern = re.compile(rf"\.{re.escape(_short(root.name))}\.noted-(export|old)-([0-9A-Za-z_]+)")
    kept: list[str] = []
    try:
        entries = sorted(root.parent.iterdir())
    except OSError:
        return kept
    for entry in entries:
        match = pattern.fullmatch(entry.name)
        if match is None or not entry.is_dir() or entry.is_symlink():
            continue
        staging = Staging(root, match.group(2))
        lock = FileLock(staging.lock_path)
        try:
            lock.acquire(timeout=0)
        except Timeout:
            continue  # another export of this folder is running
        try:
            if match.group(1) == "export":
                shutil.rmtree(entry, ignore_errors=True)
            elif not root.exists() and not root.is_symlink():
                os.replace(entry, root)  # killed between the two renames: put the old export back
            elif root.is_dir() and _clear_old(entry, root, {}):
                kept.append(str(entry))
            with contextlib.suppress(OSError):
                staging.lock_path.unlink()
        finally:
            lock.release()
    return kept


def swap_in(staging: Staging, agreed: dict[str, Fingerprint | None]) -> list[str]:
    """Put the staged export where ``staging.root`` is; returns what had to stay in the old folder.

    ``agreed``: the files ``--force`` was given for, as they were when the export began.

    Raises:
        TransferError: the target holds a file that appeared or changed since the export began;
            nothing was moved.
    """
    root, stage = staging.root, staging.stage
    if not root.exists():
        os.replace(stage, root)
        return []
    try:
        root.rmdir()
    except OSError:
        pass  # not empty: a previous export, replaced below
    else:
        os.replace(stage, root)
        return []
    if not (root / EXPORT_MARKER).is_file():
        raise TransferError(
            f"files appeared in {root} while the export was written; nothing was changed",
            hint="move them out, or export to a new folder",
        )
    new = [
        u for u in unknown_files(root) if u.path not in agreed or agreed[u.path] != fingerprint(root / u.path)
    ]
    if new:
        raise refusal(root, new, when="appeared or changed while the export was written")
    os.replace(root, staging.old)
    try:
        os.replace(stage, root)
    except OSError:
        os.replace(staging.old, root)
        raise
    return _clear_old(staging.old, root, agreed)


def _clear_old(old: Path, root: Path, agreed: dict[str, Fingerprint | None]) -> list[str]:
    """Delete from ``old`` what its manifest vouches for and what ``agreed`` names, unchanged; move
    the rest back under ``root`` where its place is free. Returns what had to stay in ``old``."""
    recorded = recorded_files(old)
    ours = {Path(rel).parent.as_posix() for rel in recorded}
    ours |= {p.as_posix() for rel in ours for p in Path(rel).parents}
    for dirpath, dirnames, filenames in os.walk(old, topdown=False):
        here = Path(dirpath)
        for name in filenames + [d for d in dirnames if (here / d).is_symlink()]:
            path = here / name
            rel = path.relative_to(old).as_posix()
            if _vouched(path, rel, recorded, agreed):
                path.unlink()
            else:
                _move_back(path, root / rel)
        if here != old:
            rel_dir = here.relative_to(old).as_posix()
            with contextlib.suppress(OSError):
                if rel_dir not in ours:
                    (root / rel_dir).mkdir(parents=True, exist_ok=True)  # a folder the person made
                here.rmdir()
    with contextlib.suppress(OSError):
        old.rmdir()
        return []
    return sorted(p.relative_to(old).as_posix() for p in old.rglob("*") if not p.is_dir() or p.is_symlink())


def _vouched(path: Path, rel: str, recorded: dict[str, str], agreed: dict[str, Fingerprint | None]) -> bool:
    if rel == EXPORT_MARKER:
        return True
    if rel in agreed and agreed[rel] == fingerprint(path):
        return True
    if rel not in recorded or path.is_symlink():
        return False
    try:
        return file_hash(path) == recorded[rel]
    except OSError:
        return False


def _move_back(path: Path, dest: Path) -> None:
    """Move ``path`` to ``dest`` unless something is there (never overwriting, even in a race)."""
    with contextlib.suppress(OSError):
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.link(path, dest, follow_symlinks=False)  # fails if dest exists
        path.unlink()

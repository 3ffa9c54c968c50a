"""Writing files so that they survive a crash: the bytes synced to disk before a rename puts them
in place, and the folder synced after it so the rename itself is kept."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def sync_dir(folder: Path) -> None:
    """fsync a folder, so a rename or an unlink in it survives a crash (best effort)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_aside(path: Path, data: bytes) -> Path:
    """Write ``data`` beside ``path`` (``NAME.partial``), synced to disk; returns that file, for
    the caller to rename into place when the time comes."""
    partial = path.with_name(path.name + ".partial")
    with open(partial, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    return partial


def write_file(path: Path, data: bytes) -> None:
    """Put ``data`` at ``path`` whole or not at all (written aside, then renamed)."""
    os.replace(write_aside(path, data), path)

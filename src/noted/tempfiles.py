"""Files written whole or not at all: the bytes go to a temporary file beside the target, synced,
then renamed over it (``replace_with``) or linked to a name that must be free (``write_new``).

A temporary file is named for the process writing it (``.noted-PID-XXXXXXXX.tmp``, short enough to
fit beside any name), so one left by a noted killed half way is known as such: the next write in
that folder removes it (``sweep``), while a live process's write under way is left alone. Nothing
else is ever removed.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
from pathlib import Path

TEMP_NAME = re.compile(r"\.noted-(\d+)-[0-9a-f]{8}\.tmp")
NO_LINKS = {errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS}
"""What ``os.link`` raises on a file system without hard links (FAT, some network shares): there
``write_new`` takes the name with an empty file first, then renames the bytes over it."""


def temp_beside(path: Path) -> Path:
    """A fresh temporary name beside ``path``, of this process (for ``sweep`` to know it)."""
    return path.with_name(f".noted-{os.getpid()}-{secrets.token_hex(4)}.tmp")


def sweep(folder: str, names: list[str]) -> None:
    """Remove the temporary files of noted processes gone (killed while writing) from ``folder``;
    ``names`` (its entries) keeps the others."""
    for name in list(names):
        match = TEMP_NAME.fullmatch(name)
        if match is None or not process_gone(int(match[1])):
            continue
        with contextlib.suppress(OSError):
            os.unlink(os.path.join(folder, name))
            names.remove(name)


def process_gone(pid: int) -> bool:
    """Whether no process ``pid`` runs (one that does, or another user's, is not ours to judge)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError):
        return False
    return False


def sweep_beside(path: Path) -> None:
    """``sweep`` the folder ``path`` is in (best effort)."""
    with contextlib.suppress(OSError):
        sweep(str(path.parent), os.listdir(path.parent))


def write_temp(path: Path, data: bytes, mode: int = 0o666) -> Path:
    """``data`` in a new temporary file beside ``path`` (created ``mode``, less the umask), synced
    to disk; stale ones there are swept first. The caller renames it into place or unlinks it."""
    sweep_beside(path)
    temp = temp_beside(path)
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return temp


def replace_with(path: Path, data: bytes, mode: int = 0o666) -> None:
    """Write ``data`` as the file ``path``, whole or not at all, over any file there (a new one is
    created ``mode``, less the umask)."""
    temp = write_temp(path, data, mode)
    try:
        os.replace(temp, path)
    finally:
        temp.unlink(missing_ok=True)


def write_new(path: Path, data: bytes) -> None:
    """Write ``data`` as the new file ``path``, whole or not at all, never over a file there.

    Raises:
        FileExistsError: ``path`` exists (nothing was written).
        OSError: it cannot be written.
    """
    temp = write_temp(path, data)
    try:
        try:
            os.link(temp, path)  # fails when ``path`` exists, unlike a rename
        except FileExistsError:
            raise
        except OSError as exc:
            if exc.errno not in NO_LINKS:
                raise
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL))  # the name taken, empty
            os.replace(temp, path)
    finally:
        temp.unlink(missing_ok=True)

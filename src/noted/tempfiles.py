"""Files written whole or not at all: the bytes go to a temporary file beside the target, synced,
then renamed over it (``replace_with``) or linked to a name that must be free (``write_new``).

A temporary file is named for the process writing it (``.noted-PID-XXXXXXXX.tmp``, short enough to
fit beside any name), so one left by a noted killed half way is known as such: the next write in
that folder removes it (``sweep``), while a live process's write under way is left alone. So do
the names older versions gave them, where they are unambiguously noted's (``OLD_TEMP_NAME``,
``OLD_PARTIAL``, ``OLD_TWIN``). Nothing else is ever removed.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
import time
from collections.abc import Collection
from pathlib import Path

TEMP_NAME = re.compile(r"\.noted-(\d+)-[0-9a-f]{8}\.tmp")
OLD_TEMP_NAME = re.compile(r"\..+\.noted-(\d+)\.tmp")
"""A Markdown folder's note written by a version before 2026-12-06 (``.NAME.noted-PID.tmp``)."""
OLD_PARTIAL = re.compile(r"\.noted-[0-9a-f]{8}\.partial|\..+\.noted-partial")
"""An attachment's copy saved from the app by a version before 2026-12-07: no process in the
name, so it is swept once ``OLD_AGE_S`` old (no write takes that long)."""
OLD_TWIN = re.compile(r"[a-z0-9_]{8}\.tmp")
"""After ``.NAME.``: the config file, MCP token and client tokens file (``OLD_TWINS``) written by a
version before 2026-12-07 (mkstemp's or 8 hex digits); swept once ``OLD_AGE_S`` old, beside those
files only (elsewhere such a name may be another program's)."""
OLD_TWINS = ("config.toml", "mcp-clients.json")
"""The profile's files an older version wrote through ``.NAME.XXXXXXXX.tmp``."""
OLD_AGE_S = 3600
NO_LINKS = {errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS}
"""What ``os.link`` raises on a file system without hard links (FAT, some network shares): there
``write_new`` takes the name with an empty file first, then renames the bytes over it."""


def temp_beside(path: Path) -> Path:
    """A fresh temporary name beside ``path``, of this process (for ``sweep`` to know it)."""
    return path.with_name(f".noted-{os.getpid()}-{secrets.token_hex(4)}.tmp")


def sweep(folder: str, names: list[str], *, twins: Collection[str] = ()) -> None:
    """Remove the temporary files of noted processes gone (killed while writing) from ``folder``,
    and those of ``twins`` (file names) by an older version's name; ``names`` (its entries)
    keeps the others."""
    for name in list(names):
        if not _left_behind(folder, name, twins):
            continue
        with contextlib.suppress(OSError):
            os.unlink(os.path.join(folder, name))
            names.remove(name)


def _left_behind(folder: str, name: str, twins: Collection[str]) -> bool:
    """Whether ``name`` is a temporary file of a noted write that will never finish."""
    match = TEMP_NAME.fullmatch(name) or OLD_TEMP_NAME.fullmatch(name)
    if match is not None:
        return process_gone(int(match[1]))
    twin = any(name.startswith(f".{t}.") and OLD_TWIN.fullmatch(name[len(t) + 2 :]) for t in twins)
    if not twin and OLD_PARTIAL.fullmatch(name) is None:
        return False
    try:
        info = os.lstat(os.path.join(folder, name))
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and time.time() - info.st_mtime > OLD_AGE_S


def process_gone(pid: int) -> bool:
    """Whether no process ``pid`` runs (one that does, or another user's, is not ours to judge)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError):
        return False
    return False


def sweep_beside(path: Path, *, twins: Collection[str] = ()) -> None:
    """``sweep`` the folder ``path`` is in (best effort)."""
    with contextlib.suppress(OSError):
        sweep(str(path.parent), os.listdir(path.parent), twins=twins)


def write_temp(path: Path, data: bytes, mode: int = 0o666, *, old_twin: bool = False) -> Path:
    """``data`` in a new temporary file beside ``path`` (created ``mode``, less the umask), synced
    to disk; stale ones there are swept first (``old_twin``: an older version's of this very file
    too, ``.NAME.XXXXXXXX.tmp``, for the files it wrote so). The caller renames it into place or
    unlinks it."""
    sweep_beside(path, twins=(path.name,) if old_twin else ())
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


def replace_with(path: Path, data: bytes, mode: int = 0o666, *, old_twin: bool = False) -> None:
    """Write ``data`` as the file ``path``, whole or not at all, over any file there (a new one is
    created ``mode``, less the umask; ``old_twin``: as ``write_temp``)."""
    temp = write_temp(path, data, mode, old_twin=old_twin)
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

"""Storage faults in words: apsw and ``OSError`` failures become ``StorageError``s that say what to do.

A full disk, a read-only database, a folder this user may not write, a damaged page: each is
something the person can act on, so each gets its own error class (and, on the command line, its
own exit code) instead of an "internal error" with a stack.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path

import apsw

from noted.errors import (
    DatabaseBusyError,
    DatabaseDamagedError,
    DatabaseReadOnlyError,
    StorageError,
    disk_full,
    folder_not_writable,
    os_fault,
)

NEARLY_FULL = 1 << 20
"""Free bytes below which an I/O error of the database is taken for a full disk."""


def damaged(db_path: Path, detail: str) -> DatabaseDamagedError:
    return DatabaseDamagedError(
        f"the notebook database {db_path} is damaged ({detail})",
        hint=(
            f"put back a backup copy of {db_path.name}, or rescue what can be read with "
            f"`sqlite3 {db_path} .recover | sqlite3 recovered.db`; a folder written by `noted export` "
            "can be read into a new profile with `noted --profile NEW import FOLDER`"
        ),
    )


def database_read_only(db_path: Path) -> DatabaseReadOnlyError:
    return DatabaseReadOnlyError(
        f"the notebook database {db_path} is read-only",
        hint="make the file writable for this user (chmod u+w; chattr -i) to change notes; reading still works",
    )


def busy(db_path: Path) -> DatabaseBusyError:
    return DatabaseBusyError(
        f"another process kept {db_path} locked too long",
        hint="wait for it (an import, an index build) to finish, then run the command again",
    )


def from_apsw(exc: apsw.Error, db_path: Path, *, read_only_folder: bool = False) -> StorageError | None:
    """The ``StorageError`` an apsw failure stands for, or None when it is not a storage fault."""
    if isinstance(exc, apsw.FullError):
        return disk_full(db_path.parent)
    if isinstance(exc, apsw.CorruptError | apsw.NotADBError):
        return damaged(db_path, "not a SQLite database" if isinstance(exc, apsw.NotADBError) else str(exc))
    if isinstance(exc, apsw.ReadOnlyError | apsw.CantOpenError):
        if read_only_folder or isinstance(exc, apsw.CantOpenError):
            return folder_not_writable(db_path.parent, "the database's journal files cannot be created there")
        return database_read_only(db_path)
    if isinstance(exc, apsw.BusyError | apsw.LockedError):
        return busy(db_path)
    if isinstance(exc, apsw.IOError):
        # SQLite reports a full disk met while growing its WAL index or writing the WAL as an
        # I/O error, not SQLITE_FULL; the free space tells the two apart.
        if nearly_full(db_path.parent):
            return disk_full(db_path.parent)
        return StorageError(
            f"cannot read or write {db_path}: {exc}",
            hint="check the disk (free space, a network or removable drive that went away)",
        )
    return None


def nearly_full(folder: Path) -> bool:
    """True when the disk holding ``folder`` has (almost) no free space left."""
    try:
        return shutil.disk_usage(folder).free < NEARLY_FULL
    except OSError:
        return False


def classify(exc: BaseException, db_path: Path | None = None) -> StorageError | None:
    """A storage fault behind ``exc`` (apsw or ``OSError``, possibly as its cause), else None."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, StorageError):
            return seen
        if isinstance(seen, apsw.Error) and db_path is not None:
            found = from_apsw(seen, db_path)
            if found is not None:
                return found
        if isinstance(seen, OSError):
            found = os_fault(seen)
            if found is not None:
                return found
        seen = seen.__cause__ or seen.__context__
    return None


@contextlib.contextmanager
def translated(db_path: Path, *, read_only_folder: bool = False) -> Iterator[None]:
    """Re-raise storage faults of apsw inside as ``StorageError``s (other errors pass unchanged)."""
    try:
        yield
    except apsw.Error as exc:
        found = from_apsw(exc, db_path, read_only_folder=read_only_folder)
        if found is None:
            raise
        raise found from exc

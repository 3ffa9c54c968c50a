"""The exit codes of ``noted``, one per kind of outcome a script may want to tell apart.

The scheme (documented in the README's "Exit codes"):

- ``0`` done; ``1`` refused (a note that is not there, nothing to restore…);
  ``2`` bad input or usage (argparse's own code too), invalid UTF-8 and settings included.
- ``3`` a save met a note that changed meanwhile (both sides kept); ``4`` ``noted ask`` declined
  a write the assistant asked for; ``5`` ``noted export`` wrote every note but left out attachments
  whose files are missing; ``6``–``9``: kept for other outcomes of single commands.
- ``10``–``19``: storage faults, one code each, so a script can react (free space, fix
  permissions, restore a backup) without parsing messages.
- ``70`` internal error (a bug; the stack is in ``noted.log``), as in BSD's ``sysexits.h``;
  ``75`` (EX_TEMPFAIL) an index another process has not brought up to date yet;
  ``130`` interrupted (Ctrl+C), as shells report SIGINT; ``143`` stopped by SIGTERM (``noted index``).
"""

from __future__ import annotations

import enum

from noted.errors import (
    BackendError,
    ConfigError,
    DatabaseBusyError,
    DatabaseDamagedError,
    DatabaseGoneError,
    DatabaseReadOnlyError,
    DiskFullError,
    FolderNotWritableError,
    InvalidInputError,
    NotedError,
    StorageError,
)


class ExitCode(enum.IntEnum):
    """What the process returns."""

    OK = 0
    REFUSED = 1
    BAD_INPUT = 2
    CONFLICT = 3
    """``noted edit`` met a note that changed meanwhile and kept both sides."""
    WRITE_DECLINED = 4
    """``noted ask``: a write the assistant asked for was declined (no terminal and no ``--yes``, or a no)."""
    EXPORT_INCOMPLETE = 5
    """``noted export`` wrote every note, but some attachments had no file to copy (each named)."""
    FOLDER_NOT_WRITABLE = 10
    DATABASE_READ_ONLY = 11
    DISK_FULL = 12
    DATABASE_DAMAGED = 13
    DATABASE_BUSY = 14
    STORAGE = 15
    """Another fault of the disk (an I/O error)."""
    BACKEND = 16
    """Joplin cannot be reached, answered with something unusable, or stopped answering partway
    (the message says what was written)."""
    DATABASE_GONE = 17
    """``notes.db`` was deleted or replaced while noted had it open (``noted index --watch``)."""
    INTERNAL = 70
    INDEX_NOT_UP_TO_DATE = 75
    """``noted index``: another process holds the lease and has not caught up yet (EX_TEMPFAIL)."""
    INTERRUPTED = 130
    TERMINATED = 143
    """Stopped by SIGTERM (``kill``, systemd, ``docker stop``; 128 + 15, as shells report it):
    ``noted index`` says what it left to index."""


_BY_CLASS: tuple[tuple[type[NotedError], ExitCode], ...] = (
    (InvalidInputError, ExitCode.BAD_INPUT),
    (ConfigError, ExitCode.BAD_INPUT),
    (FolderNotWritableError, ExitCode.FOLDER_NOT_WRITABLE),
    (DatabaseReadOnlyError, ExitCode.DATABASE_READ_ONLY),
    (DiskFullError, ExitCode.DISK_FULL),
    (DatabaseDamagedError, ExitCode.DATABASE_DAMAGED),
    (DatabaseBusyError, ExitCode.DATABASE_BUSY),
    (DatabaseGoneError, ExitCode.DATABASE_GONE),
    (StorageError, ExitCode.STORAGE),
    (BackendError, ExitCode.BACKEND),
)
"""Most specific first: the first class ``exc`` is an instance of decides."""


def exit_code(exc: NotedError) -> ExitCode:
    """The code that ends a command which failed with ``exc``."""
    for cls, code in _BY_CLASS:
        if isinstance(exc, cls):
            return code
    return ExitCode.REFUSED

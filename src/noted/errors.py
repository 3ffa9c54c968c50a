"""The one hierarchy of errors that noted raises on purpose.

Anything else that escapes is a bug: it is logged with its stack to the profile's log file and
shown to the person as a short "internal error" line.

    NotedError                    something the person (or the model) can act on
    ├── NotFoundError             an id or title that names nothing
    ├── InvalidInputError         bad arguments, a malformed query, an unreadable file
    │   ├── QueryError            a keyword-search query that does not parse, or is too long
    │   ├── NotUtf8Error          bytes that are not valid UTF-8 (argv, stdin, a file or its name)
    │   ├── TransferError         bad input to an import or export (store.transfer.common)
    │   ├── FileTypeError         an attachment whose bytes are not the type it claims (ops.filetypes)
    │   └── Skipped               a Markdown folder's file noted leaves alone, and why (store.vault.files)
    ├── ConflictError             an update based on a note that has changed since
    │   └── FileChanged           a file changed outside noted while noted wrote it (store.vault.files)
    ├── EncryptedError            a Joplin note that Joplin has not decrypted yet (store.joplin.base)
    ├── ProfileError              the profile folder or its database cannot be used
    │   └── StorageError          a fault of the disk or the database file (each its own exit code)
    │       ├── FolderNotWritableError   a folder of the profile that this user may not write
    │       ├── DatabaseReadOnlyError    notes.db opens only for reading
    │       ├── DiskFullError            no space left for the database or an attachment
    │       ├── DatabaseDamagedError     notes.db is corrupt (a damaged page, not SQLite)
    │       ├── DatabaseBusyError        another process held the database past the timeout
    │       └── DatabaseGoneError        notes.db was deleted or replaced while noted had it open
    ├── ConfigError               a setting that is unknown or has a bad value
    ├── UnavailableError          a capability that is off or cannot run here (index, extension)
    │   └── ModelAwayError        an embedding endpoint that cannot be reached or failed: waiting may help
    ├── BackendError              a backend (Joplin) that cannot be reached or answered badly
    │   ├── JoplinUnreachableError     a read gave up retrying, or a write was not sent (store.joplin.client)
    │   ├── CredentialsRefusedError    the backend answers but refuses noted's token: waiting cannot help
    │   ├── WriteOutcomeUnknownError   a write was sent and no answer came back: it may have landed
    │   └── PartlyDoneError            a change of several writes that stopped partway, saying what was done
    ├── ProviderError             a model's server that cannot be reached, refuses or fails (providers.errors)
    ├── BudgetExceeded            a conversation that would not fit the token budget (chat.budget)
    ├── LeaseLost                 another process took a lease from this one (store.sqlite.lease)
    └── ToolError                 a tool call the model can correct; its message is the tool's result (tools.base)

Stopping early is not an error, so it has its own root: an ``except NotedError`` that reports a
failure must never swallow a cancel.

    Interruption                  a request to stop, caught by the code that asked for it
    ├── Stopped                   the person cancelled while a chat answer was awaited (chat.waiting)
    ├── IndexingStopped           the indexer was asked to stop between batches (indexer.engine)
    ├── FollowStopped             a Markdown folder's watcher stopped in a batch (store.vault.follow)
    ├── _CallFailed               a change of an approved batch failed: the batch is undone (tools.registry)
    ├── WouldWrite                a write's rehearsal reached its first write: its checks passed (tools.rehearsal)
    ├── Signalled                 SIGHUP (the terminal closed) or SIGTERM ends the app, its text kept (ui.crash)
    └── _Stop                     an attachment flow ends quietly, having said why (ui.widgets.attachments)

``os_fault`` and ``write_fault`` name the ``StorageError`` behind a failed file operation (a full
disk, a folder that refuses writes), for the files outside the database: settings, tokens.

Every exception class defined in noted sits in one of these two trees, where it is drawn here
(``tests/unit/test_errors_tree.py`` checks both).
"""

from __future__ import annotations

import errno
from pathlib import Path

_FULL = frozenset({errno.ENOSPC, errno.EDQUOT})
_DENIED = frozenset({errno.EACCES, errno.EPERM, errno.EROFS})


class NotedError(Exception):
    """Base of every error noted raises on purpose; its message is meant for people."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        """What the person can do about it, when there is something to say."""

    def __str__(self) -> str:
        if self.hint:
            return f"{self.message} ({self.hint})"
        return self.message


class NotFoundError(NotedError):
    """An id or title that names nothing (or nothing visible in the current scope)."""


class InvalidInputError(NotedError):
    """Arguments that are malformed, out of range or contradictory."""


class QueryError(InvalidInputError):
    """A keyword-search query that does not parse: an unknown filter, a bad date…"""


class ConflictError(NotedError):
    """An update carried a base ``updated_time`` and the note has changed since."""

    def __init__(self, message: str, *, current_updated_time: int | None = None) -> None:
        super().__init__(message, hint="read the note again and redo the change")
        self.current_updated_time = current_updated_time


class EncryptedError(NotedError):
    """A note Joplin holds encrypted (end-to-end encryption, synced from another machine) and has
    not decrypted yet: its title and body cannot be read, and Joplin refuses to change it."""

    def __init__(self, message: str, *, hint: str | None = None, parent_id: str = "") -> None:
        super().__init__(message, hint=hint)
        self.parent_id = parent_id
        """The note's notebook (Joplin keeps it in the clear): a caller limited to some notebooks
        is told of the note only when it may see that one."""


class ProfileError(NotedError):
    """The profile folder or its database cannot be opened or used."""


class NotUtf8Error(InvalidInputError):
    """Bytes that should be text and are not valid UTF-8: the message says where they were."""


class StorageError(ProfileError):
    """A fault of the storage under the profile; the front ends give each kind its own exit code."""


class FolderNotWritableError(StorageError):
    """A folder of the profile (the profile itself, ``resources/``) that cannot be written."""


class DatabaseReadOnlyError(StorageError):
    """``notes.db`` can be read but not written (its mode, an immutable flag, a read-only mount)."""


class DiskFullError(StorageError):
    """The disk (or the quota) has no room for the database or an attachment file."""


class DatabaseDamagedError(StorageError):
    """``notes.db`` is damaged: a corrupt page, or not a SQLite database at all."""


class DatabaseBusyError(StorageError):
    """Another process kept the database locked for longer than the busy timeout."""


class DatabaseGoneError(StorageError):
    """The database file was deleted, or another put in its place, while noted had it open: what
    it writes would go to a file nobody can open again, so it stops instead."""


class ConfigError(NotedError):
    """A setting that is unknown or has a value outside what it allows."""


class UnavailableError(NotedError):
    """A capability that is switched off or cannot run on this machine."""


class ModelAwayError(UnavailableError):
    """The embedding endpoint cannot be reached, timed out or failed on its side: no text's fault,
    so the indexer waits for it rather than counting the notes it was given as failed."""


class BackendError(NotedError):
    """A storage backend that cannot be reached or answered with something unusable."""


class CredentialsRefusedError(BackendError):
    """The backend answers but refuses noted's credentials (Joplin's API token): unlike an outage,
    waiting for it cannot help, so whatever waits for the backend gives up and says so."""


class WriteOutcomeUnknownError(BackendError):
    """A write reached the backend (Joplin) but no answer came back: it may or may not have been
    applied. Whoever reports it must not call it a failure, nor send the write again unasked."""


class PartlyDoneError(BackendError):
    """A change made of several writes, to a backend without transactions (Joplin), that failed
    after some had landed: the message says what was written, so that a retry does not redo it."""

    def __init__(self, done: str, failed: str, cause: NotedError, *, hint: str | None = None) -> None:
        super().__init__(f"{done}, but {failed}: {cause.message}", hint=hint or cause.hint)


class Interruption(Exception):
    """Not an error: a request to stop, raised to unwind and caught by the code that asked for it."""


def disk_full(where: Path) -> DiskFullError:
    """No room left on the disk holding ``where``."""
    return DiskFullError(
        f"the disk holding {where} is full", hint="free some space there, then run the command again"
    )


def database_gone(path: Path) -> DatabaseGoneError:
    """``path`` is no longer the database file that was opened."""
    return DatabaseGoneError(
        f"{path} was deleted or replaced while in use; stopped, writing nothing more to it",
        hint="run the command again to use what is there now",
    )


def folder_not_writable(folder: Path, detail: str) -> FolderNotWritableError:
    """``folder`` refuses writes (its mode, an immutable flag, a read-only mount)."""
    return FolderNotWritableError(
        f"cannot write in the folder {folder} ({detail})",
        hint="make it writable for this user, or pick another profile with --profile DIR; reading still works",
    )


def os_fault(exc: OSError, path: Path | None = None) -> StorageError | None:
    """The ``StorageError`` a failed file operation stands for (a full disk, a folder that refuses
    writes), or None when it is neither. ``path``: the file it was on, when ``exc`` names none (a
    ``write`` does not)."""
    where = Path(exc.filename) if exc.filename else path
    if exc.errno in _FULL:
        return disk_full(where.parent if where is not None else Path("."))
    if exc.errno in _DENIED and where is not None:
        return folder_not_writable(where if where.is_dir() else where.parent, exc.strerror or str(exc))
    return None


def write_fault(exc: OSError, path: Path) -> StorageError:
    """What a failed write of the file ``path`` (a setting, a token) means, with its own exit code."""
    return os_fault(exc, path) or StorageError(
        f"cannot write {path}: {exc.strerror or exc}", hint="check the disk, then run the command again"
    )

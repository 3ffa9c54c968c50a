"""Storage faults named for people, whichever backend raised them.

A fault that escapes untranslated (a full disk, a locked or damaged database file) reaches the
CLI's last handler, which asks ``classify`` for one line and an exit code. The backends' own
exceptions are known here so the front ends never import a backend or apsw to recognise them.
"""

from __future__ import annotations

from pathlib import Path

from noted.errors import StorageError
from noted.store.sqlite.faults import classify as sqlite_fault


def classify(exc: BaseException, db_path: Path | None = None) -> StorageError | None:
    """The storage fault behind ``exc`` (``db_path``: the file it was on), else None.

    Both backends keep their local state in SQLite (the Joplin store in its sidecar), so apsw's
    and ``OSError``'s faults are the ones to recognise.
    """
    return sqlite_fault(exc, db_path)

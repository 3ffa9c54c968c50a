"""Attachment files written before their rows commit, listed so that a killed writer's are found.

An attachment's file is in place before its row commits (a row never lacks its file), so a kill
inside a long transaction (an import writes every attachment first, then thousands of notes, then
commits) leaves files that no row names. Each process lists the names it writes in a file of the
profile's ``.pending`` folder, ``TOKEN``, and holds ``TOKEN.lock`` while its store is open. Opening the store
sweeps every list whose lock no process holds: a listed file is removed when no row names it, and
its ``.partial`` twin unless a step its commit owes still names it (``noted.store.sqlite.steps``).
A live process's files are never touched, and a file that committed stays, whatever the list says.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import threading
from collections.abc import Callable
from pathlib import Path

from filelock import FileLock, Timeout

LOCK_SUFFIX = ".lock"
"""A list ``TOKEN`` is held through the lock file ``TOKEN.lock`` beside it."""


class PendingFiles:
    """This process's list of attachment files written in ``folder``, kept in ``lists``."""

    def __init__(self, folder: Path, lists: Path) -> None:
        self.folder = folder
        self.lists = lists
        self._journal = lists / secrets.token_hex(6)
        self._lock: FileLock | None = None
        self._mutex = threading.Lock()

    @property
    def name(self) -> str:
        """This process's list's name, its token."""
        return self._journal.name

    def token(self) -> str:
        """This process's token, its list held (locked) from now until ``close``: whatever names
        the token is known to be a live writer's."""
        with self._mutex:
            self._hold()
        return self._journal.name

    def _hold(self) -> None:
        if self._lock is None:
            self._journal.parent.mkdir(exist_ok=True)
            self._lock = FileLock(f"{self._journal}{LOCK_SUFFIX}", thread_local=False)
            self._lock.acquire()

    def writing(self, name: str) -> None:
        """Record, durably, that ``folder/name`` is about to be written."""
        with self._mutex:
            self._hold()
            with open(self._journal, "a", encoding="utf-8") as handle:
                handle.write(name + "\n")
                handle.flush()
                os.fsync(handle.fileno())

    def close(self, orphan: Callable[[str], bool]) -> None:
        """Clear this process's own list (nothing more is written through it) and let go of it."""
        with self._mutex:
            if self._lock is None:
                return
            _clear(self._journal, self.folder, orphan)
            self._lock.release()
            self._lock = None


def sweep(folder: Path, lists: Path, orphan: Callable[[str], bool]) -> None:
    """Clear the lists in ``lists`` of writers that are gone: their files in ``folder`` that
    ``orphan`` says no row names are removed."""
    try:
        journals = [p for p in lists.iterdir() if not p.name.endswith(LOCK_SUFFIX)]
    except OSError:
        return  # no list at all, the usual case
    for journal in journals:
        lock = FileLock(f"{journal}{LOCK_SUFFIX}", thread_local=False)
        try:
            lock.acquire(timeout=0)
        except (Timeout, OSError):
            continue  # a live writer's, or a folder this user may not lock
        try:
            _clear(journal, folder, orphan)
        finally:
            lock.release()


def _clear(journal: Path, folder: Path, orphan: Callable[[str], bool]) -> None:
    """Remove from ``folder`` what ``journal`` lists that nothing committed names (``orphan`` is
    asked about each name and its ``.partial`` twin), then the list and its lock."""
    try:
        names = journal.read_text(encoding="utf-8").split()
    except OSError:
        names = []
    for name in dict.fromkeys(names):
        if "/" in name or name.startswith("."):
            continue  # not a name noted writes: never follow it anywhere
        with contextlib.suppress(OSError):
            if orphan(f"{name}.partial"):
                (folder / f"{name}.partial").unlink(missing_ok=True)
            if orphan(name):
                (folder / name).unlink(missing_ok=True)
    with contextlib.suppress(OSError):
        journal.unlink(missing_ok=True)
        Path(f"{journal}{LOCK_SUFFIX}").unlink(missing_ok=True)

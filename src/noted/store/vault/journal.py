"""How to undo the file changes of a batch under way, and the folders it still has to sync.

A batch (``VaultStore.batch``) writes many files: each file's bytes are synced before the rename
that puts it in place, and the move log line that lets a crash undo it is synced before that
rename too (``noted.store.vault.moves``), but the folders holding the renamed files are synced once
each at the batch's end, before its log goes, rather than once a file: a crash before then undoes
the whole batch from the log, so a rename the disk did not keep has nothing left to undo. A file
the batch makes (none was there) is not synced before its rename either, but with all the others
at the end (``os.sync``): a crash before then undoes it, even one it left empty
(``noted.store.vault.moves``). A file the batch replaces is synced first, as its old bytes are.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from noted.store.durable import sync_dir
from noted.store.vault.moves import MoveLog

# ``os.sync`` waits for the data to land on Linux only (POSIX lets it return before: macOS does), so
# elsewhere a batch's new file is synced before its rename, as any other file.
SYNC_AT_END = sys.platform.startswith("linux")


@dataclass
class Plan:
    """The notes a journal will make (``noted.store.vault.notes.Notes.plan_notes``)."""

    paths: dict[str, str] = field(default_factory=dict)
    """Note id → the path its file will have."""
    linkers: dict[str, set[str]] = field(default_factory=dict)
    """Note id → the files of the notes that link it at that path, written before it was made."""


class FileJournal:
    """This thread's journal: the undo steps of the block under way and the folders it changed."""

    def __init__(self, moves: MoveLog | None) -> None:
        self.moves = moves
        self._local = threading.local()

    @property
    def active(self) -> bool:
        return getattr(self._local, "undo", None) is not None

    @contextlib.contextmanager
    def run(self) -> Iterator[None]:
        """When the block raises, put the files and folders it wrote or moved back as they were."""
        if self.active:
            yield
            return
        undo: list[Callable[[], object]] = []
        self._local.undo, self._local.dirs, self._local.files = undo, set(), False
        self._local.names, self._local.planned = {}, Plan()
        try:
            yield
        except BaseException:
            self._local.undo = None
            for step in reversed(undo):
                with contextlib.suppress(OSError):
                    step()
            raise
        finally:
            self._local.undo = self._local.names = self._local.planned = None
            dirs, self._local.dirs = self._local.dirs, None
            if self._local.files:  # one sync of every file system rather than one a file
                os.sync()
            for folder in sorted(dirs):  # (before the log goes: see the module's docstring)
                sync_dir(folder)
            if self.moves is not None:
                self.moves.close()  # (before the rows commit: ``noted.store.vault.moves``)

    def names(self, folder: str, listed: Callable[[], set[str]]) -> set[str]:
        """The names in ``folder`` (casefolded): ``listed()`` once per journal, then kept up to
        date by the vault's own changes (``Vault.free_name``, ``Vault.move``); outside a journal,
        ``listed()`` each time. A batch holds the write lock: no other noted names files meanwhile."""
        cache: dict[str, set[str]] | None = getattr(self._local, "names", None)
        if cache is None:
            return listed()
        if folder not in cache:
            cache[folder] = listed()
        return cache[folder]

    def forget_names(self) -> None:
        """Another program changed a folder (``FileChanged``): list each again when a name is wanted."""
        cache: dict[str, set[str]] | None = getattr(self._local, "names", None)
        if cache is not None:
            cache.clear()

    def moved_names(self, old: str, new: str, *, folder: bool) -> None:
        """The names kept (``names``) after the vault moved ``old`` to ``new``."""
        cache: dict[str, set[str]] | None = getattr(self._local, "names", None)
        if folder:  # the names below it are elsewhere: listed again when wanted
            self.forget_names()
        elif cache is not None:
            self.took(new)
            parent, _, name = old.rpartition("/")
            cache.get(parent, set()).discard(name.casefold())

    def took(self, rel: str) -> None:
        """The vault made the file ``rel``: its name is taken in the names kept (``names``)."""
        cache: dict[str, set[str]] | None = getattr(self._local, "names", None)
        parent, _, name = rel.rpartition("/")
        if cache is not None and parent in cache:
            cache[parent].add(name.casefold())

    @property
    def planned(self) -> Plan | None:
        """The notes this journal will make; None outside a journal."""
        planned: Plan | None = getattr(self._local, "planned", None)
        return planned

    def remember(self, step: Callable[[], object]) -> None:
        """An undo step for the change just made (none outside a journal)."""
        undo = getattr(self._local, "undo", None)
        if undo is not None:
            undo.append(step)

    def remove_dir(self, folder: Path) -> bool:
        """Remove ``folder`` when it is empty (False when it is not, or is gone). Inside a journal it
        is written down first and made again when the block fails (before the moves out of it are
        put back, which need it), as the next start after a crash does (``MoveLog.undo``)."""
        with contextlib.suppress(OSError):
            if os.listdir(folder):
                return False
            if self.moves is not None and self.active:
                self.moves.add_removed(folder)
            folder.rmdir()
            self.remember(lambda: folder.mkdir(exist_ok=True))
            return True
        return False

    def sync_dir(self, folder: Path, *, with_files: bool = False) -> None:
        """Sync ``folder`` now, or, inside a journal, once at its end (``with_files``: and the
        files written there that were not synced yet)."""
        dirs = getattr(self._local, "dirs", None)
        if dirs is None:
            sync_dir(folder)
        else:
            dirs.add(folder)
            self._local.files |= with_files

"""The file moves of a batch under way, written down before each is made, so that a batch stopped
half way by a crash (a kill, a power cut) is undone at the next start as its rows were.

A batch (``VaultStore.batch``) holds the mirror's write lock from its start and ends its
``Vault.journal`` (which closes this log) before its transaction commits: a log still there when
the lock is next taken belongs to a batch whose rows SQLite rolled back, so its moves are undone,
last first, before the folder is scanned. (A crash in the short step between the two leaves the
moves made, and the scan follows them: ``follow.trashed_copy``, ``Follower._moved``.)
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

from noted.store.durable import sync_dir

log = logging.getLogger(__name__)


class MoveLog:
    """``path``: one line per move, ``[from, to]`` (absolute paths), made durable before the move."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: int | None = None

    def add(self, source: Path, target: Path) -> None:
        """Write down a move about to be made."""
        if self._file is None:
            self._file = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            sync_dir(self.path.parent)
        os.write(self._file, (json.dumps([str(source), str(target)]) + "\n").encode("utf-8"))
        os.fsync(self._file)

    def close(self) -> None:
        """The batch is over (done, or undone by the journal): its log goes."""
        if self._file is None:
            return
        os.close(self._file)
        self._file = None
        self.path.unlink(missing_ok=True)
        sync_dir(self.path.parent)

    def pending(self) -> bool:
        return self._file is None and self.path.exists()

    def undo(self) -> list[Path]:
        """Put back each move of a batch that did not finish, last first; the places they had been
        moved to (for the caller to tidy up). Call it holding the mirror's write lock."""
        if not self.pending():
            return []
        try:
            lines = self.path.read_text("utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            lines = []
        moved: list[Path] = []
        for line in reversed(lines):
            try:
                source, target = (Path(p) for p in json.loads(line))
            except (ValueError, TypeError):
                continue  # a line the crash cut short: its move was not made
            if os.path.lexists(target) and not os.path.lexists(source):
                try:
                    source.parent.mkdir(parents=True, exist_ok=True)
                    os.rename(target, source)
                except OSError as exc:  # left where it is: the scan follows it
                    log.warning("could not move %s back to %s: %s", target, source, exc)
                    continue
                moved.append(target)
        if moved:
            log.info("undid %d file moves of a batch that a crash stopped half way", len(moved))
        self.path.unlink(missing_ok=True)
        sync_dir(self.path.parent)
        return moved

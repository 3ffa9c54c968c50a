"""The file changes of a batch under way, written down before each is made, so that a batch of
several notes stopped half way by a crash (a kill, a power cut) is undone at the next start as its
rows were: its moves, and its replaces (a tag merged, renamed or deleted in each note carrying it,
a batch of changes undone), with the bytes each file had. Every batch (``VaultStore.batch``, and
each change of files the store makes, whoever calls it: ``VaultCore.batch``) writes them down from
its start; a batch that wrote one note's file only and moved nothing is a single note's save, and
the file it fully wrote is kept (the scan takes it in, the text typed not lost);
the folders any batch made are removed when empty (a notebook made alone, killed before its commit).
A change that is of several notes even when it meets one (a tag renamed or deleted) says so
(``start(several=True)``), so a tag on one note is not split in two either.

A batch (``VaultStore.batch``) holds the mirror's write lock from its start and ends its
``Vault.journal`` (which closes this log) before its transaction commits: a log still there when
the lock is next taken belongs to a batch whose rows SQLite rolled back, so its changes are undone,
last first, before the folder is scanned. (A crash in the short step between the two leaves the
moves made, and the scan follows them: ``follow.trashed_copy``, ``Follower._moved``.) A batch of
several notes killed after its first note's file and before the next is written down is, by then,
no different from a single note's save: that one file is kept.

A single note's save writes down its write too, with who saved (``saving``), outside a batch as
well: the file a crash kept is credited to them at the next start (``recovered``, which the scan
reads), not to another program.
"""

from __future__ import annotations

import base64
import contextlib
import json
import logging
import os
import threading
from collections.abc import Iterator
from pathlib import Path

from noted.store.durable import sync_dir
from noted.store.vault.filestate import content_hash
from noted.tempfiles import sweep, temp_beside

log = logging.getLogger(__name__)
SEVERAL = "several"
"""The line of a batch that is undone whole even when it wrote one note's file (``start``)."""


class MoveLog:
    """``path``: one line per move, ``[from, to]`` (absolute paths), made durable before the move."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: int | None = None
        self._saver = threading.local()
        self.recovered: dict[str, tuple[str, str]] = {}
        """A single note's save a crash stopped before its row committed: its file's path, to the
        hash it wrote and who saved it (``undo``)."""

    @contextlib.contextmanager
    def saving(self, actor: str, *, close: bool) -> Iterator[None]:
        """The writes inside are ``actor``'s save, each written down (``add_write``); ``close``: the
        log ends with the block (no ``journal`` around it does), before its rows commit."""
        self._saver.actor = actor
        try:
            yield
        finally:
            self._saver.actor = None
            if close:
                self.close()

    def saver(self) -> str | None:
        """Who is saving in this thread (``saving``), if anyone."""
        actor: str | None = getattr(self._saver, "actor", None)
        return actor

    def add(self, source: Path, target: Path) -> None:
        """Write down a move about to be made."""
        self.start()
        self._line([str(source), str(target)])

    def start(self, *, several: bool = False) -> None:
        """Open the log (once per batch); ``several``: the batch is undone at the next start even
        when it wrote one note's file only."""
        if self._file is None:
            self._file = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            sync_dir(self.path.parent)
        if several:
            self._line(SEVERAL)

    def add_write(self, path: Path, was: bytes | None, data: bytes) -> None:
        """Write down a replace of ``path`` by ``data`` about to be made (``was``: its bytes
        before, None when it is new)."""
        self.start()
        old = None if was is None else base64.b64encode(was).decode("ascii")
        by = {} if self.saver() is None else {"by": self.saver()}
        self._line({"write": str(path), "was": old, "now": content_hash(data), **by})

    def add_dirs(self, folders: list[Path]) -> None:
        """Write down the folders about to be made (deepest first), which an undo removes when empty."""
        self.start()
        self._line({"made": [str(f) for f in folders]})

    def add_removed(self, folder: Path) -> None:
        """Write down an empty folder about to be removed, which an undo makes again."""
        self.start()
        self._line({"removed": str(folder)})

    def _line(self, entry: object) -> None:
        assert self._file is not None
        os.write(self._file, (json.dumps(entry) + "\n").encode("utf-8"))
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
        entries = _entries(lines)
        if not _of_several(entries):  # a single note's save: the file it fully wrote is kept
            self.recovered = {
                str(e["write"]): (str(e["now"]), str(e["by"]))
                for e in entries
                if isinstance(e, dict) and "by" in e and "now" in e
            }
            entries = [e for e in entries if isinstance(e, dict) and "made" in e]  # (removed when empty)
        moved: list[Path] = []
        for entry in reversed(entries):
            try:
                if isinstance(entry, dict) and "made" in entry:
                    _remove_empty([Path(p) for p in entry["made"]])
                elif isinstance(entry, dict) and "removed" in entry:
                    Path(entry["removed"]).mkdir(parents=True, exist_ok=True)
                elif isinstance(entry, dict):
                    _put_back(Path(entry["write"]), entry["was"], entry["now"])
                if not isinstance(entry, list):
                    continue
                source, target = (Path(p) for p in entry)
            except (ValueError, TypeError, KeyError):
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


def _entries(lines: list[str]) -> list[object]:
    """The log's lines read (one the crash cut short is left out: its change was not made)."""
    entries = []
    for line in lines:
        with contextlib.suppress(ValueError):
            entries.append(json.loads(line))
    return entries


def _of_several(entries: list[object]) -> bool:
    """Whether the batch is undone whole, not kept as a single note's save: it moved a file, said
    so, or wrote two notes' files, or none (an attachment's file written before its note's)."""
    notes = {e.get("write") for e in entries if isinstance(e, dict) and str(e.get("write")).endswith(".md")}
    return len(notes) != 1 or any(e == SEVERAL or isinstance(e, list) for e in entries)


def _remove_empty(folders: list[Path]) -> None:
    """Remove each folder (deepest first) the batch made that holds nothing now but a killed
    write's temporary files; one holding anything else stays, and so do those it is in."""
    for folder in folders:
        with contextlib.suppress(OSError):
            sweep(str(folder), os.listdir(folder))
        try:
            folder.rmdir()
        except FileNotFoundError:
            continue
        except OSError:
            return  # not empty: a file put in meanwhile


def _put_back(path: Path, was: str | None, now: str) -> None:
    """The file as it was before the batch's write, when it still holds what that write put there
    (or, a file the batch made, nothing: its bytes, synced only at the batch's end, were lost)."""
    temp = temp_beside(path)
    try:
        data = path.read_bytes()
        if content_hash(data) != now and (was is not None or data):
            return  # not written, or changed since: left as it is
        if was is None:
            path.unlink()
            return
        temp.write_bytes(base64.b64decode(was))
        with open(temp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(temp, path)
        sync_dir(path.parent)
    except (OSError, ValueError) as exc:
        log.warning("could not put back %s as it was: %s", path, exc)
        with contextlib.suppress(OSError):
            temp.unlink()

"""The file steps a commit owes: what an attachment's write does to its files after its row commits.

An attachment's new bytes are written aside before its row's transaction and put in place only
once it commits (in a batch, the chat's approved writes, the whole batch), so a rollback leaves the
old file, and with it the old bytes, where it was. Between the COMMIT and the rename a kill would
leave the row describing a file that is not there, and the new bytes in an aside the next sweep
removes. So the transaction records each step it owes in ``file_steps``, with its rows: all of them
commit, or none. After the commit the writer takes each step and clears its record
(``Database.after``); a step a killed writer owes (its ``PendingFiles`` list no longer locked) is
taken by the next store to open the profile, before the sweep that removes the asides of
transactions that never committed (an aside a step still names is not an orphan). A step that
fails stays recorded and is tried again at close and at the next open. Steps are idempotent: an
aside already moved is not moved again.

The kinds of step are the parts' own (``Step.kind``): the embedded store's rename of an aside into
``resources/``, the Markdown folder's write of an attachment into the folder and removal of a file
noted wrote. Each part hands ``FileSteps.finish`` what takes its kinds.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import apsw
from filelock import FileLock, Timeout

from noted.store.sqlite.db import Database
from noted.store.sqlite.pending import LOCK_SUFFIX, PendingFiles

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Step:
    """One step a committed transaction owes to the files."""

    id: int
    kind: str
    source: str
    target: str
    old: str = ""
    expect: str = ""
    actor: str = ""


Taker = Callable[[Step], None]
"""Takes a step of its kind (and must do nothing the second time)."""


class FileSteps:
    """The steps owed by the writers of one database, each under its ``PendingFiles`` list."""

    def __init__(self, db: Database, pending: PendingFiles) -> None:
        self.db = db
        self.pending = pending

    def owe(
        self,
        conn: apsw.Connection,
        kind: str,
        target: str,
        *,
        source: str = "",
        old: str = "",
        expect: str = "",
        actor: str = "",
    ) -> Step:
        """Record, inside ``conn``'s transaction, a step this process owes once it commits."""
        writer = self.pending.token()
        conn.execute(
            "INSERT INTO file_steps(writer, kind, source, target, old, expect, actor) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (writer, kind, source, target, old, expect, actor),
        )
        return Step(int(conn.last_insert_rowid()), kind, source, target, old, expect, actor)

    def take(self, step: Step, taker: Taker) -> None:
        """Take ``step`` now that its transaction committed, and clear its record (a failure
        leaves it recorded, for ``finish``)."""
        taker(step)
        with self.db.write() as conn:
            conn.execute("DELETE FROM file_steps WHERE id = ?", (step.id,))

    def pending_source(self, target: str) -> str | None:
        """The aside a batch still open will put at the file ``target`` when it commits (None: no
        such step): the bytes its row describes meanwhile, which reads in the batch get. A later
        replace in the batch keeps no version of them: they were never committed, nor readable
        outside it, and the file still holds what the batch's first replace kept already."""
        conn = self.db.connection()
        if conn.get_autocommit():  # no batch open: every step committed is taken, or left by a kill
            return None
        row = conn.execute(
            "SELECT source FROM file_steps WHERE target = ? ORDER BY id DESC LIMIT 1", (target,)
        ).fetchone()
        return str(row[0]) if row and row[0] else None

    def names(self, source: str) -> bool:
        """Whether a step still owed names the aside ``source`` (then it is no orphan)."""
        with self.db.read() as conn:
            return conn.execute("SELECT 1 FROM file_steps WHERE source = ?", (source,)).fetchone() is not None

    def finish(self, takers: Mapping[str, Taker], *, own: bool = False) -> None:
        """Take the steps of ``takers``' kinds that writers gone (``own``: this process) left."""
        with self.db.read() as conn:
            writers = [str(r[0]) for r in conn.execute("SELECT DISTINCT writer FROM file_steps")]
        mine = self.pending.name
        for writer in writers:
            if (writer == mine) != own:
                continue
            if own:
                self._run(writer, takers)
                continue
            lists = self.pending.lists
            lock = FileLock(lists / f"{writer}{LOCK_SUFFIX}", thread_local=False)
            try:
                lock.acquire(timeout=0)
            except (Timeout, OSError):
                continue  # its writer runs still, and takes them itself (or another store does now)
            try:
                self._run(writer, takers)
            finally:
                lock.release()
                if not (lists / writer).exists():  # its list was cleared already: the lock is ours
                    with contextlib.suppress(OSError):
                        Path(lock.lock_file).unlink(missing_ok=True)

    def _run(self, writer: str, takers: Mapping[str, Taker]) -> None:
        marks = ",".join("?" * len(takers))
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT id, kind, source, target, old, expect, actor FROM file_steps "
                f"WHERE writer = ? AND kind IN ({marks}) ORDER BY id",
                (writer, *takers),
            ).fetchall()
        for row in rows:
            step = Step(*row)
            try:
                self.take(step, takers[step.kind])
            except Exception:  # tried again at the next open; the rest are taken meanwhile
                log.exception("a file step left by an earlier write failed again: %s", step)

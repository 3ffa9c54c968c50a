"""Attachments a batch cut short left in Joplin, tidied by the next batch of any noted process.

Joplin has no transactions, so an attachment joins a note in two requests (the upload, then the
note that links it: ``noted.ops.attachments.attach_to_note``, and a new note's files) and leaves
one in two (the note unlinked, then the attachment deleted: ``remove_attachment``). Both go in the
order whose cut leaves the safe side: an attachment no note links, never a note linking a missing
one. Inside ``JoplinStore.batch()`` each attachment noted uploads, or means to delete once no note
links it (``HalfDone.deleting``), is first recorded in the sidecar's ``joplin_half_done`` with the
process doing it (``noted.store.processes``). A batch that ends drops its rows: what it did
stands. One that ends by an error leaves them to any batch; one a kill cut short leaves them to
the batches of other processes, once that process is known to be gone.

The first batch of a thread (the next attach, in any noted process on the profile) takes those
rows over and deletes each attachment still in Joplin that no note links, keeping it as a version
(``noted history ID --restore N`` brings it back); one a note links stays. An attachment noted did
not record, or one a live process is still working on, is never touched.

A replace (``Resources.replace_resource``) is two requests too: the new file, then the name and
type Joplin does not take with it. Its row keeps the second (``HalfDone.finishing``), which the
tidy sends again when the attachment holds the new file, so a cut leaves no new file under the
old name. The store also tidies once when it opens, in a thread (``HalfDone.tidy_in_background``),
so a cut is mended without waiting for the next attach, and the opening waits on no request.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator

from noted.errors import NotedError
from noted.models import now_ms
from noted.store.processes import gone, this_process
from noted.store.sqlite.db import Database

log = logging.getLogger(__name__)

Tidy = Callable[[str, str, str], str]
"""Tidy the attachment (id, actor, the row's ``finish``): delete it unless a note links it, or
finish its replace; what it did, in words for the log ("": nothing)."""


class HalfDone:
    """The ``joplin_half_done`` rows of one sidecar, and this process's batches (one per thread)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._local = threading.local()
        self._stop = threading.Event()
        self._opening: threading.Thread | None = None

    def tidy_in_background(self, tidy: Tidy) -> None:
        """Tidy what others left in a thread, when the sidecar holds anything (one local read)."""
        with self.db.read() as conn:
            if conn.execute("SELECT 1 FROM joplin_half_done LIMIT 1").fetchone() is None:
                return
        self._opening = threading.Thread(
            target=self._tidy_quietly, args=(tidy,), name="noted-joplin-tidy", daemon=True
        )
        self._opening.start()

    def stop(self) -> None:
        """Before the store closes: the background tidy ends after the attachment in hand."""
        self._stop.set()
        if self._opening is not None:
            self._opening.join()

    def _tidy_quietly(self, tidy: Tidy) -> None:
        try:
            self._tidy_left(tidy)
        except Exception:  # a thread of its own: nobody to tell but the log, and the next batch retries
            log.exception("could not tidy the attachments a noted cut short left half done")

    @contextlib.contextmanager
    def batch(self, tidy: Tidy) -> Iterator[None]:
        """A batch: the outermost of a thread first tidies what others left, then records."""
        depth: int = getattr(self._local, "depth", 0)
        if depth == 0:
            self._tidy_left(tidy)
            self._local.rows = []
        self._local.depth = depth + 1
        try:
            yield
        except BaseException:
            if depth == 0:
                self._settle(self._local.rows, keep=True)
            raise
        else:
            if depth == 0:
                self._settle(self._local.rows, keep=False)
        finally:
            self._local.depth = depth

    def deleting(self, resource_id: str, *, actor: str) -> None:
        """Inside ``batch()``, before its requests: the attachment is to be deleted unless a note
        links it when they are made (an upload's, before it is sent, so that the note is linked after);
        cut short, the next batch deletes it if no note links it. Outside a batch: nothing."""
        self.finishing(resource_id, actor=actor, finish="")

    def finishing(self, resource_id: str, *, actor: str, finish: str) -> None:
        """Inside ``batch()``: ``finish`` (the tidy's words for a write to complete) is to be done to
        the attachment if the batch is cut short. Outside a batch: nothing."""
        if not getattr(self._local, "depth", 0):
            return
        with self.db.write() as conn:
            conn.execute(
                "INSERT INTO joplin_half_done(resource_id, actor, owner, started, finish) VALUES (?, ?, ?, ?, ?)",
                (resource_id, actor, this_process(), now_ms(), finish),
            )
            self._local.rows.append(int(conn.last_insert_rowid()))

    def _settle(self, rows: list[int], *, keep: bool) -> None:
        """The batch ended: its rows dropped, or (it failed) left for any batch to tidy."""
        if not rows:
            return
        marks = ",".join("?" * len(rows))
        with self.db.write() as conn:
            if keep:
                conn.execute(f"UPDATE joplin_half_done SET owner = NULL WHERE id IN ({marks})", rows)  # noqa: S608
            else:
                conn.execute(f"DELETE FROM joplin_half_done WHERE id IN ({marks})", rows)  # noqa: S608

    def _tidy_left(self, tidy: Tidy) -> None:
        """Take over the rows no live batch holds, and tidy each; a failure leaves the rest for later."""
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT id, resource_id, actor, owner, finish FROM joplin_half_done"
            ).fetchall()
        me = None
        for row_id, resource_id, actor, owner, finish in rows:
            if self._stop.is_set():
                return
            if owner is not None and not gone(str(owner)):
                continue  # a live batch's (this process's other threads' too)
            me = me or this_process()
            with self.db.write() as conn:
                taken = conn.execute(
                    "UPDATE joplin_half_done SET owner = ? WHERE id = ? AND owner IS ? RETURNING id",
                    (me, row_id, owner),
                ).fetchall()
            if not taken:
                continue  # another batch took it first
            try:
                done = tidy(str(resource_id), str(actor), str(finish))
            except NotedError as exc:
                self._settle([int(row_id)], keep=True)
                log.warning(
                    "could not tidy attachment %s, left half done by a noted cut short: %s", resource_id, exc
                )
                return
            if done:
                log.warning("%s, left half done by a noted cut short", done)
            self._settle([int(row_id)], keep=False)

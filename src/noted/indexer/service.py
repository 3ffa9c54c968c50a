"""The indexer as a background thread of whichever process holds the indexing lease.

The TUI, the MCP server and ``noted index --watch`` all start one. The one that gets the lease
indexes, renewing it from the lease's heartbeat thread; the others keep trying to take it (a
holder that died lets it lapse, at once when it ran on this host) and meanwhile use the index
read-only. Nothing here blocks the caller: ``start`` returns at once, ``notify`` wakes
the thread after a local write so a saved note is searchable within moments, and ``stop`` ends
the thread and gives the lease back.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from noted.errors import BackendError, CredentialsRefusedError, ModelAwayError, NotedError
from noted.indexer.engine import Indexer, IndexingStopped, IndexProgress
from noted.indexer.lease import Lease, LeaseLost
from noted.indexer.priority import lower_this_thread
from noted.indexer.requests import request_pending, request_rebuild

log = logging.getLogger(__name__)

POLL_SECONDS = 0.25
"""How often an idle holder looks at the change feed (other processes' writes wake it this way)."""
BACKEND_RETRY_SECONDS = 5.0
"""How long the indexer waits before trying again when the store's backend (Joplin) is away."""


@dataclass(frozen=True, slots=True)
class IndexStatus:
    """What the status bar and ``noted index status`` show."""

    state: str
    """``starting``, ``indexing``, ``idle``, ``standby`` (another process holds the lease),
    ``waiting`` (the backend or the embedding endpoint cannot be reached; ``error`` says why), ``error``."""
    progress: IndexProgress | None = None
    holder: str | None = None
    error: str | None = None
    preparing: bool = False
    """``starting``, and the model's fast copy is being made (``noted.embeddings.quantize``): the
    first start of a profile, some 30 s, rather than a load of a second or two."""


StatusCallback = Callable[[IndexStatus], None]


class IndexerService:
    """Runs an ``Indexer`` in a daemon thread while this process holds the lease."""

    def __init__(self, indexer: Indexer, lease: Lease, *, on_status: StatusCallback | None = None) -> None:
        self.indexer = indexer
        self.lease = lease
        self.on_status = on_status
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._status = IndexStatus("starting")
        self._prepared = False
        indexer.on_progress = self._progress
        indexer.lease = lease  # renewed before every group of chunks, checked in every commit
        indexer.should_stop = self._stop.is_set  # so stop() does not wait for a whole batch

    @property
    def status(self) -> IndexStatus:
        return self._status

    # What the CLI asks (``noted index``), so it never wires an indexer itself ----------------
    @property
    def unavailable(self) -> str | None:
        """Why this process cannot index (sqlite-vec did not load), or None."""
        return self.indexer.db.vec_error

    def rebuild(self, by: str) -> bool:
        """Drop the vectors so they are built again: now when this process holds the lease (True),
        else by asking the holder, who honours it before its next batch (False)."""
        if self.lease.held:
            self.indexer.drop_vectors()
            return True
        request_rebuild(self.indexer.db, by)
        return False

    def rebuild_pending(self) -> bool:
        """True while a rebuild asked of another process has not been taken up yet."""
        return request_pending(self.indexer.db)

    def take_lease(self) -> bool:
        """Take the indexing lease (renewed by a heartbeat thread until ``release``) if it is free."""
        if not self.lease.acquire():
            return False
        self.lease.start_heartbeat()
        return True

    def run_here(
        self,
        on_progress: Callable[[IndexProgress], None],
        *,
        watch: bool = False,
        on_away: Callable[[NotedError | None], None] | None = None,
    ) -> int:
        """Index in the calling thread until up to date, or with ``watch`` until interrupted; returns
        the notes looked at. Raises ``LeaseLost`` when another process took the lease over.

        While watching, a backend that cannot be reached (Joplin off or restarting, from the start
        or later) is waited for, as the background thread does: ``on_away`` is told why once, and
        None once it answers."""
        self.indexer.on_progress = on_progress
        done, prepared, away = 0, False, False
        while True:
            try:
                if not prepared:
                    self.indexer.prepare()
                    prepared = True
                done += self.indexer.run_until_idle()
            except (BackendError, ModelAwayError) as exc:  # Joplin, or the embedding endpoint
                if not watch or isinstance(exc, CredentialsRefusedError):
                    raise
                if not away and on_away is not None:
                    on_away(exc)
                away = True
                time.sleep(POLL_SECONDS)  # a read that fails has retried for seconds already
                continue
            if away and on_away is not None:
                on_away(None)
            away = False
            if not watch:
                return done
            if not self.lease.held:  # the heartbeat found it taken: this process stalled past it
                raise LeaseLost("another process took the indexing lease")
            time.sleep(POLL_SECONDS)

    # The background thread ---------------------------------------------------------------
    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="noted-indexer", daemon=True)
        self._thread.start()

    def notify(self) -> None:
        """Wake the thread: something was written."""
        self._wake.set()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the thread (after its current group of chunks) and give the lease back.

        A thread still in a model call after ``timeout`` is kept, so ``close`` waits for it: giving
        the lease back under it made its stop commit fail, losing the vectors it had made."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            if not self._thread.is_alive():
                self._thread = None

    def close(self) -> None:
        """Stop, give the lease back, and close this indexer's own model."""
        self.stop()
        if self.lease.held:  # the thread gives it back as it ends; the CLI's run_here does not
            self.lease.release()
        try:
            self.indexer.embedder.close()
        except Exception:
            log.exception("closing the indexer's model failed")

    def _run(self) -> None:
        from noted.embeddings import quantize

        retry_every = self.lease.ttl_ms / 3000
        lower_this_thread()  # before the embedder's first use, so its model threads inherit it
        try:
            with quantize.telling(self._preparing):
                self._loop(retry_every)
        except NotedError as exc:  # one the person can act on (notes.db deleted): no stack
            log.error("the indexer stopped: %s", exc)
            self._set(IndexStatus("error", error=str(exc)))
        except Exception as exc:
            log.exception("the indexer stopped")
            self._set(IndexStatus("error", error=f"{type(exc).__name__}: {exc}"))
        finally:
            try:
                self.lease.release()
            except Exception:
                log.exception("could not release the indexing lease")

    def _preparing(self) -> None:
        if self._status.state == "starting":
            self._set(replace(self._status, preparing=True))

    def _loop(self, retry_every: float) -> None:
        while not self._stop.is_set():
            if not self.lease.held and not self._take_lease():
                self._wait(retry_every)
                continue
            try:
                if not self._prepared:
                    self.indexer.prepare()
                    self._prepared = True
                if self.indexer.step():
                    continue
            except IndexingStopped:
                break
            except LeaseLost:  # ours lapsed (this process stalled) and another took it
                log.warning("lost the indexing lease to %s", self.lease.holder())
                self._prepared = False
                continue
            except (BackendError, ModelAwayError) as exc:  # Joplin or the model away: wait for it
                self._set(IndexStatus("waiting", self._status.progress, error=str(exc)))
                self._wait(BACKEND_RETRY_SECONDS)
                continue
            self._set(IndexStatus("idle", self._status.progress))
            self._wait(POLL_SECONDS)

    def _take_lease(self) -> bool:
        if self.take_lease():
            return True
        self._prepared = False
        self._set(IndexStatus("standby", holder=self.lease.holder()))
        return False

    def _wait(self, seconds: float) -> None:
        self._wake.wait(seconds)
        self._wake.clear()

    def _progress(self, progress: IndexProgress) -> None:
        state = "idle" if progress.phase == "idle" else "indexing"
        self._set(replace(self._status, state=state, progress=progress, error=None, preparing=False))

    def _set(self, status: IndexStatus) -> None:
        if status == self._status:
            return
        self._status = status
        if self.on_status is not None:
            try:
                self.on_status(status)
            except Exception:
                log.exception("an index status listener failed")

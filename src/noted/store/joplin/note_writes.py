"""One noted process at a time reads a Joplin note and writes it back.

Joplin's Data API has no conditional write: a ``PUT`` replaces the note whatever it holds by then.
Two noted processes on one profile (the app and ``noted edit --append``, an AI app's MCP server)
that each read a note and write it back at once wrote their own change over the other's, both
told "saved" (the lost one only in the history), and a save based on the text it read was not
refused when the other landed between its check and its write. A lock file beside the sidecar
database makes their read-and-write one at a time: the second reads the first's text (an append
lands on it; a save based on the older text meets a conflict). Joplin's own apps take no part.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from types import TracebackType

from filelock import FileLock, Timeout

from noted.errors import BackendError

LOCK_NAME = "joplin-note-writes.lock"
WAIT_S = 60.0
"""A save waits this long for another process's before it gives up, writing nothing."""

log = logging.getLogger(__name__)


class NoteWrites:
    """``with note_writes:`` around reading a note and writing it back (reentrant in a thread)."""

    def __init__(self, folder: Path) -> None:
        self._file = FileLock(str(folder / LOCK_NAME), thread_local=False)
        self._threads = threading.RLock()  # (the file lock's count is this process's, not a thread's)
        self._held: list[bool] = []

    def __enter__(self) -> None:
        if not self._threads.acquire(timeout=WAIT_S):
            raise _busy()
        try:
            self._file.acquire(timeout=WAIT_S)
        except Timeout:
            self._threads.release()
            raise _busy() from None
        except OSError as exc:  # a folder that cannot be locked: saved as before, unguarded
            log.warning(
                "cannot lock %s (%s): saves of other noted processes are not kept apart", LOCK_NAME, exc
            )
            self._held.append(False)
            return
        self._held.append(True)

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._held.pop():
            self._file.release()
        self._threads.release()


def _busy() -> BackendError:
    return BackendError(
        f"another noted process has been saving a note to Joplin for {WAIT_S:.0f} s; nothing was written",
        hint="try again; if it stays so, close the other noted (the app, an AI app's MCP server)",
    )

"""Textual's output thread keeps emptying its queue once the terminal cannot be written.

Upstream (Textual 8.2, ``drivers/_writer_thread.py``, ``WriterThread.run``): the thread that writes
the app's frames to the terminal takes them from a queue of at most 30 (``MAX_QUEUED_WRITES``).
When a write fails (EIO: the terminal closed under the app, tmux killed, an SSH connection dropped)
the error ends the thread, and nothing empties the queue after it: the 31st frame drawn, or the
driver's ``close`` (``WriterThread.stop`` puts one more entry), blocks the app's main thread for
good. The SIGHUP that comes with the closed terminal then never runs (its handler waits for the
event loop), the text being edited is not kept, and the process never ends by itself. To report:
"WriterThread: a failed write ends the thread and the next 30 writes or stop() block forever".

The patch's ``run`` writes as Textual's does; on an error it hands it to ``threading.excepthook``,
as a thread's end would (``noted.ui.crash`` logs a closed terminal in one line and reports any
other error), then takes and discards every entry until ``stop``'s, so no write and no ``stop``
waits. With the patch off the thread ends as in Textual, and the app's watchdog
(``noted.ui.crash.GRACE_SECONDS``) stays the last resort.
"""

from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING

from noted.ui.patches.guard import Patch, Private, Swap

if TYPE_CHECKING:
    from textual.drivers._writer_thread import WriterThread


def run(self: WriterThread) -> None:
    """``WriterThread.run``, emptying the queue after a write fails instead of ending."""
    queue = self._queue
    stopped = False  # ``stop``'s None taken: nothing more will come
    try:
        while not stopped:
            text = queue.get()
            if text is None:
                stopped = True
                break
            self._file.write(text)
            if queue.qsize() == 0:  # a break in the frames: show what is written
                self._file.flush()
        self._file.flush()
    except Exception:
        exc_type, error, traceback = sys.exc_info()
        threading.excepthook(threading.ExceptHookArgs((exc_type, error, traceback, self)))
        while not stopped:  # discard: the terminal cannot show them, and a full queue blocks the app
            stopped = queue.get() is None


_WRITER = "textual.drivers._writer_thread:WriterThread"
_SWAP = Swap(_WRITER, {"run": run})

PATCH = Patch(
    name="dead_terminal",
    module=__name__,
    written_for="8.2",
    touches=(
        Private(_WRITER, "run", "(self) -> 'None'"),
        Private(_WRITER, "_queue"),
        Private(_WRITER, "_file"),
    ),
    swap=_SWAP,
)

"""Indexing at a lower CPU priority than the app: the thread that runs the indexer is niced.

On Linux a nice value belongs to a thread, and threads inherit their creator's: the indexer's
thread lowers its own, so the ONNX Runtime pool its embedder makes on first use runs at that
value too, while the UI's thread (and the pool of the search's own embedder) keeps its own. A
niced indexer still takes every idle cycle; it only yields when the app wants the CPU, so a
key pressed during a full index is answered first. Elsewhere (no per-thread nice) it does nothing.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
from collections.abc import Iterator

log = logging.getLogger(__name__)

INDEXER_NICE = 10
"""How much nicer than the process the indexer's thread runs (0-19 higher is gentler)."""


def lower_this_thread(by: int = INDEXER_NICE) -> bool:
    """Raise the calling thread's nice value by ``by``; True when it was changed."""
    if not sys.platform.startswith("linux"):
        return False  # elsewhere PRIO_PROCESS would nice the whole process, the UI included
    tid = threading.get_native_id()
    try:
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + by))
    except OSError:
        log.warning("could not lower the indexer's CPU priority", exc_info=True)
        return False
    return True


@contextlib.contextmanager
def lowered(by: int = INDEXER_NICE) -> Iterator[None]:
    """Run the block with this thread niced; its old value is put back after if allowed.

    Lowering a priority needs no privilege, raising it back does: an unprivileged process keeps
    the lower value, which for ``noted index`` (which then exits) is as good.
    """
    tid = threading.get_native_id()
    before = os.getpriority(os.PRIO_PROCESS, tid) if sys.platform.startswith("linux") else None
    changed = lower_this_thread(by)
    try:
        yield
    finally:
        if changed and before is not None:
            with contextlib.suppress(OSError):
                os.setpriority(os.PRIO_PROCESS, tid, before)

"""When the indexer tries again a note the model failed on: at once after a start, then backing off.

A failure may pass (a model out of memory at that moment, an endpoint's odd answer) or last (a
text the model cannot read). The lease holder runs for days (the app, the MCP server), so it tries
each failed note again while it runs, waiting twice as long after each failure of that note, up to
``RETRY_MOST_SECONDS``: a note that fails for good costs one model call an hour, not one a second.
The failures themselves stay in ``index_failures`` (what ``noted index status`` counts) until a
retry or the change feed stores or drops the note; this keeps only the times, in memory.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterable

RETRY_FIRST_SECONDS = 60.0
"""How long after its first failure a note is tried again; each further failure doubles it."""
RETRY_MOST_SECONDS = 3600.0


class Retries:
    """The failed notes this process will try again, each with its count of failures and due time."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._due: dict[str, tuple[int, float]] = {}

    def __len__(self) -> int:
        return len(self._due)

    def load(self, note_ids: Iterable[str]) -> None:
        """Start over from the failures recorded so far (a start, the lease regained): all due now."""
        now = self._clock()
        self._due = dict.fromkeys(note_ids, (0, now))

    def due(self, limit: int) -> list[str]:
        """Up to ``limit`` notes whose time to be tried again has come."""
        now = self._clock()
        return [note_id for note_id, (_, at) in self._due.items() if at <= now][:limit]

    def record(self, note_ids: Iterable[str], failed: Collection[str]) -> None:
        """After ``note_ids`` were indexed: schedule those in ``failed`` again, forget the others
        (stored, or dropped as no longer indexable)."""
        now = self._clock()
        for note_id in note_ids:
            if note_id in failed:
                tries = self._due.get(note_id, (0, now))[0] + 1
                wait = min(RETRY_FIRST_SECONDS * 2 ** min(tries - 1, 16), RETRY_MOST_SECONDS)
                self._due[note_id] = (tries, now + wait)
            else:
                self._due.pop(note_id, None)

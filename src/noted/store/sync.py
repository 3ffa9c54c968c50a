"""What a backend that syncs with other machines (Joplin) offers beyond the ``Store`` protocol.

``Store.sync`` and ``Store.conflicts`` are these capability objects, or None on a backend without
a sync (the SQLite store): front ends ask ``if store.conflicts is not None`` instead of checking
which backend they hold, so they never import one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from noted.models import Note

SYNC_TIMEOUT = 600.0
"""Seconds a sync may take before noted gives up waiting (Joplin goes on; nothing is lost)."""


@dataclass(frozen=True, slots=True)
class SyncConflict:
    """One conflict note of Joplin's: the side of a note that lost a sync.

    Attributes:
        copy_id: The conflict note's id.
        original_id: The note it is a version of ("" when Joplin did not say, or the note is gone).
        title: The conflict note's title.
        parent_id: Its notebook.
        updated_time: When that side was last changed (ms).
    """

    copy_id: str
    original_id: str
    title: str
    parent_id: str
    updated_time: int


@dataclass(frozen=True, slots=True)
class SyncRun:
    """One finished run of the sync command.

    Attributes:
        summary: Joplin's last line of output ("Completed: …", or what went wrong).
        finished: When it finished (ms since the epoch).
    """

    summary: str
    finished: int


class SyncConflicts(Protocol):
    """The conflict copies a sync made, compared and settled without losing either side."""

    def sync_conflicts(self, note_id: str | None = None) -> list[SyncConflict]:
        """The conflict copies, newest first; only those of ``note_id`` when given."""
        ...

    def sync_conflict(self, copy_id: str) -> tuple[Note, Note | None]:
        """A conflict copy and the note it is a version of (None when that note is gone or trashed)."""
        ...

    def resolve_sync_conflict(self, copy_id: str, title: str, body: str, *, actor: str) -> Note:
        """Give the note ``title``/``body`` and erase the copy, after keeping its text as a revision."""
        ...

    def conflict_summary(self, note: Note) -> str | None:
        """One sentence when ``note`` is in a sync conflict, else None."""
        ...


class Syncing(Protocol):
    """Starting a sync (the backend's own command) and saying when the last one finished."""

    def run(self, command: str, *, timeout: float = SYNC_TIMEOUT) -> SyncRun:
        """Run the configured sync ``command`` and record when it finished."""
        ...

    def last(self) -> int | None:
        """When a sync started from this profile last finished (ms), or None if none ran."""
        ...

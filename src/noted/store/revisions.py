"""Revisions as both stores keep them: when a save joins the last revision, and how a row is stored.

A revision is the state a note was left in by one actor. Saves by the same actor within
``BURST_MS`` of that actor's last revision of the note update it instead of adding a row (Joplin
collapses ten minutes the same way), but an edit by one actor is never folded into another's, so
"undo what the assistant did" always has a state to go back to.

The embedded store's ``revisions`` and the Joplin sidecar's ``joplin_revisions`` have the same
columns; each store runs its own SQL and asks these helpers what to do.
"""

from __future__ import annotations

import zlib

from noted.models import Revision

BURST_MS = 10 * 60 * 1000
REVISION_COLUMNS = "id, note_id, time, actor, title, body, edits"
"""The columns ``revision_of`` reads, in its order."""


def joins_last(last: tuple[str, int] | None, actor: str, now: int, *, window: int = BURST_MS) -> bool:
    """True when a save by ``actor`` at ``now`` updates the note's last revision instead of adding one.

    Args:
        last: the actor and time of the note's newest revision, or None when it has none.
        actor: who saves now.
        now: when (ms).
        window: how long a burst lasts (ms).
    """
    if last is None:
        return False
    last_actor, last_time = last
    return last_actor == actor and now - last_time < window


def pack_body(body: str) -> bytes:
    """A body as a revision row stores it (compressed)."""
    return zlib.compress(body.encode("utf-8"), 6)


def revision_of(row: tuple[int, str, int, str, str, bytes, int]) -> Revision:
    """The ``Revision`` in a row read with ``REVISION_COLUMNS``."""
    id_, note_id, time, actor, title, body, edits = row
    return Revision(id_, note_id, time, actor, title, zlib.decompress(body).decode("utf-8"), edits)

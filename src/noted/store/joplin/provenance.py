"""Who wrote a note's text, carried to the other machines by Joplin's sync.

noted's record of who changed what (the sidecar) stays on the machine that made the change. So
that another machine's noted can still say "the assistant wrote this", each note noted writes
carries a *writer stamp* in Joplin's ``user_data`` field (which Joplin syncs with the note, and
merges key by key; plugins keep their data there the same way): the actor, and a digest of the
title and body it wrote. A machine that sees the note arrive trusts the stamp only while the
digest matches the text: an edit made afterwards in Joplin itself leaves the stamp stale, and the
change is then Joplin's, as it is.

The stamp sits under the key ``noted``, in Joplin's user-data shape
(``{"noted": {"writer": {"v": VALUE, "t": MS, "d": 0}}}``), beside what plugins keep.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

USER_DATA_KEY = "noted"
_WRITER = "writer"


def digest(title: str, body: str) -> str:
    """A short digest of a note's title and body."""
    return hashlib.sha256(f"{title}\0{body}".encode()).hexdigest()[:24]


def _parse(user_data: str) -> dict[str, Any]:
    try:
        data = json.loads(user_data) if user_data else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def stamped(user_data: str, actor: str, title: str, body: str, now: int) -> str:
    """``user_data`` with noted's writer stamp for ``title``/``body`` by ``actor`` (other keys kept)."""
    data = _parse(user_data)
    ours = data.get(USER_DATA_KEY)
    ours = dict(ours) if isinstance(ours, dict) else {}
    ours[_WRITER] = {"v": {"actor": actor, "digest": digest(title, body)}, "t": now, "d": 0}
    data[USER_DATA_KEY] = ours
    return json.dumps(data, separators=(",", ":"))


def writer_of(user_data: str, title: str, body: str) -> str | None:
    """The actor whose stamp matches ``title``/``body``, or None (no stamp, or the text changed since)."""
    ours = _parse(user_data).get(USER_DATA_KEY)
    entry = ours.get(_WRITER) if isinstance(ours, dict) else None
    value = entry.get("v") if isinstance(entry, dict) else None
    if not isinstance(value, dict) or value.get("digest") != digest(title, body):
        return None
    actor = value.get("actor")
    return actor if isinstance(actor, str) and actor else None

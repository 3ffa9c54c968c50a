"""What another process asks the holder of the indexing lease to do: today, rebuild the index.

The asking process writes the request into ``meta``; the holder looks before every batch
(``noted.indexer.engine.Indexer.step``) and takes it in one write, so a request is honoured once.
"""

from __future__ import annotations

import json

from noted.indexer.vectors import META_MODEL
from noted.store.sqlite.db import Database, get_meta, set_meta

META_REQUEST = "index.request"
"""JSON ``{"rebuild": true, "by": "..."}``: what another process asked the lease holder to do."""


def request_rebuild(db: Database, by: str) -> None:
    """Ask whichever process holds the lease to rebuild the index (it looks before every batch)."""
    with db.write() as conn:
        set_meta(conn, META_REQUEST, json.dumps({"rebuild": True, "by": by}))


def request_pending(db: Database) -> bool:
    """Whether a request to the lease holder is still waiting to be taken."""
    with db.read() as conn:
        return get_meta(conn, META_REQUEST) is not None


def take_rebuild(db: Database) -> str | None:
    """Take the waiting request; when it is a rebuild, forget the index's model (so ``prepare``
    remakes the tables) and return the request as asked, else None."""
    if not request_pending(db):  # a read: an idle holder asks four times a second
        return None
    with db.write() as conn:
        raw = get_meta(conn, META_REQUEST)
        if raw is None:
            return None
        set_meta(conn, META_REQUEST, None)
        if '"rebuild": true' not in raw:
            return None
        set_meta(conn, META_MODEL, None)
    return raw

"""The sidecar's tables and their migrations, versioned under ``joplin.sidecar.schema`` in ``meta``.

What each table holds is told in ``noted.store.joplin.sidecar``. A profile made by an older
noted is brought up to date on opening, inside the same write transaction that creates the
tables, so a crash leaves either the old schema or the new one.
"""

from __future__ import annotations

import apsw

from noted.store.sqlite.db import get_meta, set_meta
from noted.store.sqlite.schema import VERSIONS_SCHEMA

SCHEMA_KEY = "joplin.sidecar.schema"
SCHEMA_VERSION = 10

_SCHEMA = """
CREATE TABLE IF NOT EXISTS joplin_writes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    item_id TEXT NOT NULL,
    item_type TEXT NOT NULL,
    actor TEXT NOT NULL,
    started INTEGER NOT NULL,
    finished INTEGER,
    joplin_time INTEGER,
    feed_id INTEGER,  -- the feed row of this write
    joplin_id INTEGER  -- the Joplin change taken for it (or for a later write of the item)
);
CREATE INDEX IF NOT EXISTS joplin_writes_item ON joplin_writes(item_id, started);

CREATE TABLE IF NOT EXISTS joplin_feed (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    joplin_id INTEGER UNIQUE,
    item_type TEXT NOT NULL,
    item_id TEXT NOT NULL,
    change_type TEXT NOT NULL,
    time INTEGER NOT NULL,
    actor TEXT NOT NULL,
    place TEXT  -- a note's place, or a notebook's, tag's or attachment's state (noted.store.sqlite.feed)
);
CREATE INDEX IF NOT EXISTS joplin_feed_item ON joplin_feed(item_id, id);

CREATE TABLE IF NOT EXISTS joplin_revisions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    note_id TEXT NOT NULL,
    time INTEGER NOT NULL,
    first_time INTEGER NOT NULL,
    actor TEXT NOT NULL,
    title TEXT NOT NULL,
    body BLOB NOT NULL,
    edits INTEGER NOT NULL DEFAULT 1,
    base INTEGER,  -- NULL: body is whole; else a delta against this revision (the one before)
    depth INTEGER NOT NULL DEFAULT 0,  -- how many deltas lead to a whole row
    label TEXT NOT NULL DEFAULT ''  -- what the save was, when the actor does not tell
);
CREATE INDEX IF NOT EXISTS joplin_revisions_note ON joplin_revisions(note_id, id);

CREATE TABLE IF NOT EXISTS joplin_lengths (  -- noted.store.joplin.lengths
    note_id TEXT PRIMARY KEY,
    updated_time INTEGER NOT NULL,
    length INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS joplin_trash (
    folder_id TEXT PRIMARY KEY,
    started INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS joplin_half_done (  -- noted.store.joplin.half_done
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    resource_id TEXT NOT NULL,
    actor TEXT NOT NULL,
    owner TEXT,  -- the process whose batch it is in (noted.store.processes); NULL: anyone may tidy it
    started INTEGER NOT NULL,
    finish TEXT NOT NULL DEFAULT ''  -- a replace's second request, to send again ('': delete if unlinked)
);
"""

_TO_V2 = """
ALTER TABLE joplin_writes ADD COLUMN feed_id INTEGER;
ALTER TABLE joplin_writes ADD COLUMN joplin_id INTEGER;
"""

_TO_V3 = """
ALTER TABLE joplin_revisions ADD COLUMN base INTEGER;
ALTER TABLE joplin_revisions ADD COLUMN depth INTEGER NOT NULL DEFAULT 0;
"""

_TO_V4 = "ALTER TABLE joplin_revisions ADD COLUMN label TEXT NOT NULL DEFAULT ''"


_VERSIONS = VERSIONS_SCHEMA.format(name="joplin_resource_versions")
"""Version 5: the attachments' old versions (``noted.store.history.versions``)."""
_TO_V6 = "ALTER TABLE joplin_feed ADD COLUMN place TEXT"
"""Version 6: the feed keeps a notebook's, tag's or attachment's state with noted's change of it.
Version 7: the feed is indexed by item (a note's history and last place are read by it); the
index is made by ``_SCHEMA``, which every upgrade runs.
Version 8: the body lengths of the notes noted read (``noted.store.joplin.lengths``), also made
by ``_SCHEMA``.
Version 9: the attachments a batch uploads or means to delete, until it ends
(``noted.store.joplin.half_done``), also made by ``_SCHEMA``.
Version 10: a replace's second request, to finish it (``noted.store.joplin.half_done``)."""
_TO_V10 = "ALTER TABLE joplin_half_done ADD COLUMN finish TEXT NOT NULL DEFAULT ''"


def ensure_schema(conn: apsw.Connection) -> None:
    """Create the sidecar's tables, or migrate them from an older version, inside ``conn``'s transaction."""
    version = int(get_meta(conn, SCHEMA_KEY) or 0)
    if version >= SCHEMA_VERSION:
        return
    if version == 1:
        conn.execute(_TO_V2)
    columns = {r[1] for r in conn.execute("PRAGMA table_info(joplin_revisions)")}
    if columns and "base" not in columns:
        conn.execute(_TO_V3)  # revisions stored as deltas (noted.store.history)
    if columns and "label" not in columns:
        conn.execute(_TO_V4)  # labelled revisions (noted.store.revisions.labelled)
    feed = {r[1] for r in conn.execute("PRAGMA table_info(joplin_feed)")}
    if feed and "place" not in feed:
        conn.execute(_TO_V6)  # the states of notebooks, tags and attachments (review)
    half_done = {r[1] for r in conn.execute("PRAGMA table_info(joplin_half_done)")}
    if half_done and "finish" not in half_done:
        conn.execute(_TO_V10)
    conn.execute(_SCHEMA)
    conn.execute(_VERSIONS)
    set_meta(conn, SCHEMA_KEY, str(SCHEMA_VERSION))

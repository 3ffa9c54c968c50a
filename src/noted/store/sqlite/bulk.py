"""Many new notes in one transaction, indexed by keyword in one go at its end.

The keyword index (FTS5, filled by the ``notes_fts_insert`` trigger) writes its pending terms to
disk at every savepoint, and each trigger runs in a statement savepoint: inserting notes one by one
made one small index segment per note, half the cost of reading a 10,000-file Markdown folder for
the first time. Inside ``deferred_keyword_index`` the trigger is swapped (in the transaction, so a
rollback undoes the swap) for one that lists the new rows; they are indexed with one statement at
the end, which FTS5 writes as a few large segments. A listed row updated or deleted meanwhile is
indexed first, so the update and delete triggers remove exactly what was indexed.

    with db.batch(), deferred_keyword_index(db):
        for draft in drafts:
            store.create_note(draft, actor=...)
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from noted.store.sqlite.db import Database

_INDEX_FIRST = """
    INSERT INTO notes_fts(rowid, title, headings, body) VALUES (old.rowid, old.title, old.headings, old.body);
    DELETE FROM temp.fts_pending WHERE id = old.rowid;
"""
_SWAP = f"""
    CREATE TEMP TABLE fts_pending(id INTEGER PRIMARY KEY);
    DROP TRIGGER main.notes_fts_insert;
    CREATE TEMP TRIGGER fts_pending_insert AFTER INSERT ON main.notes BEGIN
        INSERT INTO temp.fts_pending(id) VALUES (new.rowid);
    END;
    CREATE TEMP TRIGGER fts_pending_update BEFORE UPDATE ON main.notes
        WHEN old.rowid IN (SELECT id FROM temp.fts_pending) BEGIN {_INDEX_FIRST} END;
    CREATE TEMP TRIGGER fts_pending_delete BEFORE DELETE ON main.notes
        WHEN old.rowid IN (SELECT id FROM temp.fts_pending) BEGIN {_INDEX_FIRST} END;
"""
_DROP = """
    DROP TRIGGER IF EXISTS temp.fts_pending_insert;
    DROP TRIGGER IF EXISTS temp.fts_pending_update;
    DROP TRIGGER IF EXISTS temp.fts_pending_delete;
    DROP TABLE IF EXISTS temp.fts_pending;
"""


@contextlib.contextmanager
def deferred_keyword_index(db: Database) -> Iterator[None]:
    """Notes inserted inside are indexed by keyword when it ends; only inside ``db.batch()``."""
    if db.connection().get_autocommit():
        raise RuntimeError("deferred_keyword_index works inside db.batch() only")
    with db.write() as conn:
        row = conn.execute(
            "SELECT sql FROM main.sqlite_master WHERE type = 'trigger' AND name = 'notes_fts_insert'"
        ).fetchone()
        if row is not None:
            conn.execute(_SWAP)
    if row is None:  # already deferred by an outer caller
        yield
        return
    try:
        yield
    except BaseException:
        with contextlib.suppress(Exception):  # the batch's rollback undoes the swap
            conn.execute(_DROP)
        raise
    with db.write() as conn:
        conn.execute(
            "INSERT INTO notes_fts(rowid, title, headings, body) SELECT rowid, title, headings, body "
            "FROM main.notes WHERE rowid IN (SELECT id FROM temp.fts_pending)"
        )
        conn.execute(_DROP)
        conn.execute(str(row[0]))

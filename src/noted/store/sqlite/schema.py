"""The embedded database's schema, as migrations keyed on ``PRAGMA user_version``.

Each migration runs in one transaction with the version bump, so a crash leaves the database at
the old version or the new one, never between. Tables of later layers (the semantic index, chats)
keep their own schema version in the ``meta`` table, so the store need not know them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import apsw

from noted.markdown import heading_text, opening
from noted.settings.handles import LARGE_NOTE_CHARS

VERSIONS_SCHEMA = """
CREATE TABLE IF NOT EXISTS {name} (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    resource_id TEXT NOT NULL,
    time INTEGER NOT NULL,  -- when it was replaced or deleted
    actor TEXT NOT NULL,  -- who replaced or deleted it
    deleted INTEGER NOT NULL DEFAULT 0,
    title TEXT NOT NULL,
    filename TEXT NOT NULL,
    mime TEXT NOT NULL,
    size INTEGER NOT NULL,
    file_extension TEXT NOT NULL,
    created_time INTEGER NOT NULL,
    updated_time INTEGER NOT NULL,
    file TEXT NOT NULL UNIQUE,  -- its bytes: this file of the table's folder
    place TEXT NOT NULL DEFAULT ''  -- a Markdown folder's attachment: where its file was
);
CREATE INDEX IF NOT EXISTS {name}_resource ON {name}(resource_id, id);
"""
"""The table's statement, ``{name}`` filled in (migration 7, and the Joplin sidecar's schema, run it)."""

STEPS_SCHEMA = """
CREATE TABLE IF NOT EXISTS file_steps (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    writer TEXT NOT NULL,  -- the PendingFiles list of the process that owes it
    kind TEXT NOT NULL,
    source TEXT NOT NULL DEFAULT '',  -- an aside, by name, in the store's folder
    target TEXT NOT NULL,
    old TEXT NOT NULL DEFAULT '',  -- a file the step replaces by another name, removed after it
    expect TEXT NOT NULL DEFAULT '',  -- what the target must hold for the step to touch it
    actor TEXT NOT NULL DEFAULT ''
);
"""
"""The table's statement (migration 8; ``noted.store.sqlite.steps``)."""


@dataclass(frozen=True, slots=True)
class Migration:
    """One step of the schema: applied once, in order of ``version``."""

    version: int
    name: str
    apply: Callable[[apsw.Connection], None]


def _v1(db: apsw.Connection) -> None:
    db.execute(
        """
        CREATE TABLE folders (
            id TEXT PRIMARY KEY,
            title TEXT NOT NULL,
            parent_id TEXT NOT NULL DEFAULT '',
            created_time INTEGER NOT NULL,
            updated_time INTEGER NOT NULL,
            deleted_time INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX folders_parent ON folders(parent_id);

        -- A rowid table (id is UNIQUE, not the key) so that FTS5 can use the rowid.
        CREATE TABLE notes (
            id TEXT NOT NULL UNIQUE,
            parent_id TEXT NOT NULL DEFAULT '',
            title TEXT NOT NULL DEFAULT '',
            body TEXT NOT NULL DEFAULT '',
            created_time INTEGER NOT NULL,
            updated_time INTEGER NOT NULL,
            user_created_time INTEGER NOT NULL,
            user_updated_time INTEGER NOT NULL,
            is_todo INTEGER NOT NULL DEFAULT 0,
            todo_due INTEGER NOT NULL DEFAULT 0,
            todo_completed INTEGER NOT NULL DEFAULT 0,
            source_url TEXT NOT NULL DEFAULT '',
            deleted_time INTEGER NOT NULL DEFAULT 0,
            is_conflict INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX notes_parent ON notes(parent_id, deleted_time);
        CREATE INDEX notes_updated ON notes(user_updated_time);
        CREATE INDEX notes_created ON notes(user_created_time);

        CREATE TABLE tags (
            id TEXT PRIMARY KEY,
            title TEXT NOT NULL,
            created_time INTEGER NOT NULL,
            updated_time INTEGER NOT NULL
        );
        CREATE UNIQUE INDEX tags_title ON tags(title COLLATE NOCASE);

        CREATE TABLE note_tags (
            note_id TEXT NOT NULL,
            tag_id TEXT NOT NULL,
            created_time INTEGER NOT NULL,
            PRIMARY KEY (note_id, tag_id)
        ) WITHOUT ROWID;
        CREATE INDEX note_tags_tag ON note_tags(tag_id, note_id);

        CREATE TABLE resources (
            id TEXT PRIMARY KEY,
            title TEXT NOT NULL DEFAULT '',
            filename TEXT NOT NULL DEFAULT '',
            mime TEXT NOT NULL DEFAULT 'application/octet-stream',
            size INTEGER NOT NULL DEFAULT 0,
            file_extension TEXT NOT NULL DEFAULT '',
            created_time INTEGER NOT NULL,
            updated_time INTEGER NOT NULL
        );

        -- Which notes link which resources by ``:/id``; rebuilt from the body on every save.
        CREATE TABLE note_resources (
            note_id TEXT NOT NULL,
            resource_id TEXT NOT NULL,
            PRIMARY KEY (note_id, resource_id)
        ) WITHOUT ROWID;
        CREATE INDEX note_resources_resource ON note_resources(resource_id, note_id);

        CREATE TABLE changes (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            item_type TEXT NOT NULL,
            item_id TEXT NOT NULL,
            change_type TEXT NOT NULL,
            time INTEGER NOT NULL,
            actor TEXT NOT NULL
        );

        -- Full states of a note as left by an actor; a burst by one actor updates its last row.
        CREATE TABLE revisions (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            note_id TEXT NOT NULL,
            time INTEGER NOT NULL,
            first_time INTEGER NOT NULL,
            actor TEXT NOT NULL,
            title TEXT NOT NULL,
            body BLOB NOT NULL,
            edits INTEGER NOT NULL DEFAULT 1
        );
        CREATE INDEX revisions_note ON revisions(note_id, id);

        -- Small durable values other parts keep (cursors, leases, the profile's own id).
        CREATE TABLE meta (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );

        -- Keyword index: external content, kept in step by triggers.
        CREATE VIRTUAL TABLE notes_fts USING fts5(
            title, body,
            content='notes', content_rowid='rowid',
            tokenize='unicode61 remove_diacritics 2',
            prefix='2 3'
        );
        CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes BEGIN
            INSERT INTO notes_fts(rowid, title, body) VALUES (new.rowid, new.title, new.body);
        END;
        CREATE TRIGGER notes_fts_delete AFTER DELETE ON notes BEGIN
            INSERT INTO notes_fts(notes_fts, rowid, title, body)
                VALUES ('delete', old.rowid, old.title, old.body);
        END;
        CREATE TRIGGER notes_fts_update AFTER UPDATE OF title, body ON notes BEGIN
            INSERT INTO notes_fts(notes_fts, rowid, title, body)
                VALUES ('delete', old.rowid, old.title, old.body);
            INSERT INTO notes_fts(rowid, title, body) VALUES (new.rowid, new.title, new.body);
        END;
        """
    )


def _v2(db: apsw.Connection) -> None:
    # Keyword search excludes trashed notes and conflicts through this small partial index
    # instead of reading every matching row; the covering index serves filter-only queries
    # (type:todo, updated:…) sorted by date without touching the table.
    db.execute(
        """
        CREATE INDEX notes_hidden ON notes(deleted_time, is_conflict)
            WHERE deleted_time > 0 OR is_conflict != 0;
        CREATE INDEX changes_item ON changes(item_id, id);
        CREATE INDEX notes_filters ON notes(
            user_updated_time, is_todo, todo_completed, todo_due, user_created_time,
            parent_id, deleted_time, is_conflict
        );
        """
    )


_FTS_V3 = """
    CREATE VIRTUAL TABLE notes_fts USING fts5(
        title, headings, body,
        content='notes', content_rowid='rowid',
        tokenize='unicode61 remove_diacritics 2',
        prefix='2 3'
    );
    CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes BEGIN
        INSERT INTO notes_fts(rowid, title, headings, body)
            VALUES (new.rowid, new.title, new.headings, new.body);
    END;
    CREATE TRIGGER notes_fts_delete AFTER DELETE ON notes BEGIN
        INSERT INTO notes_fts(notes_fts, rowid, title, headings, body)
            VALUES ('delete', old.rowid, old.title, old.headings, old.body);
    END;
    -- Only when the text changed: moving a note or ticking a to-do leaves its words as they are.
    CREATE TRIGGER notes_fts_update AFTER UPDATE OF title, headings, body ON notes
        WHEN old.title IS NOT new.title OR old.headings IS NOT new.headings OR old.body IS NOT new.body
    BEGIN
        INSERT INTO notes_fts(notes_fts, rowid, title, headings, body)
            VALUES ('delete', old.rowid, old.title, old.headings, old.body);
        INSERT INTO notes_fts(rowid, title, headings, body)
            VALUES (new.rowid, new.title, new.headings, new.body);
    END;
"""


def _v3(db: apsw.Connection) -> None:
    # The headings become a column of their own, so that BM25 can weigh a word in a heading
    # above one in the text. The store writes ``headings`` with every body (``heading_text``);
    # here the notes saved before are parsed once, and the keyword index is built again. A long
    # note's are those of its opening (``notes.largeNoteChars``, whose default it is: the setting
    # is not read here; a note's next save writes them by the profile's), as the store's.
    db.execute(
        """
        DROP TRIGGER notes_fts_insert;
        DROP TRIGGER notes_fts_delete;
        DROP TRIGGER notes_fts_update;
        DROP TABLE notes_fts;
        ALTER TABLE notes ADD COLUMN headings TEXT NOT NULL DEFAULT '';
        """
    )
    last = -1
    while rows := db.execute(
        "SELECT rowid, body FROM notes WHERE rowid > ? ORDER BY rowid LIMIT 500", (last,)
    ).fetchall():
        for rowid, body in rows:
            if headings := heading_text(opening(body, LARGE_NOTE_CHARS.default)):
                db.execute("UPDATE notes SET headings = ? WHERE rowid = ?", (headings, rowid))
        last = rows[-1][0]
    db.execute(_FTS_V3)
    db.execute("INSERT INTO notes_fts(notes_fts) VALUES ('rebuild')")


def _v4(db: apsw.Connection) -> None:
    # Revisions become deltas against the one before (``noted.store.history``): ``base`` names it
    # (NULL: the row is whole, as every row before), ``depth`` counts the deltas to a whole row.
    db.execute(
        """
        ALTER TABLE revisions ADD COLUMN base INTEGER;
        ALTER TABLE revisions ADD COLUMN depth INTEGER NOT NULL DEFAULT 0;
        """
    )


def _v5(db: apsw.Connection) -> None:
    # What a save was when its actor does not tell (``noted.store.revisions.labelled``); "" before.
    db.execute("ALTER TABLE revisions ADD COLUMN label TEXT NOT NULL DEFAULT ''")


def _v6(db: apsw.Connection) -> None:
    # A note's place (notebook, trash, tags) just after each change to it (``noted.store.sqlite.feed``),
    # so the review tells one actor's move or tags from a later one's; NULL for the rows before.
    db.execute("ALTER TABLE changes ADD COLUMN place TEXT")


def _v7(db: apsw.Connection) -> None:
    # What a replace or a delete of an attachment took away, kept with its file
    # (``noted.store.history.versions``), so no version of an attachment is lost.
    db.execute(VERSIONS_SCHEMA.format(name="resource_versions"))


def _v8(db: apsw.Connection) -> None:
    # The file steps an attachment's commit owes, recorded with its rows (``noted.store.sqlite.steps``).
    db.execute(STEPS_SCHEMA)


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "notes, folders, tags, resources, changes, revisions", _v1),
    Migration(2, "indexes for keyword search filters", _v2),
    Migration(3, "headings as a keyword index column of their own", _v3),
    Migration(4, "revisions stored as deltas, thinned by age", _v4),
    Migration(5, "a label on revisions that tells saves of one actor apart", _v5),
    Migration(6, "a note's place after each change in the feed", _v6),
    Migration(7, "the versions of attachments, kept when one is replaced or deleted", _v7),
    Migration(8, "the file steps an attachment's commit owes", _v8),
)

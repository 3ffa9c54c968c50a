"""A scratch in-memory copy of the store's schema, filled with notes kept somewhere else.

Keyword search over Joplin runs noted's own query engine on the notes changed lately (Joplin's
search index lags behind): they are copied here with what the query's filters look at, so the
search compiles the same SQL as on the embedded store, and the layout of the store's tables
stays known only to the store.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import apsw

from noted.models import Folder, Note, Resource, Tag
from noted.store.sqlite.base import NOTE_COLUMNS
from noted.store.sqlite.db import add_functions
from noted.store.sqlite.schema import MIGRATIONS


def scratch_copy(notes: Iterable[Note], headings: Callable[[Note], str]) -> apsw.Connection:
    """A new in-memory database with the store's schema holding ``notes`` (the caller closes it).

    ``headings`` gives a note's ``heading_text``, which the caller keeps (parsing 500 notes again
    for every search would take ~70 ms; a long note's are of its opening, as the store's).
    """
    conn = apsw.Connection(":memory:")
    add_functions(conn)
    try:
        for migration in MIGRATIONS:
            migration.apply(conn)
        marks = ",".join("?" * 15)
        for n in notes:
            conn.execute(
                f"INSERT INTO notes({NOTE_COLUMNS}, headings) VALUES ({marks})",
                (
                    *(n.id, n.parent_id, n.title, n.body, n.created_time, n.updated_time),
                    *(n.user_created_time, n.user_updated_time, int(n.is_todo), n.todo_due),
                    *(n.todo_completed, n.source_url, n.deleted_time, int(n.is_conflict)),
                    headings(n),
                ),
            )
    except BaseException:
        conn.close()
        raise
    return conn


def add_folders(conn: apsw.Connection, folders: Iterable[Folder]) -> None:
    """Copy notebooks in (for ``notebook:`` filters)."""
    for f in folders:
        conn.execute(
            "INSERT INTO folders(id, title, parent_id, created_time, updated_time, deleted_time) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (f.id, f.title, f.parent_id, f.created_time, f.updated_time, f.deleted_time),
        )


def add_tags(conn: apsw.Connection, note_ids: Sequence[str], tags_of: Callable[[str], Iterable[Tag]]) -> None:
    """Copy in the tags of these notes (for ``tag:`` filters)."""
    for note_id in note_ids:
        for tag in tags_of(note_id):
            conn.execute(
                "INSERT OR IGNORE INTO tags(id, title, created_time, updated_time) VALUES (?, ?, ?, ?)",
                (tag.id, tag.title, tag.created_time, tag.updated_time),
            )
            conn.execute(
                "INSERT INTO note_tags(note_id, tag_id, created_time) VALUES (?, ?, 0)", (note_id, tag.id)
            )


def add_resources(
    conn: apsw.Connection, note_ids: Sequence[str], resources_of: Callable[[str], Iterable[Resource]]
) -> None:
    """Copy in the attachments of these notes (for ``resource:`` filters), type only."""
    for note_id in note_ids:
        for res in resources_of(note_id):
            conn.execute(
                "INSERT OR IGNORE INTO resources(id, mime, created_time, updated_time) VALUES (?, ?, 0, 0)",
                (res.id, res.mime),
            )
            conn.execute(
                "INSERT OR IGNORE INTO note_resources(note_id, resource_id) VALUES (?, ?)", (note_id, res.id)
            )

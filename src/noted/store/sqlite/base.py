"""What the parts of the SQLite store share: the columns they read, rows as frozen dataclasses, one
note or notebook read by id."""

from __future__ import annotations

from typing import Any

import apsw

from noted.errors import NotFoundError
from noted.models import Folder, Note, NoteMeta, Resource, Tag

NOTE_COLUMNS = (
    "id, parent_id, title, body, created_time, updated_time, user_created_time, user_updated_time, "
    "is_todo, todo_due, todo_completed, source_url, deleted_time, is_conflict"
)
META_COLUMNS = (
    "id, parent_id, title, created_time, updated_time, user_created_time, user_updated_time, "
    "is_todo, todo_due, todo_completed, source_url, deleted_time, is_conflict, length(body)"
)
FOLDER_COLUMNS = "id, title, parent_id, created_time, updated_time, deleted_time"
RESOURCE_COLUMNS = "id, title, filename, mime, size, file_extension, created_time, updated_time"


def note_from_row(row: Any) -> Note:
    (id_, parent, title, body, ct, ut, uct, uut, todo, due, done, url, deleted, conflict) = row
    return Note(
        id_, parent, title, body, ct, ut, uct, uut, bool(todo), due, done, url, deleted, bool(conflict)
    )


def meta_from_row(row: Any) -> NoteMeta:
    (id_, parent, title, ct, ut, uct, uut, todo, due, done, url, deleted, conflict, length) = row
    return NoteMeta(
        id_, parent, title, ct, ut, uct, uut, bool(todo), due, done, url, deleted, bool(conflict), length
    )


def folder_from_row(row: Any) -> Folder:
    return Folder(*row)


def resource_from_row(row: Any) -> Resource:
    return Resource(*row)


def tag_from_row(row: Any) -> Tag:
    return Tag(*row)


def folder_row(conn: apsw.Connection, folder_id: str) -> Folder:
    row = conn.execute(f"SELECT {FOLDER_COLUMNS} FROM folders WHERE id = ?", (folder_id,)).fetchone()
    if row is None:
        raise NotFoundError(f'no notebook with id "{folder_id}"')
    return folder_from_row(row)


def note_row(conn: apsw.Connection, note_id: str) -> Note:
    row = conn.execute(f"SELECT {NOTE_COLUMNS} FROM notes WHERE id = ?", (note_id,)).fetchone()
    if row is None:
        raise NotFoundError(f'no note with id "{note_id}"')
    return note_from_row(row)

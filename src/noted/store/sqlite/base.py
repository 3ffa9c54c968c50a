"""What the parts of the SQLite store share: row conversion, the change feed writer, clocks."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import apsw

from noted.errors import InvalidInputError, NotFoundError
from noted.models import ChangeType, Folder, ItemType, Note, NoteMeta, Resource, Tag, new_id, now_ms
from noted.store.rules import clean_title
from noted.store.sqlite.db import Database

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


class StoreBase:
    """State every part of the SQLite store uses."""

    db: Database
    resources_dir: Path

    @staticmethod
    def record(
        conn: apsw.Connection,
        item_type: ItemType,
        item_id: str,
        change_type: ChangeType,
        actor: str,
        time: int | None = None,
    ) -> None:
        """Append one row to the change feed, inside the caller's transaction."""
        if not actor:
            raise ValueError("every write needs an actor")
        conn.execute(
            "INSERT INTO changes(item_type, item_id, change_type, time, actor) VALUES (?, ?, ?, ?, ?)",
            (item_type.value, item_id, change_type.value, time or now_ms(), actor),
        )

    @staticmethod
    def folder_row(conn: apsw.Connection, folder_id: str) -> Folder:
        row = conn.execute(f"SELECT {FOLDER_COLUMNS} FROM folders WHERE id = ?", (folder_id,)).fetchone()
        if row is None:
            raise NotFoundError(f'no notebook with id "{folder_id}"')
        return folder_from_row(row)

    @staticmethod
    def note_row(conn: apsw.Connection, note_id: str) -> Note:
        row = conn.execute(f"SELECT {NOTE_COLUMNS} FROM notes WHERE id = ?", (note_id,)).fetchone()
        if row is None:
            raise NotFoundError(f'no note with id "{note_id}"')
        return note_from_row(row)

    @staticmethod
    def descendant_folder_ids(conn: apsw.Connection, folder_id: str) -> list[str]:
        """``folder_id`` and every notebook below it, at any depth."""
        rows = conn.execute(
            """
            WITH RECURSIVE sub(id) AS (
                SELECT ? UNION SELECT f.id FROM folders f JOIN sub ON f.parent_id = sub.id
            )
            SELECT id FROM sub
            """,
            (folder_id,),
        ).fetchall()
        return [r[0] for r in rows]


def restore_folder_chain(conn: apsw.Connection, folder_id: str, actor: str) -> None:
    """Un-trash ``folder_id`` and its ancestors (only the notebooks, not their notes)."""
    seen: set[str] = set()
    while folder_id and folder_id not in seen:
        seen.add(folder_id)
        try:
            folder = StoreBase.folder_row(conn, folder_id)
        except NotFoundError:
            return
        if folder.is_trashed:
            conn.execute("UPDATE folders SET deleted_time = 0 WHERE id = ?", (folder_id,))
            StoreBase.record(conn, ItemType.FOLDER, folder_id, ChangeType.UPDATE, actor)
        folder_id = folder.parent_id


def ensure_tag(conn: apsw.Connection, title: str, actor: str) -> Tag:
    """The tag with this title (case-insensitive), created when missing."""
    title = clean_title(title, "tag")
    if not title:
        raise InvalidInputError("a tag needs a title")
    row = conn.execute(
        "SELECT id, title, created_time, updated_time FROM tags WHERE title = ? COLLATE NOCASE", (title,)
    ).fetchone()
    if row:
        return tag_from_row(row)
    now = now_ms()
    tag = Tag(new_id(), title, now, now)
    conn.execute(
        "INSERT INTO tags(id, title, created_time, updated_time) VALUES (?, ?, ?, ?)",
        (tag.id, tag.title, now, now),
    )
    StoreBase.record(conn, ItemType.TAG, tag.id, ChangeType.CREATE, actor, now)
    return tag


def add_tags(conn: apsw.Connection, note_id: str, titles: Sequence[str], actor: str) -> list[Tag]:
    """Link ``note_id`` to each tag title (creating missing tags); returns the tags linked now.

    The change feed gets one ``note_tag`` row per new link whose ``item_id`` is the note's id, so
    followers refresh that note.
    """
    linked: list[Tag] = []
    for title in titles:
        tag = ensure_tag(conn, title, actor)
        added = conn.execute(
            "INSERT OR IGNORE INTO note_tags(note_id, tag_id, created_time) VALUES (?, ?, ?) RETURNING 1",
            (note_id, tag.id, now_ms()),
        ).fetchone()
        if added:
            StoreBase.record(conn, ItemType.NOTE_TAG, note_id, ChangeType.CREATE, actor)
        linked.append(tag)
    return linked

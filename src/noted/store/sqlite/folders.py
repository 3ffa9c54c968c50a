"""Notebooks: nested to any depth, moved to the trash with their notes, restored together."""

from __future__ import annotations

import apsw

from noted.errors import InvalidInputError, NotFoundError
from noted.models import ChangeType, Folder, ItemState, ItemType, new_id, now_ms
from noted.store.rules import clean_notebook_title
from noted.store.sqlite.base import FOLDER_COLUMNS, folder_from_row, folder_row
from noted.store.sqlite.db import Database
from noted.store.sqlite.feed import item_state, record


class Folders:
    """The notebooks of the SQLite store."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def list_folders(self, *, include_trashed: bool = False) -> list[Folder]:
        where = "" if include_trashed else "WHERE deleted_time = 0"
        with self.db.read() as conn:
            rows = conn.execute(
                f"SELECT {FOLDER_COLUMNS} FROM folders {where} ORDER BY title COLLATE NOCASE, id"
            ).fetchall()
        return [folder_from_row(r) for r in rows]

    def get_folder(self, folder_id: str) -> Folder:
        with self.db.read() as conn:
            return folder_row(conn, folder_id)

    def folder_note_counts(self) -> dict[str, int]:
        """Notes (not trashed) directly inside each notebook."""
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT parent_id, count(*) FROM notes WHERE deleted_time = 0 GROUP BY parent_id"
            ).fetchall()
        return dict(rows)

    def create_folder(
        self, title: str, *, parent_id: str = "", actor: str, made_id: str | None = None
    ) -> Folder:
        title = clean_notebook_title(title)
        now = now_ms()
        folder = Folder(made_id or new_id(), title, parent_id, now, now)
        with self.db.write() as conn:
            if parent_id:
                self._live_parent(conn, parent_id)
            conn.execute(
                f"INSERT INTO folders({FOLDER_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
                (folder.id, folder.title, folder.parent_id, now, now, 0),
            )
            record(conn, ItemType.FOLDER, folder.id, ChangeType.CREATE, actor, now)
        return folder

    def update_folder(
        self, folder_id: str, *, title: str | None = None, parent_id: str | None = None, actor: str
    ) -> Folder:
        with self.db.write() as conn:
            folder = folder_row(conn, folder_id)
            new_title = folder.title if title is None else clean_notebook_title(title)
            new_parent = folder.parent_id if parent_id is None else parent_id
            if new_parent and new_parent != folder.parent_id:
                if new_parent in descendant_folder_ids(conn, folder_id):
                    raise InvalidInputError(
                        f'cannot move notebook "{folder.title}" into itself or one of its sub-notebooks'
                    )
                self._live_parent(conn, new_parent)
            now = max(now_ms(), folder.updated_time + 1)
            conn.execute(
                "UPDATE folders SET title = ?, parent_id = ?, updated_time = ? WHERE id = ?",
                (new_title, new_parent, now, folder_id),
            )
            was = ItemState(folder.title, folder.parent_id, folder.deleted_time)
            record(conn, ItemType.FOLDER, folder_id, ChangeType.UPDATE, actor, now, was=was)
            return folder_row(conn, folder_id)

    def trash_folder(self, folder_id: str, *, actor: str) -> None:
        """Move a notebook, its sub-notebooks and their notes to the trash, in one transaction."""
        with self.db.write() as conn:
            folder = folder_row(conn, folder_id)
            if folder.is_trashed:
                return
            # A stamp no earlier trashing used: restoring brings back exactly what went with it.
            (latest,) = conn.execute(
                "SELECT max((SELECT max(deleted_time) FROM notes), (SELECT max(deleted_time) FROM folders))"
            ).fetchone()
            now = max(now_ms(), (latest or 0) + 1)
            ids = descendant_folder_ids(conn, folder_id)
            marks = ",".join("?" * len(ids))
            folders = [
                (fid, ItemState(title, parent, 0))
                for fid, title, parent in conn.execute(
                    f"SELECT id, title, parent_id FROM folders WHERE id IN ({marks}) AND deleted_time = 0",
                    ids,
                ).fetchall()
            ]
            notes = conn.execute(
                f"SELECT id FROM notes WHERE parent_id IN ({marks}) AND deleted_time = 0", ids
            ).fetchall()
            conn.execute(
                f"UPDATE folders SET deleted_time = ? WHERE id IN ({marks}) AND deleted_time = 0", [now, *ids]
            )
            conn.execute(
                f"UPDATE notes SET deleted_time = ? WHERE parent_id IN ({marks}) AND deleted_time = 0",
                [now, *ids],
            )
            # Recorded after the write, so each row keeps the state it left: in the trash.
            for fid, was in folders:
                record(conn, ItemType.FOLDER, fid, ChangeType.UPDATE, actor, now, was=was)
            for (nid,) in notes:
                record(conn, ItemType.NOTE, nid, ChangeType.UPDATE, actor, now)

    def restore_folder(self, folder_id: str, *, actor: str) -> None:
        """Bring back a trashed notebook with what was trashed with it, and its trashed parents."""
        with self.db.write() as conn:
            folder = folder_row(conn, folder_id)
            if not folder.is_trashed:
                return
            restore_folder_chain(conn, folder.parent_id, actor)
            stamp = folder.deleted_time
            ids = descendant_folder_ids(conn, folder_id)
            marks = ",".join("?" * len(ids))
            folders = conn.execute(
                f"SELECT id FROM folders WHERE id IN ({marks}) AND deleted_time = ?", [*ids, stamp]
            ).fetchall()
            notes = conn.execute(
                f"SELECT id FROM notes WHERE parent_id IN ({marks}) AND deleted_time = ?", [*ids, stamp]
            ).fetchall()
            now = now_ms()
            for (fid,) in folders:
                was = item_state(conn, ItemType.FOLDER, fid)
                conn.execute("UPDATE folders SET deleted_time = 0 WHERE id = ?", (fid,))
                record(conn, ItemType.FOLDER, fid, ChangeType.UPDATE, actor, now, was=was)
            for (nid,) in notes:
                conn.execute("UPDATE notes SET deleted_time = 0 WHERE id = ?", (nid,))
                record(conn, ItemType.NOTE, nid, ChangeType.UPDATE, actor, now)

    def _live_parent(self, conn: apsw.Connection, parent_id: str) -> Folder:
        parent = folder_row(conn, parent_id)
        if parent.is_trashed:
            raise InvalidInputError(f'notebook "{parent.title}" is in the trash; restore it first')
        return parent


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
            folder = folder_row(conn, folder_id)
        except NotFoundError:
            return
        if folder.is_trashed:
            conn.execute("UPDATE folders SET deleted_time = 0 WHERE id = ?", (folder_id,))
            was = ItemState(folder.title, folder.parent_id, folder.deleted_time)
            record(conn, ItemType.FOLDER, folder_id, ChangeType.UPDATE, actor, was=was)
        folder_id = folder.parent_id

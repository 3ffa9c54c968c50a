"""Attachments: files under ``resources/`` named by id, rows describing them, links from notes.

The file is written (to a temporary name, then renamed) before its row is committed, so a crash
leaves at worst an orphan file, never a row without its file; each name is listed first in this
process's ``PendingFiles``, so the next store to open the profile removes a killed writer's orphans
(``noted.store.sqlite.pending``).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from noted.errors import InvalidInputError, NotFoundError
from noted.models import ChangeType, ItemType, Resource, new_id, now_ms
from noted.store.rules import attachment_name, clean_title, file_extension
from noted.store.sqlite.base import RESOURCE_COLUMNS, resource_from_row
from noted.store.sqlite.db import Database
from noted.store.sqlite.feed import record
from noted.store.sqlite.pending import PendingFiles


class Resources:
    """The attachments of the SQLite store: rows in the database, files in ``resources_dir``."""

    def __init__(self, db: Database, resources_dir: Path, pending: PendingFiles) -> None:
        self.db = db
        self.resources_dir = resources_dir
        self.pending = pending

    def add_resource(self, data: bytes, *, filename: str, mime: str, title: str = "", actor: str) -> Resource:
        name = attachment_name(filename)
        now = now_ms()
        resource = Resource(
            id=new_id(),
            title=clean_title(title or name),
            filename=name,
            mime=mime or "application/octet-stream",
            size=len(data),
            file_extension=file_extension(name),
            created_time=now,
            updated_time=now,
        )
        path = self._file(resource)
        partial = path.with_name(path.name + ".partial")
        self.pending.writing(path.name)
        with open(partial, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(partial, path)
        try:
            with self.db.write() as conn:
                conn.execute(
                    f"INSERT INTO resources({RESOURCE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        *(resource.id, resource.title, resource.filename, resource.mime),
                        *(resource.size, resource.file_extension, now, now),
                    ),
                )
                record(conn, ItemType.RESOURCE, resource.id, ChangeType.CREATE, actor, now)
        except BaseException:
            path.unlink(missing_ok=True)
            raise
        return resource

    def get_resource(self, resource_id: str) -> Resource:
        with self.db.read() as conn:
            row = conn.execute(
                f"SELECT {RESOURCE_COLUMNS} FROM resources WHERE id = ?", (resource_id,)
            ).fetchone()
        if row is None:
            raise NotFoundError(f'no attachment with id "{resource_id}"')
        return resource_from_row(row)

    def resource_path(self, resource_id: str) -> Path:
        return self._file(self.get_resource(resource_id))

    def read_resource(self, resource_id: str) -> bytes:
        path = self.resource_path(resource_id)
        try:
            return path.read_bytes()
        except FileNotFoundError as exc:
            raise NotFoundError(
                f'the file of attachment "{resource_id}" is missing from {path.parent}'
            ) from exc

    def list_resources(self, *, note_id: str | None = None) -> list[Resource]:
        sql = f"SELECT {RESOURCE_COLUMNS} FROM resources"
        params: tuple[str, ...] = ()
        if note_id is not None:
            sql += " WHERE id IN (SELECT resource_id FROM note_resources WHERE note_id = ?)"
            params = (note_id,)
        with self.db.read() as conn:
            return [resource_from_row(r) for r in conn.execute(sql + " ORDER BY created_time, id", params)]

    def resource_notes(self, resource_id: str) -> list[str]:
        """Ids of the notes whose body links the attachment."""
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT note_id FROM note_resources WHERE resource_id = ? ORDER BY note_id", (resource_id,)
            ).fetchall()
        return [r[0] for r in rows]

    def replace_resource(
        self,
        resource_id: str,
        data: bytes,
        *,
        filename: str | None = None,
        mime: str | None = None,
        title: str | None = None,
        actor: str,
    ) -> Resource:
        """New bytes under the same id, so every note that links ``:/id`` shows the new file.

        The new file is written aside first and swapped in as the last step of the row's
        transaction: a failure before it leaves the old file and row as they were.
        """
        old = self.get_resource(resource_id)
        name = attachment_name(filename) if filename is not None else old.filename
        if not name:
            raise InvalidInputError("an attachment needs a file name")
        now = max(now_ms(), old.updated_time + 1)
        new = Resource(
            id=old.id,
            title=old.title if title is None else clean_title(title or name),
            filename=name,
            mime=mime or old.mime,
            size=len(data),
            file_extension=file_extension(name),
            created_time=old.created_time,
            updated_time=now,
        )
        path, old_path = self._file(new), self._file(old)
        partial = path.with_name(path.name + ".partial")
        self.pending.writing(path.name)
        with open(partial, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            with self.db.write() as conn:
                conn.execute(
                    "UPDATE resources SET title = ?, filename = ?, mime = ?, size = ?, file_extension = ?, "
                    "updated_time = ? WHERE id = ?",
                    (new.title, new.filename, new.mime, new.size, new.file_extension, now, new.id),
                )
                record(conn, ItemType.RESOURCE, new.id, ChangeType.UPDATE, actor, now)
                os.replace(partial, path)
        finally:
            partial.unlink(missing_ok=True)
        if old_path != path:
            with contextlib.suppress(FileNotFoundError):
                old_path.unlink()
        return new

    def delete_resource(self, resource_id: str, *, actor: str) -> None:
        """Delete an attachment for good (links in note bodies stay as text)."""
        resource = self.get_resource(resource_id)
        with self.db.write() as conn:
            conn.execute("DELETE FROM resources WHERE id = ?", (resource_id,))
            record(conn, ItemType.RESOURCE, resource_id, ChangeType.DELETE, actor)
        with contextlib.suppress(FileNotFoundError):
            self._file(resource).unlink()

    def orphan_file(self, name: str) -> bool:
        """True when no attachment row names the file ``resources/name`` (its writer never committed)."""
        with self.db.read() as conn:
            row = conn.execute(
                f"SELECT {RESOURCE_COLUMNS} FROM resources WHERE id = ?", (name.split(".", 1)[0],)
            ).fetchone()
        return row is None or self._file(resource_from_row(row)).name != name

    def _file(self, resource: Resource) -> Path:
        suffix = f".{resource.file_extension}" if resource.file_extension else ""
        return self.resources_dir / f"{resource.id}{suffix}"

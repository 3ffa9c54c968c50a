"""Attachments: files under ``resources/`` named by id, rows describing them, links from notes.

A new file is written (to a temporary name, then renamed) before its row is committed, so a crash
leaves at worst an orphan file, never a row without its file; each name is listed first in this
process's ``PendingFiles``, so the next store to open the profile removes a killed writer's orphans
(``noted.store.sqlite.pending``). A replace's new bytes go in only after its row commits, the rename
owed in the row's transaction (``noted.store.sqlite.steps``): the row and the file change together.

What a replace or a delete takes away is kept first (``noted.store.history.versions``), and
``restore_resource_version`` puts a version back under the same id, a deleted attachment included.
"""

from __future__ import annotations

import os
from pathlib import Path

from noted.errors import InvalidInputError, NotFoundError
from noted.models import ChangeType, ItemState, ItemType, Resource, ResourceVersion, new_id, now_ms
from noted.store.durable import sync_dir, write_aside, write_file
from noted.store.history.versions import VersionTable
from noted.store.rules import attachment_name, clean_title, file_extension
from noted.store.sqlite.base import RESOURCE_COLUMNS, resource_from_row
from noted.store.sqlite.db import Database
from noted.store.sqlite.feed import file_state, record
from noted.store.sqlite.pending import PendingFiles
from noted.store.sqlite.steps import FileSteps, Step

SWAP = "swap"
"""The step a replace owes once its row commits: its new file renamed into place (``Resources.swap_in``)."""


class Resources:
    """The attachments of the SQLite store: rows in the database, files in ``resources_dir``."""

    def __init__(
        self, db: Database, resources_dir: Path, pending: PendingFiles, versions: VersionTable
    ) -> None:
        self.db = db
        self.resources_dir = resources_dir
        self.pending = pending
        self.versions = versions
        self.steps = FileSteps(db, pending)

    def add_resource(
        self,
        data: bytes,
        *,
        filename: str,
        mime: str,
        title: str = "",
        actor: str,
        made_id: str | None = None,
    ) -> Resource:
        name = attachment_name(filename)
        now = now_ms()
        resource = Resource(
            id=made_id or new_id(),
            title=clean_title(title or name),
            filename=name,
            mime=mime or "application/octet-stream",
            size=len(data),
            file_extension=file_extension(name),
            created_time=now,
            updated_time=now,
        )
        path = self._file(resource)
        self.pending.writing(path.name)
        write_file(path, data)
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
        path = self._current(path)
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
        # The version goes first, committed: a kill after the swap below keeps the old bytes.
        changing = self.steps.pending_source(old_path.name) is not None  # replaced earlier in this batch
        version = None if changing else self.versions.keep(old, old_path, actor)
        # The new file goes in only once the row commits (in a batch, the chat's approved writes,
        # which may still roll back, once the batch does): until then the old file stays, and with
        # it the old bytes, whatever happens (a later write failing, a kill). The rename is owed
        # in the row's transaction, so a kill after the commit leaves it to the next open.
        self.pending.writing(path.name)
        partial = write_aside(path, data)
        try:
            with self.db.write() as conn:
                conn.execute(
                    "UPDATE resources SET title = ?, filename = ?, mime = ?, size = ?, file_extension = ?, "
                    "updated_time = ? WHERE id = ?",
                    (new.title, new.filename, new.mime, new.size, new.file_extension, now, new.id),
                )
                was = file_state(old.filename, old.title, None if changing else _read(old_path))
                after = file_state(new.filename, new.title, data, version)
                record(conn, ItemType.RESOURCE, new.id, ChangeType.UPDATE, actor, now, was=was, state=after)
                old_name = old_path.name if old_path != path else ""
                step = self.steps.owe(conn, SWAP, path.name, source=partial.name, old=old_name)
        except BaseException:
            partial.unlink(missing_ok=True)
            self.versions.discard(version)
            raise
        self.db.after(
            commit=lambda: self.steps.take(step, self.swap_in),
            rollback=lambda: partial.unlink(missing_ok=True),
        )
        self.versions.thin(resource_id)
        return new

    def delete_resource(self, resource_id: str, *, actor: str) -> None:
        """Delete an attachment (links in note bodies stay as text); it is kept as a version, so
        ``restore_resource_version`` can bring it back under the same id. Its file is noted's: it
        goes too (None: no ``KeptFile``)."""
        resource = self.get_resource(resource_id)
        self.delete_keeping(resource, self._current(self._file(resource)), actor=actor)

    def delete_keeping(
        self,
        resource: Resource,
        source: Path | bytes | None,
        *,
        actor: str,
        place: str = "",
        stayed: bool = False,
    ) -> None:
        """Delete the attachment's row, keeping ``source`` (its file, or its bytes) as its newest
        version in the same transaction (``stayed``: its file stays at ``place``); then remove its
        file in ``resources/``, if any."""
        path = self._file(resource)
        self.pending.writing(path.name)  # a kill after the commit: the next sweep removes the file
        file = self.versions.stash(resource, source)
        try:
            with self.db.write() as conn:
                conn.execute("DELETE FROM resources WHERE id = ?", (resource.id,))
                kept = 0
                if file is not None:
                    kept = self.versions.record(
                        conn, resource, file, actor, deleted=True, place=place, stayed=stayed
                    )
                gone = ItemState(resource.filename, version=kept)
                record(conn, ItemType.RESOURCE, resource.id, ChangeType.DELETE, actor, state=gone)
        except BaseException:
            if file is not None:
                (self.versions.folder / file).unlink(missing_ok=True)
            raise
        # Once the delete commits (in a batch, which may still roll back, once the batch does), and
        # only if no row names the file again by then; a kill before it: the next sweep.
        self.db.after(commit=lambda: self._unlink_orphan(path), rollback=lambda: None)
        self.versions.thin(resource.id)

    def resource_versions(self, resource_id: str) -> list[ResourceVersion]:
        """The kept versions of the attachment, newest first (it may be deleted)."""
        return self.versions.versions(resource_id)

    def kept_resource_ids(self, prefix: str) -> list[str]:
        return self.versions.ids_starting(prefix)

    def restore_resource_version(self, resource_id: str, version_id: int, *, actor: str) -> Resource:
        """Put version ``version_id`` back under the attachment's id: the current file is kept
        as a version in turn, and a deleted attachment comes back."""
        version = self.version_of(resource_id, version_id)
        data = self.versions.read(version_id)
        was = version.resource
        try:
            self.get_resource(resource_id)
        except NotFoundError:
            return self.add_back(was, data, actor=actor)
        return self.replace_resource(
            resource_id, data, filename=was.filename, mime=was.mime, title=was.title, actor=actor
        )

    def version_of(self, resource_id: str, version_id: int) -> ResourceVersion:
        """Version ``version_id``, checked to be one of the attachment's; ``NotFoundError`` if not."""
        version = self.versions.get(version_id)
        if version.resource.id != resource_id:
            raise NotFoundError(
                f'no version {version_id} of attachment "{resource_id}"', hint="`noted history ID` lists them"
            )
        return version

    def add_back(self, was: Resource, data: bytes, *, actor: str) -> Resource:
        """The deleted attachment ``was`` made again under its id, with ``data``."""
        now = now_ms()
        resource = Resource(
            was.id, was.title, was.filename, was.mime, len(data), was.file_extension, was.created_time, now
        )
        path = self._file(resource)
        self.pending.writing(path.name)
        write_file(path, data)
        with self.db.write() as conn:
            conn.execute(
                f"INSERT INTO resources({RESOURCE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    *(resource.id, resource.title, resource.filename, resource.mime, len(data)),
                    *(resource.file_extension, resource.created_time, now),
                ),
            )
            record(conn, ItemType.RESOURCE, resource.id, ChangeType.CREATE, actor, now)
        return resource

    def _unlink_orphan(self, path: Path) -> None:
        if self.orphan_file(path.name):
            path.unlink(missing_ok=True)

    def orphan_file(self, name: str) -> bool:
        """True when no attachment row names the file ``resources/name`` (its writer never
        committed), or, for an aside (``NAME.partial``), no step owed names it."""
        if name.endswith(".partial"):
            return not self.steps.names(name)
        with self.db.read() as conn:
            row = conn.execute(
                f"SELECT {RESOURCE_COLUMNS} FROM resources WHERE id = ?", (name.split(".", 1)[0],)
            ).fetchone()
        return row is None or self._file(resource_from_row(row)).name != name

    def swap_in(self, step: Step) -> None:
        """A replace's row is committed: its new file (``step.source``) takes the place of the old
        one. Done already when the aside is gone (a later replace of the same file in the batch
        may have taken it); the old file of another name goes once the new one is in place."""
        partial, path = self.resources_dir / step.source, self.resources_dir / step.target
        if partial.exists():
            os.replace(partial, path)
            sync_dir(self.resources_dir)
        if step.old and path.exists():
            (self.resources_dir / step.old).unlink(missing_ok=True)

    def _current(self, path: Path) -> Path:
        """Where the bytes the row describes are: the attachment's file, or the aside a batch still
        open replaced it with (put in place when the batch commits)."""
        aside = self.steps.pending_source(path.name)
        return self.resources_dir / aside if aside else path

    def _file(self, resource: Resource) -> Path:
        suffix = f".{resource.file_extension}" if resource.file_extension else ""
        return self.resources_dir / f"{resource.id}{suffix}"


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None

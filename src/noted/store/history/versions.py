"""Attachment versions: what a replace or a delete took away, kept in the profile with its bytes.

The embedded store's ``resource_versions`` (the Markdown folder's mirror has it too) and the Joplin
sidecar's ``joplin_resource_versions`` have the same columns, and both stores keep them through a
``VersionTable``. A row names its file in the table's own folder (``resources-versions/`` beside
``resources/``), written before the row commits: a hard link to the attachment's file where noted
alone writes it (files are replaced by renaming, so the link keeps the old bytes), else a copy,
fsynced. Each name is first listed in a ``PendingFiles`` list, so a file whose row never committed
(a kill) is removed by the next store to open the profile, and one whose row was thinned is removed
after the commit, or by that sweep after a kill: a row never lacks its file, and only files this
table wrote are ever removed.

Which versions stay is the note history's rule (``noted.store.history.thinning``, the
``history.*`` settings), applied to each attachment's versions after every replace or delete and by
``prune_history``; an attachment's newest version always stays, so a deleted one can come back.
The rule keeps what each writer left before another took over, so it is given each version's
maker (``VersionTable._made``), not its own actor, who took that state away.
"""

from __future__ import annotations

import os
import re
import secrets
from pathlib import Path
from typing import TYPE_CHECKING, Any

import apsw

from noted.errors import NotFoundError
from noted.models import ChangeType, ItemType, Resource, ResourceVersion, now_ms
from noted.store.durable import sync_dir, write_file
from noted.store.history.thinning import Row, Thinning, dropped

if TYPE_CHECKING:
    from noted.store.sqlite.db import Database
    from noted.store.sqlite.pending import PendingFiles

_COLUMNS = (
    "id, resource_id, title, filename, mime, size, file_extension, created_time, updated_time, "
    "time, actor, deleted, file, place"
)


_HEX = re.compile(r"[0-9a-f]+")


def versions_folder(resources_dir: Path) -> Path:
    """Where the versions of the attachments kept in ``resources_dir`` go: a folder beside it."""
    return resources_dir.with_name(f"{resources_dir.name}-versions")


def pending_lists(folder: Path) -> Path:
    """Where the writers of a versions ``folder`` list the files they write (``PendingFiles``)."""
    return folder.with_name(f".pending-{folder.name}")


class VersionTable:
    """One table of attachment versions and the folder of their files."""

    def __init__(
        self,
        db: Database,
        name: str,
        pending: PendingFiles,
        rule: Thinning | None = None,
        *,
        feed: str = "changes",
    ) -> None:
        self.db = db
        self.name = name
        self.feed = feed  # the change feed in ``db``: who added each attachment
        self.pending = pending
        self.folder = pending.folder
        self.rule = rule or Thinning()

    # Keeping -----------------------------------------------------------------------------
    def stash(self, resource: Resource, source: Path | bytes | None) -> str | None:
        """Write the version's file (``source``: a file noted alone writes, linked, or the bytes),
        durably, before its row; its name, or None when there are no bytes to keep (``source`` is
        None or a missing file)."""
        if source is None:
            return None
        suffix = f".{resource.file_extension}" if resource.file_extension else ""
        name = f"{resource.id}-{secrets.token_hex(6)}{suffix}"
        self.folder.mkdir(parents=True, exist_ok=True)
        self.pending.writing(name)
        path = self.folder / name
        if isinstance(source, Path):
            try:
                os.link(source, path)
                sync_dir(self.folder)
                return name
            except FileNotFoundError:
                return None  # a broken attachment: there are no bytes to keep
            except OSError:  # a file system without hard links
                source = source.read_bytes()
        write_file(path, source)
        sync_dir(self.folder)
        return name

    def record(
        self,
        conn: apsw.Connection,
        resource: Resource,
        file: str,
        actor: str,
        *,
        deleted: bool = False,
        place: str = "",
        now: int | None = None,
        stayed: bool = False,
    ) -> int:
        """Add the version's row, inside ``conn``'s transaction; returns its id. ``stayed``: a
        delete that left the file at ``place`` (kept as ``deleted`` 2)."""
        r = resource
        conn.execute(
            f"INSERT INTO {self.name}(resource_id, title, filename, mime, size, file_extension, "
            "created_time, updated_time, time, actor, deleted, file, place) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                *(r.id, r.title, r.filename, r.mime, r.size, r.file_extension, r.created_time),
                *(r.updated_time, now or now_ms(), actor, 2 if stayed else int(deleted), file, place),
            ),
        )
        return int(conn.last_insert_rowid())

    def keep(
        self,
        resource: Resource,
        source: Path | bytes | None,
        actor: str,
        *,
        deleted: bool = False,
        place: str = "",
    ) -> int | None:
        """Keep ``resource`` as it is now, file and row, committed before the change that replaces
        it is made; the version's id (None: ``source`` is a missing file, nothing to keep)."""
        file = self.stash(resource, source)
        if file is None:
            return None
        try:
            with self.db.write() as conn:
                return self.record(conn, resource, file, actor, deleted=deleted, place=place)
        except BaseException:
            (self.folder / file).unlink(missing_ok=True)
            raise

    def discard(self, version_id: int | None) -> None:
        """Drop a version kept for a change that then failed (nothing was replaced)."""
        if version_id is not None:
            self._remove([version_id])

    # Reading -----------------------------------------------------------------------------
    def versions(self, resource_id: str) -> list[ResourceVersion]:
        """The kept versions of an attachment, newest first ([] for an id never kept)."""
        with self.db.read() as conn:
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM {self.name} WHERE resource_id = ? ORDER BY id DESC", (resource_id,)
            ).fetchall()
        return [_version(r) for r in rows]

    def ids_starting(self, prefix: str) -> list[str]:
        """The attachments with kept versions (deleted ones too) whose id starts with ``prefix``
        (lower-case hex; anything else names none), A→Z."""
        if not _HEX.fullmatch(prefix):
            return []
        with self.db.read() as conn:
            rows = conn.execute(
                f"SELECT DISTINCT resource_id FROM {self.name} WHERE resource_id GLOB ? ORDER BY resource_id",
                (prefix + "*",),
            ).fetchall()
        return [str(r[0]) for r in rows]

    def get(self, version_id: int) -> ResourceVersion:
        return _version(self._row(version_id))

    def place(self, version_id: int) -> str:
        """Where a Markdown folder's attachment file was ("" for a file kept by noted)."""
        return str(self._row(version_id)[13])

    def file(self, version_id: int) -> Path:
        """The file that holds a version's bytes."""
        return self.folder / str(self._row(version_id)[12])

    def read(self, version_id: int) -> bytes:
        """The bytes of a version."""
        try:
            return self.file(version_id).read_bytes()
        except OSError as exc:
            raise NotFoundError(f"the file of version {version_id} is missing from {self.folder}") from exc

    def _row(self, version_id: int) -> Any:
        with self.db.read() as conn:
            row = conn.execute(f"SELECT {_COLUMNS} FROM {self.name} WHERE id = ?", (version_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"no attachment version {version_id}", hint="`noted history ID` lists them")
        return row

    def orphan_file(self, name: str) -> bool:
        """True when no row names the file ``name`` of the folder."""
        with self.db.read() as conn:
            return conn.execute(f"SELECT 1 FROM {self.name} WHERE file = ?", (name,)).fetchone() is None

    # Thinning ----------------------------------------------------------------------------
    def thin(self, resource_id: str, now: int | None = None) -> int:
        """Drop the attachment's versions the history rule thins at ``now``; how many went."""
        with self.db.read() as conn:
            rows = self._made(conn, resource_id)
        drop = dropped(rows, now or now_ms(), self.rule)
        return self._remove(sorted(drop)) if drop else 0

    def _made(self, conn: apsw.Connection, resource_id: str) -> list[Row]:
        """The attachment's versions, oldest first, each with the actor that *made* the state it
        holds, which the rule's "another writer took over" needs: a version's own actor is who
        took that state away, so its maker is the actor of the version before it, or, for the
        first one and one after a delete, whoever added the attachment (the feed's create). One
        whose maker is unknown counts as a writer of its own, so it stays."""
        rows = conn.execute(
            f"SELECT id, time, actor, deleted FROM {self.name} WHERE resource_id = ? ORDER BY id",
            (resource_id,),
        ).fetchall()
        made: list[Row] = []
        before = None
        for version_id, time, actor, deleted in rows:
            if before is not None and not before[1]:
                maker = before[0]
            else:
                since = None if before is None else before[2]
                maker = self._creator(conn, resource_id, since) or f"unknown:{version_id}"
            made.append(Row(int(version_id), int(time), maker))
            before = (str(actor), bool(deleted), int(time))
        return made

    def _creator(self, conn: apsw.Connection, resource_id: str, since: int | None) -> str | None:
        """The actor of the feed's first create of the attachment (at or after ``since``: the one
        that brought it back after a delete kept then); None when the feed has none."""
        sql = f"SELECT actor FROM {self.feed} WHERE item_type = ? AND item_id = ? AND change_type = ?"
        params: tuple[str | int, ...] = (ItemType.RESOURCE.value, resource_id, ChangeType.CREATE.value)
        if since is not None:
            sql += " AND time >= ?"
            params = (*params, since)
        row = conn.execute(sql + " ORDER BY id LIMIT 1", params).fetchone()
        return None if row is None else str(row[0])

    def prune(self, now: int) -> int:
        """Thin every attachment's versions; how many went."""
        with self.db.read() as conn:
            ids = [str(r[0]) for r in conn.execute(f"SELECT DISTINCT resource_id FROM {self.name}")]
        return sum(self.thin(resource_id, now) for resource_id in ids)

    def _remove(self, version_ids: list[int]) -> int:
        """Delete these rows, then their files (listed first: a kill after the commit leaves
        files that the next sweep removes, as no row names them)."""
        marks = ",".join("?" * len(version_ids))
        with self.db.write() as conn:
            files = [
                str(r[0])
                for r in conn.execute(f"SELECT file FROM {self.name} WHERE id IN ({marks})", version_ids)
            ]
            for file in files:
                self.pending.writing(file)
            conn.execute(f"DELETE FROM {self.name} WHERE id IN ({marks})", version_ids)
        self.db.after(commit=lambda: self._unlink_orphans(files), rollback=lambda: None)
        return len(files)

    def _unlink_orphans(self, files: list[str]) -> None:
        """Remove the files no row names once their rows' removal commits (in a batch, the batch)."""
        for file in files:
            if self.orphan_file(file):
                (self.folder / file).unlink(missing_ok=True)


def _version(r: Any) -> ResourceVersion:
    resource = Resource(
        str(r[1]), str(r[2]), str(r[3]), str(r[4]), int(str(r[5])), str(r[6]), int(str(r[7])), int(str(r[8]))
    )
    stayed = str(r[13]) if r[11] == 2 else ""
    return ResourceVersion(int(str(r[0])), resource, int(str(r[9])), str(r[10]), bool(r[11]), stayed)

"""The embedded store: one SQLite file (through apsw) plus a folder of attachment files.

``SqliteStore`` owns its parts, each a module of this package: ``Folders``, ``Notes``, ``Tags``,
``Resources`` and ``History`` (the change feed and the revisions, which ``Notes`` writes to), all
on one ``Database``. It answers the ``Store`` protocol by handing each method to the part that
keeps that kind of item.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

from noted.errors import ProfileError
from noted.store.history.table import RevisionTable
from noted.store.history.thinning import Thinning
from noted.store.protocol import Capabilities
from noted.store.sqlite.db import Database
from noted.store.sqlite.folders import Folders
from noted.store.sqlite.history import History
from noted.store.sqlite.notes import Notes
from noted.store.sqlite.pending import PendingFiles
from noted.store.sqlite.pending import sweep as sweep_pending
from noted.store.sqlite.resources import Resources
from noted.store.sqlite.tags import Tags
from noted.store.sync import SyncConflicts, Syncing

PENDING_LISTS = ".pending"
"""The folder beside ``notes.db`` where each process lists the attachment files it writes."""


class SqliteStore:
    """A ``Store`` kept in the profile's ``notes.db`` and ``resources/`` folder.

    Safe for several threads (one connection each) and several processes (WAL, short write
    transactions that take the lock at once, a busy timeout, and optimistic concurrency on notes).
    """

    capabilities = Capabilities(local_sql=True)

    @property
    def sync(self) -> Syncing | None:
        """None: the profile's own database syncs with nothing."""
        return None

    @property
    def conflicts(self) -> SyncConflicts | None:
        """None: with no sync there are no sync conflicts."""
        return None

    def __init__(self, db: Database, resources_dir: Path, thinning: Thinning | None = None) -> None:
        self.db = db
        self.resources_dir = resources_dir
        self.pending = PendingFiles(resources_dir, db.path.parent / PENDING_LISTS)
        self.history = history = History(db, RevisionTable("revisions", thinning))
        self.folders = folders = Folders(db)
        self.notes = notes = Notes(db, history)
        self.tags = tags = Tags(db)
        self.resources = resources = Resources(db, resources_dir, self.pending)
        # The Store protocol, method by method (mypy checks each against it, as for any method).
        self.list_folders = folders.list_folders
        self.get_folder = folders.get_folder
        self.create_folder = folders.create_folder
        self.update_folder = folders.update_folder
        self.trash_folder = folders.trash_folder
        self.restore_folder = folders.restore_folder
        self.folder_note_counts = folders.folder_note_counts
        self.get_note = notes.get_note
        self.get_notes = notes.get_notes
        self.list_notes = notes.list_notes
        self.count_notes = notes.count_notes
        self.create_note = notes.create_note
        self.update_note = notes.update_note
        self.trash_note = notes.trash_note
        self.restore_note = notes.restore_note
        self.empty_trash = notes.empty_trash
        self.restore_revision = notes.restore_revision
        self.list_tags = tags.list_tags
        self.get_tag = tags.get_tag
        self.find_tag = tags.find_tag
        self.create_tag = tags.create_tag
        self.rename_tag = tags.rename_tag
        self.delete_tag = tags.delete_tag
        self.note_tags = tags.note_tags
        self.note_tag_titles = tags.note_tag_titles
        self.tag_note = tags.tag_note
        self.untag_note = tags.untag_note
        self.add_resource = resources.add_resource
        self.get_resource = resources.get_resource
        self.resource_path = resources.resource_path
        self.read_resource = resources.read_resource
        self.list_resources = resources.list_resources
        self.resource_notes = resources.resource_notes
        self.replace_resource = resources.replace_resource
        self.delete_resource = resources.delete_resource
        self.changes_since = history.changes_since
        self.latest_cursor = history.latest_cursor
        self.item_changes = history.item_changes
        self.note_history = history.note_history
        self.get_revision = history.get_revision
        self.prune_history = history.prune_history

    @classmethod
    def open(
        cls,
        db_path: Path,
        resources_dir: Path,
        *,
        on_upgrade: Callable[[], None] | None = None,
        thinning: Thinning | None = None,
    ) -> SqliteStore:
        """Open (creating and migrating as needed) the database at ``db_path``; ``on_upgrade`` is
        called before an existing database's schema changes; ``thinning`` is the history's rule
        (``history.*`` settings)."""
        resources_dir.mkdir(parents=True, exist_ok=True)
        store = cls(Database(db_path, on_upgrade), resources_dir, thinning)
        sweep_pending(resources_dir, db_path.parent / PENDING_LISTS, store.resources.orphan_file)
        return store

    def close(self) -> None:
        with contextlib.suppress(ProfileError, OSError):  # a closed or failing database: swept next time
            self.pending.close(self.resources.orphan_file)
        self.db.close()

    def batch(self) -> contextlib.AbstractContextManager[None]:
        """Group many writes in one transaction: faster for imports, and all or nothing."""
        return self.db.batch()

    def get_meta(self, key: str) -> str | None:
        """A small durable value kept by some part of noted (a cursor, a lease…)."""
        with self.db.read() as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        with self.db.write() as conn:
            conn.execute(
                "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

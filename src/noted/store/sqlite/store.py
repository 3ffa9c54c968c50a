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
from noted.settings.handles import LARGE_NOTE_CHARS
from noted.store.history.table import RevisionTable
from noted.store.history.thinning import Thinning
from noted.store.history.versions import VersionTable, pending_lists, versions_folder
from noted.store.parts import Parts
from noted.store.protocol import Capabilities
from noted.store.sqlite.db import Database, get_meta, set_meta
from noted.store.sqlite.folders import Folders
from noted.store.sqlite.history import History
from noted.store.sqlite.notes import Notes
from noted.store.sqlite.pending import PendingFiles
from noted.store.sqlite.pending import sweep as sweep_pending
from noted.store.sqlite.resources import SWAP, Resources
from noted.store.sqlite.steps import Taker
from noted.store.sqlite.tags import Tags

PENDING_LISTS = ".pending"
"""The folder beside ``notes.db`` where each process lists the attachment files it writes."""


class SqliteStore(Parts):
    """A ``Store`` kept in the profile's ``notes.db`` and ``resources/`` folder.

    Safe for several threads (one connection each) and several processes (WAL, short write
    transactions that take the lock at once, a busy timeout, and optimistic concurrency on notes).
    """

    capabilities = Capabilities()

    def __init__(
        self,
        db: Database,
        resources_dir: Path,
        thinning: Thinning | None = None,
        part_chars: int = LARGE_NOTE_CHARS.default,
    ) -> None:
        self.db = db
        self.resources_dir = resources_dir
        self.pending = PendingFiles(resources_dir, db.path.parent / PENDING_LISTS)
        kept = versions_folder(resources_dir)
        self.versions = VersionTable(
            db, "resource_versions", PendingFiles(kept, pending_lists(kept)), thinning
        )
        self.history = history = History(db, RevisionTable("revisions", thinning), self.versions)
        self.folders = folders = Folders(db)
        self.notes = notes = Notes(db, history, part_chars)
        self.tags = tags = Tags(db)
        self.resources = resources = Resources(db, resources_dir, self.pending, self.versions)
        self.steps = resources.steps
        self.takers: dict[str, Taker] = {SWAP: resources.swap_in}
        """What takes each kind of file step a commit owes (a Markdown folder's store adds its own)."""
        super().__init__(folders, notes, tags, resources, history)

    @classmethod
    def open(
        cls,
        db_path: Path,
        resources_dir: Path,
        *,
        on_upgrade: Callable[[], None] | None = None,
        thinning: Thinning | None = None,
        part_chars: int = LARGE_NOTE_CHARS.default,
    ) -> SqliteStore:
        """Open (creating and migrating as needed) the database at ``db_path``; ``on_upgrade`` is
        called before an existing database's schema changes; ``thinning`` is the history's rule
        (``history.*`` settings); a note longer than ``part_chars`` (``notes.largeNoteChars``) has
        the headings of its opening weighed by keyword search."""
        resources_dir.mkdir(parents=True, exist_ok=True)
        store = cls(Database(db_path, on_upgrade), resources_dir, thinning, part_chars)
        if store.db.read_only is None:  # the steps a killed writer owed, before its asides are swept
            store.steps.finish(store.takers)
            store.notes.follow_part()
        sweep_pending(resources_dir, db_path.parent / PENDING_LISTS, store.resources.orphan_file)
        kept = store.versions.folder
        sweep_pending(kept, pending_lists(kept), store.versions.orphan_file)
        return store

    def close(self) -> None:
        with contextlib.suppress(ProfileError, OSError):  # a closed or failing database: swept next time
            self.steps.finish(self.takers, own=True)  # a step that failed after its commit: once more
            self.pending.close(self.resources.orphan_file)
        with contextlib.suppress(ProfileError, OSError):
            self.versions.pending.close(self.versions.orphan_file)
        self.db.close()

    def batch(self) -> contextlib.AbstractContextManager[None]:
        """Group many writes in one transaction: faster for imports, and all or nothing."""
        return self.db.batch()

    def get_meta(self, key: str) -> str | None:
        """A small durable value kept by some part of noted (a cursor, a lease…)."""
        with self.db.read() as conn:
            return get_meta(conn, key)

    def set_meta(self, key: str, value: str) -> None:
        with self.db.write() as conn:
            set_meta(conn, key, value)

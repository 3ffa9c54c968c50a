"""The Markdown-folder store: a folder of ``.md`` files is the notebook; a sidecar mirrors it.

    store = VaultStore.open(Path("~/notes").expanduser(), profile.root)
    store.follower.scan()          # what changed while noted was not running (open() does it)
    store.db                       # the mirror: FTS5 keyword index, vectors, chats, lease, feed

The files are the truth. The sidecar (``vault.db`` in the profile) is a full noted database of the
embedded store's schema, kept as a mirror of the files: the ids, the revisions with their actors,
the change feed, the keyword and vector indexes and the chats live there, so search, the indexer,
history, chats and MCP run on it unchanged. Deleting it loses nothing of the notes.

Every write goes to the file first (``Vault.write``: a temporary file beside it, fsync, rename),
then to the mirror, inside one mirror transaction that holds SQLite's write lock from its start: two
noted processes on one folder queue, and the watcher's view of a file noted is writing waits for
the write's row, so noted's own writes are never taken for outside ones. A save based on a version
the file no longer has first records the file's version (actor ``outside``), then raises
``ConflictError``: the front ends' conflict view follows as on the other backends. Another program
writing the file between noted's read and its rename is seen just before the rename
(``FileChanged``): the file is not replaced, its version is recorded, and the write is made again
on it (a save based on the version read then meets the conflict).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from noted.errors import InvalidInputError, ProfileError
from noted.models import Note
from noted.settings.handles import LARGE_NOTE_CHARS
from noted.store.history.thinning import Thinning
from noted.store.parts import Parts
from noted.store.protocol import Capabilities
from noted.store.sqlite import SqliteStore
from noted.store.vault.base import VaultCore
from noted.store.vault.files import Skipped, Vault, decode
from noted.store.vault.folders import Folders
from noted.store.vault.follow import FIRST_SCAN_KEY, Progress
from noted.store.vault.notes import Notes
from noted.store.vault.resources import Resources
from noted.store.vault.tag_sync import sync_tags
from noted.store.vault.tags import Tags
from noted.store.vault.text import FileText
from noted.store.vault.trash import in_trash, sweep_trash_temps
from noted.store.vault.watch import Watcher

SIDECAR_NAME = "vault.db"
ROOT_KEY = "vault.root"


class VaultStore(Parts):
    """A ``Store`` over a folder of Markdown files, mirrored in a sidecar database.

    It owns its parts (``Folders``, ``Notes``, ``Tags``, ``Resources``, each on the shared
    ``VaultCore``; the history is the mirror's) and answers the ``Store`` protocol through them.
    """

    capabilities = Capabilities()

    def __init__(self, vault: Vault, mirror: SqliteStore) -> None:
        self.core = core = VaultCore(vault, mirror)
        self.vault, self.mirror, self.db = vault, mirror, mirror.db
        self.ledger, self.follower = core.ledger, core.follower
        self.folders = folders = Folders(core)
        self.notes = notes = Notes(core)
        self.tags = tags = Tags(core)
        self.resources = resources = Resources(core)
        # Reads are the mirror's, as are a new tag (it lives in the mirror until a note carries it)
        # and a new attachment (it waits in the mirror until the note linking it is written).
        # The vault's parts do what writes the files or reads them: tests/unit/test_vault_store.py
        # checks that every other method is theirs.
        super().__init__(mirror.folders, mirror.notes, mirror.tags, mirror.resources, mirror.history)
        self.create_folder, self.update_folder = folders.create_folder, folders.update_folder
        self.trash_folder, self.restore_folder = folders.trash_folder, folders.restore_folder
        self.create_note, self.update_note = notes.create_note, notes.update_note
        self.trash_note, self.restore_note = notes.trash_note, notes.restore_note
        self.empty_trash, self.restore_revision = notes.empty_trash, notes.restore_revision
        self.rename_tag, self.delete_tag = tags.rename_tag, tags.delete_tag
        self.tag_note, self.untag_note = tags.tag_note, tags.untag_note
        self.add_note_properties = tags.add_note_properties
        self.resource_path, self.read_resource = resources.resource_path, resources.read_resource
        self.replace_resource, self.delete_resource = resources.replace_resource, resources.delete_resource
        self.restore_resource_version = resources.restore_resource_version
        self.note_paths, self.note_path = notes.note_paths, notes.note_path
        self.as_read, self.note_properties = notes.as_read, notes.note_properties
        self.plan_notes = notes.plan_notes
        self.body_with_ids = resources.body_with_ids
        mirror.takers.update(resources.takers())
        self.file_links, self.file_notebook = resources.file_links, resources.file_notebook
        self.keep_beside = resources.keep_beside
        self.folder_parent, self.top_folder_title = folders.folder_parent, folders.top_folder_title
        self._watcher: Watcher | None = None

    @classmethod
    def open(
        cls,
        root: Path,
        profile_dir: Path,
        *,
        progress: Progress | None = None,
        defer_scan: bool = False,
        thinning: Thinning | None = None,
        part_chars: int = LARGE_NOTE_CHARS.default,
    ) -> VaultStore:
        """The store over the folder ``root``, its sidecar in ``profile_dir``, scanned for changes.

        ``defer_scan``: a folder read before is not scanned here; ``start_watching`` scans it in the
        background (the app shows the notes at once). A folder never read is scanned here anyway.
        ``thinning`` and ``part_chars`` go to the mirror (``noted.store.sqlite.SqliteStore.open``).

        Raises:
            ProfileError: the folder is missing, or the profile already follows another folder.
        """
        check_place(root, profile_dir)
        mirror = SqliteStore.open(
            profile_dir / SIDECAR_NAME,
            profile_dir / "vault-resources",
            thinning=thinning,
            part_chars=part_chars,
        )
        try:
            known = mirror.get_meta(ROOT_KEY)
            resolved = str(root.resolve())
            if known not in (None, resolved):
                raise ProfileError(
                    f"this profile follows the Markdown folder {known}, not {resolved}",
                    hint="use one profile per folder: noted --profile NAME --vault DIR",
                )
            if known is None:  # the first time this profile reads the folder: its notes are imported
                mirror.set_meta(FIRST_SCAN_KEY, "pending")
            mirror.set_meta(ROOT_KEY, resolved)
            store = cls(Vault(root, own=profile_dir), mirror)
            if mirror.db.read_only is None:  # what a killed writer's commit owed the folder, first
                mirror.steps.finish(mirror.takers)
            moves = store.vault.moves
            if moves is not None and moves.pending():  # a batch a crash stopped: its moves undone
                with mirror.batch():  # (its rows were, by SQLite; a batch under way holds the lock)
                    store.vault.undo_moves()
            sweep_trash_temps(store.vault)  # (the scan's walk sweeps the other folders)
            if not (defer_scan and store.ledger.has_notes()):
                store.follower.scan(progress=progress)
        except BaseException:
            mirror.close()
            raise
        return store

    def __repr__(self) -> str:
        return f"VaultStore(root={str(self.vault.root)!r})"

    def start_watching(self) -> Watcher:
        """Follow the folder's changes in a background thread until ``close`` (the app, MCP)."""
        if self._watcher is None:
            self._watcher = Watcher(self).start()
        return self._watcher

    @property
    def watch_problem(self) -> str:
        """While outside changes are scanned for rather than watched, a line saying so and why."""
        return "" if self._watcher is None else self._watcher.problem

    def notes_folder(self) -> Path:
        return self.vault.root

    def front_problems(self) -> Iterator[tuple[str, str, bool]]:
        """(path, problem, unread) of each note's file whose front matter does not parse (``unread``:
        none of it is read), or has a time noted ignores (``2024-02-30``), read now."""
        for row in sorted(self.ledger.all_notes(), key=lambda r: r.path):
            if not row.present or in_trash(row.path):
                continue
            with contextlib.suppress(OSError, Skipped, InvalidInputError):  # gone or skipped meanwhile
                ft = FileText.parse(decode(self.vault.read(row.path).data))
                problem = ft.front_problem()
                if problem:
                    yield row.path, problem, True
                for problem in ft.time_problems():
                    yield row.path, problem, False

    def close(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None
        self.mirror.close()

    def note_as_filed(self, note_id: str) -> Note:
        """``ReadsNotesFromText.note_as_filed``: the note caught up with its file."""
        with self.batch():
            return self.core.catch_up(note_id)

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """One mirror transaction, and the files written inside put back when it fails: all or
        nothing, as on the embedded store."""
        with self.core.batch():
            yield


def check_place(root: Path, profile_dir: Path) -> None:
    """Refuse, before anything is written, a Markdown folder ``root`` that is missing, or that is
    the profile folder or lies inside it (a profile in a folder inside ``root`` is skipped there).

    Raises:
        ProfileError: the folder is missing.
        InvalidInputError: the folder is the profile or inside it: noted's records would be read
            as notes, or written among them.
    """
    if not root.is_dir():
        what = "is not a folder" if root.exists() else "does not exist"
        raise ProfileError(f"the Markdown folder {root} {what}", hint="check the path")
    folder, own = root.resolve(), profile_dir.resolve()
    if folder == own or folder.is_relative_to(own):
        where = "is the profile folder" if folder == own else f"is inside the profile folder {own}"
        raise InvalidInputError(
            f"the Markdown folder {folder} {where}; noted keeps its records in the profile, apart from the notes",
            hint="give --profile a folder of its own, beside the notes or in a folder inside them",
        )


__all__ = ["SIDECAR_NAME", "VaultStore", "check_place", "sync_tags"]

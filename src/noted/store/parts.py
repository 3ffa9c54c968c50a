"""A store made of parts: each method of the ``Store`` protocol is the method of the part that keeps
that kind of item.

A backend builds its parts (``noted.store.sqlite``: one ``Database``; ``noted.store.joplin``: one
``JoplinApi``), hands them to ``Parts``, and adds what is its own (``close``, ``batch``, and
``sync`` and ``conflicts`` where it syncs). The parts are typed by the protocols ``Store`` joins, so
mypy checks every binding.
"""

from __future__ import annotations

from noted.store.history_protocol import HistoryStore
from noted.store.protocol import FolderStore, NoteStore, ResourceStore, TagStore
from noted.store.sync import SyncConflicts, Syncing


class Parts:
    """The ``Store`` methods of a backend, bound to the parts that keep each kind of item."""

    sync: Syncing | None = None
    """Starting the backend's sync; None on a backend that syncs with nothing (the profile's own
    database) or is synced by what the person uses (a Markdown folder: git, Syncthing)."""
    conflicts: SyncConflicts | None = None
    """The conflict copies the backend's sync made; None on a backend without a sync."""

    def __init__(
        self,
        folders: FolderStore,
        notes: NoteStore,
        tags: TagStore,
        resources: ResourceStore,
        history: HistoryStore,
    ) -> None:
        self.list_folders = folders.list_folders
        self.get_folder = folders.get_folder
        self.create_folder = folders.create_folder
        self.update_folder = folders.update_folder
        self.trash_folder = folders.trash_folder
        self.restore_folder = folders.restore_folder
        self.folder_note_counts = folders.folder_note_counts
        self.get_note = notes.get_note
        self.get_notes = notes.get_notes
        self.note_metas = notes.note_metas
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
        self.resource_versions = resources.resource_versions
        self.kept_resource_ids = resources.kept_resource_ids
        self.restore_resource_version = resources.restore_resource_version
        self.changes_since = history.changes_since
        self.notes_changed_since = history.notes_changed_since
        self.latest_cursor = history.latest_cursor
        self.first_change_not_by = history.first_change_not_by
        self.item_changes = history.item_changes
        self.note_history = history.note_history
        self.get_revision = history.get_revision
        self.kept_notes = history.kept_notes
        self.prune_history = history.prune_history

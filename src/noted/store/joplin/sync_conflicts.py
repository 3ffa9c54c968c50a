"""Conflicts made by Joplin's sync: a note changed on two machines between two syncs.

When a sync finds a note changed both here and on the sync target, Joplin keeps the target's
version in the note and this machine's version in a *conflict note*: a new note (``is_conflict``
1, ``conflict_original_id`` naming the note) that Joplin shows in its "Conflicts" folder, does
not sync, and does not let anyone edit. Joplin's listings (and so noted's) leave it out.

noted shows these as conflicts (``noted conflicts``, a line in ``noted show``, the tools) and
settles one with ``resolve_sync_conflict``: the person keeps the note's text, the copy's, or a
text merged by hand. Nothing is lost: before the copy is erased its text becomes a revision of
the note (``noted history`` shows and restores it), and the note's text before the resolution is
its own revision too (every update keeps one).
"""

from __future__ import annotations

import dataclasses

from noted.errors import InvalidInputError, NotFoundError
from noted.models import ChangeType, Note, NoteDraft, NotePatch
from noted.store.joplin.base import JoplinApi, safe_id
from noted.store.joplin.folders import Folders
from noted.store.joplin.notes import Notes
from noted.store.sync import SyncConflict

__all__ = ["ACTOR_SYNC_CONFLICT", "ConflictCopies", "SyncConflict"]

ACTOR_SYNC_CONFLICT = "joplin-conflict"
"""The actor of the revision that keeps a conflict copy's text on its note."""

_LIST_FIELDS = "id,title,parent_id,updated_time,is_conflict,conflict_original_id"


class ConflictCopies:
    """The conflict copies of the Joplin store (its ``SyncConflicts`` capability)."""

    def __init__(self, api: JoplinApi, notes: Notes, folders: Folders) -> None:
        self.api = api
        self.notes = notes
        self.folders = folders

    def sync_conflicts(self, note_id: str | None = None) -> list[SyncConflict]:
        """Joplin's conflict notes, newest first; only those of ``note_id`` when given (read first:
        the tree counts them at each refresh, and listing every note cost ten pages for 1,000)."""
        items = self.api.flagged("is_conflict", _LIST_FIELDS, {"include_conflicts": "1"})
        found = [
            SyncConflict(
                copy_id=str(i["id"]),
                original_id=str(i.get("conflict_original_id") or ""),
                title=str(i.get("title") or ""),
                parent_id=str(i.get("parent_id") or ""),
                updated_time=int(i.get("updated_time") or 0),
            )
            for i in items
            if int(i.get("is_conflict") or 0)
        ]
        if note_id is not None:
            found = [c for c in found if c.original_id == note_id]
        return sorted(found, key=lambda c: (-c.updated_time, c.copy_id))

    def sync_conflict(self, copy_id: str) -> tuple[Note, Note | None]:
        """A conflict note and the note it is a version of (None when that note is gone or trashed).

        Raises:
            NotFoundError: no note has that id.
            InvalidInputError: the note is not a conflict note.
        """
        copy = self.notes.get_note(copy_id)
        if not copy.is_conflict:
            raise InvalidInputError(f'note "{copy.title}" is not a conflict copy made by Joplin\'s sync')
        original_id = self._original_id(copy_id)
        try:
            original = self.notes.get_note(original_id) if original_id else None
        except NotFoundError:
            original = None
        if original is not None and original.is_trashed:
            original = None
        return copy, original

    def _original_id(self, copy_id: str) -> str:
        item = self.api.client.get(f"/notes/{safe_id(copy_id)}", {"fields": "conflict_original_id"})
        return str(item.get("conflict_original_id") or "") if isinstance(item, dict) else ""

    def resolve_sync_conflict(self, copy_id: str, title: str, body: str, *, actor: str) -> Note:
        """Settle a conflict: the note gets ``title``/``body``, and the conflict note goes.

        Pass the note's own text to keep it, the copy's to keep that, or a merge. The copy's text
        is first saved as a revision of the note, so neither side is lost. When the note is gone,
        the text becomes a new note in the copy's notebook.

        Returns:
            The note as it is now.
        """
        copy, original = self.sync_conflict(copy_id)
        if original is None:
            kept = self.notes.create_note(
                NoteDraft(title, body, self._live_parent(copy.parent_id)), actor=actor
            )
        else:
            self.api.sidecar.save_revision(
                dataclasses.replace(copy, id=original.id), ACTOR_SYNC_CONFLICT, copy.updated_time
            )
            kept = self.notes.update_note(original.id, NotePatch(title=title, body=body), actor=actor)
        path = f"/notes/{safe_id(copy.id)}"
        self.api.send(copy.id, actor, "DELETE", path, change=ChangeType.DELETE, params={"permanent": "1"})
        return kept

    def _live_parent(self, folder_id: str) -> str:
        """``folder_id`` when that notebook is there and not trashed, else the "Restored notes" one."""
        try:
            folder = self.api.folder_item(folder_id)
        except NotFoundError:
            folder = None
        if folder is None or folder.is_trashed:
            return self.folders.restored_folder(ACTOR_SYNC_CONFLICT)
        return folder.id

    def conflict_summary(self, note: Note) -> str | None:
        """One sentence for a person or the assistant when ``note`` is in a sync conflict, else None."""
        if note.is_conflict:
            original_id = self._original_id(note.id)
            of = f"note {original_id}" if original_id else "a note that is gone"
            return (
                f"This is a conflict copy of {of}, made by Joplin's sync: the version changed on "
                f"one machine while the other changed it too. It cannot be edited; compare with "
                f"`noted conflicts show {note.id}`, settle with `noted conflicts resolve {note.id}`."
            )
        copies = self.sync_conflicts(note.id)
        if not copies:
            return None
        ids = ", ".join(c.copy_id for c in copies)
        return (
            f"Joplin's sync kept {len(copies)} other version(s) of this note as conflict copies ({ids}): "
            f"compare with `noted conflicts show ID`, settle with `noted conflicts resolve ID`."
        )

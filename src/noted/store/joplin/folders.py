"""Notebooks on Joplin: nested, moved to the trash with their notes, restored together.

Joplin's ``/events`` does not report notebooks, so every notebook write noted makes appends its
own row to the feed (and one for each note it moves to or from the trash along); notebooks
changed in Joplin itself show on the next listing.
"""

from __future__ import annotations

from collections import Counter

from noted.errors import InvalidInputError, NotFoundError
from noted.models import ChangeType, Folder, ItemState, ItemType, descendants, new_id, now_ms
from noted.store.joplin.base import FOLDER_FIELDS, JoplinApi, folder_of, meta_of, safe_id
from noted.store.joplin.tags import Tags
from noted.store.rules import clean_notebook_title

_FOLDED_INTO = frozenset("afhijklnstwy")
"""The ASCII letters some other character's ``casefold()`` holds (``ſ`` is ``s``, ``ﬁ`` is ``fi``)."""


def _title_pattern(title: str) -> str:
    """Joplin's folder search (``title LIKE ?``, ``*`` for ``%``) for every title equal to
    ``title`` under ``casefold()``: SQLite's LIKE folds ASCII letters only, so a letter another
    character folds into, and every other character, matches any run (``%``), and the search's
    own wildcards match one character (``_``); the caller compares the few found exactly."""
    return "".join(
        "%" if not c.isascii() or c.lower() in _FOLDED_INTO else "_" if c in "%_*" else c for c in title
    )


RESTORED_FOLDER = "Restored notes"
"""Where a note restored from the trash goes when its notebook is gone (as in the embedded store)."""


class Folders:
    """The notebooks of the Joplin store."""

    def __init__(self, api: JoplinApi, tags: Tags) -> None:
        self.api = api
        self.tags = tags
        """Whose ``notes`` keep each note's place too (``TagNotes.places``)."""

    def list_folders(self, *, include_trashed: bool = False) -> list[Folder]:
        if include_trashed:
            folders = self.api.all_folders()
        else:
            folders = [folder_of(i) for i in self.api.client.get_all("/folders", {"fields": FOLDER_FIELDS})]
        return sorted(folders, key=lambda f: (f.title.casefold(), f.id))

    def folders_titled(self, title: str) -> list[Folder]:
        """The live notebooks whose title may equal ``title`` case aside, in one search instead of
        every notebook's page (``noted.store.protocol.HasTitledFolders``)."""
        query = {"type": "folder", "query": _title_pattern(title), "fields": FOLDER_FIELDS}
        folders = [folder_of(i) for i in self.api.client.get_all("/search", query)]
        return [f for f in folders if not f.is_trashed]

    def get_folder(self, folder_id: str) -> Folder:
        return self.api.folder_item(folder_id)

    def folder_note_counts(self) -> dict[str, int]:
        """Notes (not trashed) directly inside each notebook, from the places kept (``TagNotes.places``)."""
        return dict(Counter(parent for parent, _ in self.tags.notes.places().values()))

    def create_folder(
        self, title: str, *, parent_id: str = "", actor: str, made_id: str | None = None
    ) -> Folder:
        title = clean_notebook_title(title)
        if parent_id:
            self.api.live_folder(parent_id)
        folder_id = made_id or new_id()
        body = {"id": folder_id, "title": title, "parent_id": parent_id}
        made = ItemState(title, parent_id)
        self.api.send(folder_id, actor, "POST", "/folders", body, change=ChangeType.CREATE, state=made)
        return self.api.folder_item(folder_id)

    def update_folder(
        self, folder_id: str, *, title: str | None = None, parent_id: str | None = None, actor: str
    ) -> Folder:
        folder = self.api.folder_item(folder_id)
        new_title = folder.title if title is None else clean_notebook_title(title)
        new_parent = folder.parent_id if parent_id is None else parent_id
        if new_parent and new_parent != folder.parent_id:
            if new_parent in descendants(self.api.all_folders(), folder_id):
                raise InvalidInputError(
                    f'cannot move notebook "{folder.title}" into itself or one of its sub-notebooks'
                )
            self.api.live_folder(new_parent)
        body = {"title": new_title, "parent_id": new_parent}
        state = ItemState(new_title, new_parent, folder.deleted_time, was=_state(folder))
        path = f"/folders/{safe_id(folder_id)}"
        self.api.send(folder_id, actor, "PUT", path, body, change=ChangeType.UPDATE, state=state)
        return self.api.folder_item(folder_id)

    def trash_folder(self, folder_id: str, *, actor: str) -> None:
        """Move a notebook, its sub-notebooks and their notes to the trash (Joplin does it in one call)."""
        folder = self.api.folder_item(folder_id)
        if folder.is_trashed:
            return
        every = {f.id: f for f in self.list_folders()}
        subtree = descendants(list(every.values()), folder_id)
        # Joplin reports each note it trashes along; named in the write, those reports are taken
        # for the actor's change (as in the embedded store), not for edits made in Joplin.
        notes = [
            str(n["id"])
            for sub in subtree
            for n in self.api.client.get_all(f"/folders/{sub}/notes", {"fields": "id"})
        ]
        now = now_ms()
        self.api.sidecar.trashed_at(folder_id, now)
        self.api.send(folder_id, actor, "DELETE", f"/folders/{safe_id(folder_id)}", notes_too=notes)
        states = {
            f.id: ItemState(f.title, f.parent_id, now, was=_state(f)) for i in subtree if (f := every.get(i))
        }
        self.api.sidecar.record(ItemType.FOLDER, subtree, ChangeType.UPDATE, actor, states)

    def restore_folder(self, folder_id: str, *, actor: str) -> None:
        """Bring back a trashed notebook with what was trashed with it, and its trashed parents.

        "With it" means at or after the moment noted began trashing it; for a notebook trashed in
        Joplin itself, everything trashed inside it (what Joplin's own restore brings back).
        """
        folder = self.api.folder_item(folder_id)
        if not folder.is_trashed:
            return
        self.restore_folder_chain(folder.parent_id, actor)
        since = self.api.sidecar.trash_started(folder_id) or 0
        folders = self.api.all_folders()
        subtree = set(descendants(folders, folder_id))
        for sub in folders:
            if sub.id in subtree and sub.is_trashed and (sub.id == folder_id or sub.deleted_time >= since):
                self._untrash(sub, actor)
        for meta in map(meta_of, self.api.trash("id,parent_id,deleted_time")):
            if meta.parent_id in subtree and meta.is_trashed and meta.deleted_time >= since:
                body = {"deleted_time": 0}
                self.api.send(meta.id, actor, "PUT", f"/notes/{meta.id}", body, change=ChangeType.UPDATE)
        self.api.sidecar.trashed_at(folder_id, None)

    def erase_trashed(self, actor: str) -> None:
        """Erase the trashed notebooks that hold nothing, deepest first.

        Joplin erases a notebook with everything in it, in the trash or not (``permanent=1``
        deletes its children), so a notebook is erased only once it is empty: one holding a note
        or notebook that is not in the trash (written there by Joplin on another machine, or a
        script) stays in the trash, with its trashed parents. Its notes are asked for just before
        it goes, so one written meanwhile keeps it too.
        """
        folders = self.api.all_folders()
        parent = {f.id: f.parent_id for f in folders}
        children = Counter(f.parent_id for f in folders)
        trashed = {f.id for f in folders if f.is_trashed}
        ready = [folder_id for folder_id in trashed if not children[folder_id]]
        erased: list[str] = []
        try:
            while ready:
                folder_id = ready.pop()
                if self.api.client.get(f"/folders/{folder_id}/notes", {"fields": "id", "limit": 1})["items"]:
                    continue
                self.api.send(folder_id, actor, "DELETE", f"/folders/{folder_id}", params={"permanent": "1"})
                erased.append(folder_id)
                up = parent[folder_id]
                children[up] -= 1
                if up in trashed and not children[up]:
                    ready.append(up)
        finally:
            states = {f.id: _state(f) for f in folders if f.id in erased}
            self.api.sidecar.record(ItemType.FOLDER, erased, ChangeType.DELETE, actor, states)

    def restored_folder(self, actor: str) -> str:
        for folder in self.api.all_folders():
            if folder.title == RESTORED_FOLDER and not folder.parent_id and not folder.is_trashed:
                return folder.id
        folder_id = new_id()
        body = {"id": folder_id, "title": RESTORED_FOLDER, "parent_id": ""}
        self.api.send(folder_id, actor, "POST", "/folders", body, change=ChangeType.CREATE)
        return folder_id

    def restore_folder_chain(self, folder_id: str, actor: str) -> None:
        """Un-trash ``folder_id`` and its ancestors (only the notebooks, not their notes)."""
        seen: set[str] = set()
        while folder_id and folder_id not in seen:
            seen.add(folder_id)
            try:
                folder = self.api.folder_item(folder_id)
            except NotFoundError:
                return
            if folder.is_trashed:
                self._untrash(folder, actor)
            folder_id = folder.parent_id

    def _untrash(self, folder: Folder, actor: str) -> None:
        state = ItemState(folder.title, folder.parent_id, 0, was=_state(folder))
        path = f"/folders/{folder.id}"
        self.api.send(
            folder.id, actor, "PUT", path, {"deleted_time": 0}, change=ChangeType.UPDATE, state=state
        )


def _state(folder: Folder) -> ItemState:
    """A notebook's state as the feed keeps it (``noted.store.sqlite.feed``)."""
    return ItemState(folder.title, folder.parent_id, folder.deleted_time)

"""Notebooks of the Markdown-folder store: folders of the vault (the root's notes have their own)."""

from __future__ import annotations

import contextlib
import os
from pathlib import PurePosixPath

from noted.errors import InvalidInputError
from noted.models import Folder, descendants
from noted.store.protocol import NoteOrder
from noted.store.rules import clean_notebook_title, clean_title
from noted.store.transfer.common import safe_name
from noted.store.vault.base import VaultPart
from noted.store.vault.trash import in_trash


def _folder_name(title: str) -> str:
    """The folder's name for a notebook titled ``title``; refused when no name is left of it (dots
    alone name no folder of their own)."""
    cleaned = clean_notebook_title(title)
    name = safe_name(cleaned, "")
    if not name:
        raise InvalidInputError(
            f'the Markdown folder cannot take the name "{cleaned}" for a notebook: '
            "give it a name with a letter or a digit"
        )
    return name


class Folders(VaultPart):
    """Creating, renaming, moving, trashing and restoring notebooks as folders."""

    def create_folder(
        self, title: str, *, parent_id: str = "", actor: str, made_id: str | None = None
    ) -> Folder:
        name = _folder_name(title)
        parent_id = "" if parent_id == self.core.root_folder_id else parent_id
        # In the journal, as a batch's folders are: a kill before the row commits leaves the
        # folder empty, and the next start removes it (``MoveLog.undo``), not the scan taking it in.
        with self.core.batch():
            if parent_id and self.mirror.get_folder(parent_id).is_trashed:
                raise InvalidInputError("that notebook is in the trash; restore it first")
            parent_dir = self.core.folder_dir(parent_id) if parent_id else ""
            path = self.vault.check_followed(self.vault.free_name(parent_dir, name, ""), folder=True)
            folder = self.mirror.create_folder(
                PurePosixPath(path).name, parent_id=parent_id, actor=actor, made_id=made_id
            )
            with self.core.db.write() as conn:
                self.ledger.put_folder(conn, folder.id, path)
            self.vault.make_dir(self.vault.path(path))  # taken away again when the batch fails
        return folder

    def top_folder_title(self, title: str) -> str:
        """``HasFolderNames.top_folder_title``: the name ``create_folder`` gives at the top, or gave
        (``Name 2`` when a file or a folder noted skips holds ``Name``); the title itself when it
        leaves no name (``create_folder`` refuses it, saying why)."""
        name = safe_name(clean_title(title, "notebook title"), "")
        if not name:
            return title
        taken: dict[str, str] = {}
        with contextlib.suppress(OSError):
            taken = {entry.casefold(): entry for entry in os.listdir(self.vault.root)}
        candidate, n = name, 2
        while candidate.casefold() in taken:
            if self.vault.is_read_dir(taken[candidate.casefold()]):
                return taken[candidate.casefold()]
            candidate, n = f"{name} {n}", n + 1
        return candidate

    def folder_parent(self, parent_id: str) -> str:
        """``HasFolderNames.folder_parent``: the root's notebook's sub-notebooks are at the top."""
        return "" if parent_id == self.core.root_folder_id else parent_id

    def update_folder(
        self, folder_id: str, *, title: str | None = None, parent_id: str | None = None, actor: str
    ) -> Folder:
        if folder_id == self.core.root_folder_id:
            raise InvalidInputError("the Markdown folder's own notebook cannot be renamed or moved")
        if parent_id is not None and parent_id == self.core.root_folder_id:
            parent_id = ""  # (None, a rename, stays where it is even when there is no root notebook)
        if title is not None:
            _folder_name(title)  # refused before anything is written
        with self.core.batch():
            old = self.core.folder_dir(folder_id)
            folder = self.mirror.update_folder(folder_id, title=title, parent_id=parent_id, actor=actor)
            parent_dir = self.core.folder_dir(folder.parent_id) if folder.parent_id else ""
            name = safe_name(folder.title, "")
            new = f"{parent_dir}/{name}".lstrip("/")
            if new != old:
                if new.casefold() != old.casefold():
                    new = self.vault.free_name(parent_dir, name, "")
                self.vault.check_followed(new, folder=True)
                with self.core.db.write() as conn:
                    self.ledger.move_prefix(conn, old, new)
                    self.ledger.put_folder(conn, folder_id, new)
                self.vault.move(old, new)
                if PurePosixPath(new).parent != PurePosixPath(old).parent:
                    self._rebase(old, new, actor)
                if PurePosixPath(new).name != folder.title:
                    folder = self.mirror.update_folder(folder_id, title=PurePosixPath(new).name, actor=actor)
        return folder

    def _rebase(self, old: str, new: str, actor: str) -> None:
        """The notes of a folder moved from ``old`` to ``new``: each relative link to a file outside
        it made to lead there again (links within the folder moved with it and still hold)."""
        for row in self.ledger.notes_under(new):
            if row.present and not in_trash(row.path):
                self.core.catch_up(row.note_id)  # an edit made outside stays the outside's in the history
                self.core.rebase(row.note_id, old + row.path[len(new) :], actor=actor, moving=old)

    def _notes_in(self, folder_ids: list[str]) -> list[str]:
        return [
            m.id
            for fid in folder_ids
            for trashed in (False, True)
            for m in self.mirror.list_notes(folder_id=fid, trashed=trashed, order=NoteOrder.ID)
        ]

    def trash_folder(self, folder_id: str, *, actor: str) -> None:
        """Every note inside goes to ``.trash/`` (keeping its path there); emptied folders are removed."""
        if folder_id == self.core.root_folder_id:
            raise InvalidInputError("the Markdown folder's own notebook cannot be trashed")
        with self.core.batch():
            ids = descendants(self.mirror.list_folders(include_trashed=True), folder_id)
            self.mirror.trash_folder(folder_id, actor=actor)
            self.core.place(self._notes_in(ids), actor=actor)
            for path in sorted((self.ledger.folder_path(i) or "" for i in ids), reverse=True):
                if path:
                    self.vault.remove_dir(path)  # (made again when the batch fails)

    def restore_folder(self, folder_id: str, *, actor: str) -> None:
        with self.core.batch():
            self.mirror.restore_folder(folder_id, actor=actor)
            ids = descendants(self.mirror.list_folders(include_trashed=True), folder_id)
            for fid in ids:
                if not self.mirror.get_folder(fid).is_trashed:
                    self.vault.make_dir(self.vault.path(self.core.folder_dir(fid)))
            self.core.place(self._notes_in(ids), actor=actor)

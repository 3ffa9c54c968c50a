"""Emptying the trash after a question: say what it holds, and erase it only if it still holds just
that (a note trashed meanwhile, by this front end or another process, is never erased unseen).

The app's question (``noted.ui.empty_trash``) and ``noted empty-trash`` both use it; ``noted
empty-trash --yes`` empties it without a question (``empty_trash``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from noted.models import Folder
from noted.store.protocol import NoteOrder, Store
from noted.wording import plural


@dataclass(frozen=True, slots=True)
class TrashContents:
    """What emptying the trash would erase: the trashed notes and notebooks, by id."""

    note_ids: frozenset[str]
    notebook_ids: frozenset[str]

    @property
    def notes(self) -> int:
        return len(self.note_ids)

    @property
    def notebooks(self) -> int:
        return len(self.notebook_ids)

    @property
    def empty(self) -> bool:
        return not (self.note_ids or self.notebook_ids)

    @property
    def one(self) -> bool:
        """Exactly one note or notebook (the question says "it", not "them")."""
        return self.notes + self.notebooks == 1

    def __str__(self) -> str:
        """``12 notes and 2 notebooks``, ``1 note``, ``3 notebooks``."""
        return _said(self.notes, self.notebooks)


def _said(notes: int, notebooks: int) -> str:
    parts = [plural(notes, "note")] if notes else []
    if notebooks:
        parts.append(plural(notebooks, "notebook"))
    return " and ".join(parts) or "nothing"


def trash_contents(store: Store) -> TrashContents:
    """The trashed notes and notebooks (every one, sub-notebooks and their notes included)."""
    notes = frozenset(meta.id for meta in store.list_notes(trashed=True, order=NoteOrder.ID))
    notebooks = frozenset(f.id for f in store.list_folders(include_trashed=True) if f.is_trashed)
    return TrashContents(notes, notebooks)


@dataclass(frozen=True, slots=True)
class Emptied:
    """What emptying the trash did. A note can stay: a Markdown folder deletes no file that changed
    outside noted after noted moved it to ``.trash/``, nor one another program moved there, so it
    keeps that note (and its notebooks). A
    notebook can stay: one holding a note or notebook that is not in the trash (Joplin on another
    machine, or a script, wrote it there) is kept, as erasing it would erase those."""

    notes: int
    notebooks: int
    stayed: int
    """Notes still in the trash that were in it when it was emptied."""
    held: tuple[Folder, ...] = ()
    """Notebooks still in the trash because notes or notebooks not in the trash are in them."""

    @property
    def partial(self) -> bool:
        """Something the trash held stayed in it."""
        return bool(self.stayed or self.held)

    def __str__(self) -> str:
        """``deleted 2 notes and 1 notebook for good``, and what stayed and why, if anything did."""
        said = f"deleted {_said(self.notes, self.notebooks)} for good"
        if self.stayed:
            one = self.stayed == 1
            said += (
                f"; {plural(self.stayed, 'note')} stayed in the trash: "
                f"{'its file' if one else 'their files'} changed or moved there outside noted "
                f"(restore {'it' if one else 'them'}, or delete "
                f"the file{'' if one else 's'} yourself)"
            )
        if self.held:
            one = len(self.held) == 1
            titles = ", ".join(f'"{f.title}"' for f in self.held[:3]) + (", …" if len(self.held) > 3 else "")
            said += (
                f"; notebook {titles} stayed in the trash: notes or notebooks in it are not in the trash "
                "(restore it to see them)"
                if one
                else f"; {plural(len(self.held), 'notebook')} ({titles}) stayed in the trash: notes or "
                "notebooks in them are not in the trash (restore them to see those)"
            )
        return said


def empty_if_unchanged(store: Store, asked: TrashContents, *, actor: str) -> Emptied | Literal[False]:
    """Empty the trash if it holds what the person was told it holds; else write nothing."""
    if trash_contents(store) != asked:
        return False
    return _empty(store, asked, actor)


def empty_trash(store: Store, *, actor: str) -> Emptied:
    """Erase whatever the trash holds now, without asking (``noted empty-trash --yes``)."""
    return _empty(store, trash_contents(store), actor)


def _empty(store: Store, held: TrashContents, actor: str) -> Emptied:
    deleted = store.empty_trash(actor=actor)
    left = trash_contents(store)
    gone_notebooks = len(held.notebook_ids - left.notebook_ids)
    stayed = held.notebook_ids & left.notebook_ids
    holding = _holding_live_items(store, stayed) if stayed else ()
    return Emptied(deleted, gone_notebooks, len(held.note_ids & left.note_ids), holding)


def _holding_live_items(store: Store, trashed: frozenset[str]) -> tuple[Folder, ...]:
    """The notebooks of ``trashed`` that hold, at any depth, a note or notebook not in the trash."""
    folders = {f.id: f for f in store.list_folders(include_trashed=True)}
    ask = [folder_id for folder_id, count in store.folder_note_counts().items() if count]
    ask += [f.parent_id for f in folders.values() if not f.is_trashed]
    found: dict[str, Folder] = {}
    while ask:
        folder_id = ask.pop()
        if folder_id in trashed and folder_id in folders and folder_id not in found:
            found[folder_id] = folders[folder_id]
            ask.append(found[folder_id].parent_id)
    return tuple(sorted(found.values(), key=lambda f: (f.title.casefold(), f.id)))

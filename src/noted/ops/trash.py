"""Emptying the trash after a question: say what it holds, and erase it only if it still holds just
that (a note trashed meanwhile, by this front end or another process, is never erased unseen).

The app's question (``noted.ui.empty_trash``) and ``noted empty-trash`` both use it; ``noted
empty-trash --yes`` empties it without a question (``empty_trash``).
"""

from __future__ import annotations

from dataclasses import dataclass

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

    def with_notes(self, count: int) -> str:
        """What was erased, said as ``str`` says it, with ``count`` notes (``--yes`` erases the
        trash as it is then, which may hold a note more or less than it did when counted)."""
        return _said(count, self.notebooks)

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


def empty_if_unchanged(store: Store, asked: TrashContents, *, actor: str) -> bool:
    """Empty the trash if it holds what the person was told it holds; else write nothing."""
    if trash_contents(store) != asked:
        return False
    empty_trash(store, actor=actor)
    return True


def empty_trash(store: Store, *, actor: str) -> int:
    """Erase whatever the trash holds now, without asking (``noted empty-trash --yes``); returns
    how many notes were erased."""
    return store.empty_trash(actor=actor)

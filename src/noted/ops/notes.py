"""Operations on one note: move, tags, completion, to-do, trash and restore.

Each returns a ``NoteChange`` (the note afterwards, and whether anything was written) or, for tags,
a ``NoteTags``; an operation with nothing to do writes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from noted.errors import InvalidInputError
from noted.models import Note, NotePatch, now_ms
from noted.store.protocol import Store


@dataclass(frozen=True, slots=True)
class NoteChange:
    """What an operation on a note did.

    Attributes:
        note: The note afterwards.
        changed: False when the note already was as asked, so nothing was written.
    """

    note: Note
    changed: bool


@dataclass(frozen=True, slots=True)
class NoteTags:
    """What a change of a note's tags did.

    Attributes:
        note: The note (its tags are not part of ``Note``).
        tags: The note's tag titles afterwards.
        added: The titles that were not on the note before and are now.
        removed: The titles asked to be removed that were on the note.
        not_on_note: The titles asked to be removed that were not on the note.
    """

    note: Note
    tags: tuple[str, ...]
    added: tuple[str, ...]
    removed: tuple[str, ...]
    not_on_note: tuple[str, ...]

    @property
    def changed(self) -> bool:
        return bool(self.added or self.removed)


def move_note(store: Store, note_id: str, folder_id: str, *, actor: str) -> NoteChange:
    """Move the note into notebook ``folder_id`` (nothing is written if it is there already)."""
    with store.batch():
        note = store.get_note(note_id)
        if note.parent_id == folder_id:
            return NoteChange(note, False)
        return NoteChange(store.update_note(note_id, NotePatch(parent_id=folder_id), actor=actor), True)


def set_completed(
    store: Store, note_id: str, done: bool, *, actor: str, stamp: int | None = None
) -> NoteChange:
    """Mark the to-do done (at ``stamp``, default now) or not done.

    Raises:
        InvalidInputError: the note is not a to-do; nothing was written.
    """
    with store.batch():
        note = store.get_note(note_id)
        if not note.is_todo:
            raise InvalidInputError(f'"{note.title}" is a note, not a to-do')
        completed = (stamp or now_ms()) if done else 0
        patch = NotePatch(todo_completed=completed)
        return NoteChange(store.update_note(note_id, patch, actor=actor), True)


def set_todo(store: Store, note_id: str, is_todo: bool, *, actor: str) -> NoteChange:
    """Make the note a to-do (not done) or a plain note; nothing is written if it is one already."""
    with store.batch():
        note = store.get_note(note_id)
        if note.is_todo == is_todo:
            return NoteChange(note, False)
        patch = NotePatch(is_todo=is_todo, todo_completed=0)
        return NoteChange(store.update_note(note_id, patch, actor=actor), True)


def trash_note(store: Store, note_id: str, *, actor: str) -> NoteChange:
    """Move the note to the trash (a note already there is left as it is)."""
    with store.batch():
        note = store.get_note(note_id)
        if note.is_trashed:
            return NoteChange(note, False)
        store.trash_note(note_id, actor=actor)
        return NoteChange(store.get_note(note_id), True)


def restore_note(store: Store, note_id: str, *, actor: str) -> NoteChange:
    """Bring the note back from the trash (restoring its notebook too); others are left as they are."""
    with store.batch():
        note = store.get_note(note_id)
        if not note.is_trashed:
            return NoteChange(note, False)
        return NoteChange(store.restore_note(note_id, actor=actor), True)


def edit_tags(
    store: Store, note_id: str, add: Sequence[str], remove: Sequence[str], *, actor: str
) -> NoteTags:
    """Add the tags ``add`` (created when missing) and take off ``remove`` (case does not matter)."""
    with store.batch():
        note = store.get_note(note_id)
        before = {t.title.casefold() for t in store.note_tags(note_id)}
        if add:
            store.tag_note(note_id, list(add), actor=actor)
        if remove:
            store.untag_note(note_id, list(remove), actor=actor)
        after = tuple(t.title for t in store.note_tags(note_id))
    return NoteTags(
        note,
        after,
        added=tuple(t for t in after if t.casefold() not in before),
        removed=tuple(t for t in remove if t.casefold() in before),
        not_on_note=tuple(t for t in remove if t.casefold() not in before),
    )


def set_tags(store: Store, note_id: str, titles: Sequence[str], *, actor: str) -> NoteTags:
    """Make the note's tags exactly ``titles`` (case does not matter), changing only what differs."""
    with store.batch():
        current = [t.title for t in store.note_tags(note_id)]
        folded = {t.casefold() for t in current}
        wanted = {t.casefold() for t in titles}
        add = [t for t in titles if t.casefold() not in folded]
        remove = [t for t in current if t.casefold() not in wanted]
        return edit_tags(store, note_id, add, remove, actor=actor)

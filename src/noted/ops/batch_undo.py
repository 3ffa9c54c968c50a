"""Undoing a batch of changes at once: the notes as they were before, put back together.

The chat applies the changes the person ticked in one approval (``noted.chat.batch``); before it
does, ``capture`` keeps each note the changes name as it is (title, body, notebook, trash, tags).
``restore`` puts them back, as the person, and trashes the notes the batch made. A note changed
again after the batch is left as it is and named, so a later change is never lost.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from noted.errors import ConflictError, NotFoundError
from noted.models import Note, NotePatch
from noted.ops.notes import restore_note, set_tags, trash_note
from noted.store.protocol import Store
from noted.store.revisions import labelled

UNDONE = "undid a batch of changes"
"""The label of the revision that puts a note back as it was before the batch."""


@dataclass(frozen=True, slots=True)
class NoteState:
    """A note as it was before a batch, with its tags."""

    note: Note
    tags: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Undone:
    """What ``restore`` did: the notes put back, and those left because they changed since."""

    restored: int
    kept: tuple[str, ...]
    """Titles of the notes changed after the batch, left as they are."""


def capture(store: Store, note_ids: Sequence[str]) -> tuple[NoteState, ...]:
    """The notes among ``note_ids`` that exist, as they are now."""
    notes = store.get_notes(list(dict.fromkeys(note_ids)))
    tags = store.note_tag_titles([n.id for n in notes])
    return tuple(NoteState(n, tuple(tags.get(n.id, ()))) for n in notes)


def restore(
    store: Store, states: Sequence[NoteState], after: dict[str, int], created: Sequence[str], *, actor: str
) -> Undone:
    """Put each note back as in ``states`` unless it changed after the batch left it at
    ``after[note_id]`` (its ``updated_time`` then), and trash the notes in ``created``."""
    restored = 0
    kept: list[str] = []
    for state in states:
        before = state.note
        try:
            now = store.get_note(before.id)
        except NotFoundError:
            continue
        if now.updated_time != after.get(before.id, before.updated_time):
            kept.append(now.title)
            continue
        if (now.title, now.body, now.parent_id) != (before.title, before.body, before.parent_id):
            patch = NotePatch(title=before.title, body=before.body, parent_id=before.parent_id)
            try:
                with labelled(UNDONE):
                    store.update_note(before.id, patch, actor=actor, base_updated_time=now.updated_time)
            except ConflictError:
                kept.append(now.title)
                continue
        if before.is_trashed != now.is_trashed:
            (trash_note if before.is_trashed else restore_note)(store, before.id, actor=actor)
        set_tags(store, before.id, state.tags, actor=actor)
        restored += 1
    for note_id in created:
        try:
            trash_note(store, note_id, actor=actor)
            restored += 1
        except NotFoundError:
            pass
    return Undone(restored, tuple(kept))

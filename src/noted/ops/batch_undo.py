"""Applying a batch of changes as one unit, and undoing it at once: the notes as they were before.

The chat applies the changes the person ticked in one approval (``noted.chat.calls``); before it
does, ``capture`` keeps each note the changes name as it is (title, body, notebook, trash, tags).
``all_or_none`` applies them together: in one transaction (``Store.batch``) where the store has
them; on Joplin, whose Data API has none, each write lands as it runs, so a failure half way puts
back the notes already changed (``restore``) and trashes those made. ``restore`` is also the undo:
it puts the notes back, as the person, and trashes the notes the batch made. A note changed again
after the batch is left as it is and named, so a later change is never lost.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from noted.errors import ConflictError, NotedError, NotFoundError
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


@contextlib.contextmanager
def all_or_none(
    store: Store, states: Sequence[NoteState], created: Sequence[str], *, actor: str
) -> Iterator[None]:
    """Make the writes inside one unit: when the block raises, none of them is kept.

    On a store with transactions the block runs in one (``Store.batch``), rolled back as a whole.
    Joplin has none over its Data API: there the notes in ``states`` (as they were before the
    block) are put back and the notes in ``created`` (filled in by the caller as it goes) trashed,
    as ``actor``, before the error goes on; the history keeps the writes and their undoing.
    """
    if store.capabilities.transactions:
        with store.batch():
            yield
        return
    try:
        yield
    except BaseException as failure:
        try:
            now = {n.id: n.updated_time for n in store.get_notes([s.note.id for s in states])}
            restore(store, states, now, created, actor=actor)
        except NotedError as undo:
            raise NotedError(
                f"{failure}; putting back the changes made before it failed too ({undo})",
                hint="the note history keeps every version: restore them from there",
            ) from failure
        raise

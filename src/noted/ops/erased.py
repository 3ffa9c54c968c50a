"""A note its backend erased while noted kept its revisions: on Joplin, one erased by Joplin's own
apps (its trash emptied, a script), as the sidecar keeps what noted recorded. Its history is
named as a live note's is (full id, id prefix, or the title of its newest revision: ``history_note``),
or picked from all of them (``erased_notes``: the app's "History of an erased note…"), listed and
shown, and ``noted.ops.notes.restore_revision`` writes it again, with that id, in the
notebook the feed last saw it in (``last_notebook``). A client in a scope sees it only when that
notebook is in its scope (``ErasedNote.notebook``). Where noted itself erased the note
(``empty-trash``, on every backend), its revisions went with it: there is none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from noted.errors import EncryptedError, NotFoundError
from noted.models import Note, is_full_id
from noted.ops.resolve import MIN_PREFIX, ambiguous, resolve_note
from noted.store.protocol import Store

_PREFIX = re.compile(rf"[0-9a-f]{{{MIN_PREFIX},31}}")
_LOOKED_BACK = 50
"""The newest changes of the note searched for a notebook it was in."""


@dataclass(frozen=True, slots=True)
class ErasedNote:
    """An erased note whose revisions noted keeps."""

    id: str
    title: str
    """Its newest revision's."""
    notebook: str
    """The notebook the change feed saw it in last, there or not ("": none seen)."""


def erased_note(store: Store, note_id: str) -> ErasedNote | None:
    """The erased note ``note_id`` (a full id); None when it is there, or nothing of it is kept."""
    note_id = note_id.strip().lower()
    if not is_full_id(note_id):
        return None
    kept = store.kept_notes(note_id)
    if note_id not in kept or _exists(store, note_id):
        return None
    places = (c.place for c in store.item_changes([note_id], limit=_LOOKED_BACK))
    notebook = next((p.parent_id for p in places if p is not None), "")
    return ErasedNote(note_id, kept[note_id], notebook)


def erased_notes(store: Store) -> list[ErasedNote]:
    """Every erased note whose revisions noted keeps, by title: those kept and no longer listed,
    in the trash or out of it (a listing, 100 notes a request on Joplin, not a request each),
    each then asked for (a conflict copy is not listed, yet there)."""
    kept = store.kept_notes()
    listed = {m.id for trashed in (False, True) for m in store.list_notes(trashed=trashed)}
    found = [erased_note(store, note_id) for note_id in kept.keys() - listed]
    return sorted((e for e in found if e is not None), key=lambda e: (e.title.casefold(), e.id))


def history_note(store: Store, ref: str) -> Note | ErasedNote:
    """The note whose history ``ref`` names: one ``resolve_note`` finds, or an erased one, by its
    full id, an id prefix (≥ 4 hex digits; one that starts a live note's id too is ambiguous) or
    its newest revision's title (a live note's title wins).

    Raises:
        NotFoundError: nothing matches.
        InvalidInputError: ``ref`` is empty, or several notes match; the message lists them.
    """
    try:
        live: Note | None = resolve_note(store, ref)
    except NotFoundError:
        live = None
    key = ref.strip().lower()
    if is_full_id(key):
        found = live or erased_note(store, key)
    elif _PREFIX.fullmatch(key) and (erased := _erased(store, store.kept_notes(key), live)):
        if live is not None and live.id.startswith(key):
            erased[live.id] = f'{live.id[:8]} "{live.title}"'
        found = _one(store, ref, erased)
    elif live is None:
        kept = store.kept_notes()
        titled = [i for i, t in kept.items() if t == ref.strip()] or [
            i for i, t in kept.items() if t.casefold() == ref.strip().casefold()
        ]
        found = _one(store, ref, _erased(store, {i: kept[i] for i in titled}, None))
    else:
        found = live
    if found is None:
        raise NotFoundError(f'no note with id or title "{ref.strip()}"')
    return found


def _erased(store: Store, kept: dict[str, str], live: Note | None) -> dict[str, str]:
    """Of the ``kept`` notes (id: title), those erased, described as a refusal lists them."""
    return {
        i: f'{i[:8]} "{title}" (erased)'
        for i, title in kept.items()
        if (live is None or i != live.id) and not _exists(store, i)
    }


def _one(store: Store, ref: str, found: dict[str, str]) -> Note | ErasedNote | None:
    if len(found) > 1:
        raise ambiguous("note", ref.strip(), [found[i] for i in sorted(found)], str)
    if not found:
        return None
    (note_id,) = found
    return erased_note(store, note_id) or store.get_note(note_id)


def _exists(store: Store, note_id: str) -> bool:
    try:
        store.get_note(note_id)
    except EncryptedError:  # there, but Joplin has not decrypted it
        return True
    except NotFoundError:
        return False
    return True


def last_notebook(store: Store, note_id: str) -> str:
    """The newest notebook the change feed saw the note in that is still there, out of the trash
    ("": none, so it goes in the Inbox)."""
    live = {f.id for f in store.list_folders()}
    for change in store.item_changes([note_id], limit=_LOOKED_BACK):
        if change.place is not None and change.place.parent_id in live:
            return change.place.parent_id
    return ""


def is_current(store: Store, note_id: str, revision_id: int) -> bool:
    """Revision ``revision_id`` is the note as it is now, so restoring it would change nothing
    (of an erased note, none is: a restore writes the note again).

    Raises:
        NotFoundError: the note is erased and nothing of it is kept.
    """
    newest = store.note_history(note_id, bodies=False)[:1]
    if not newest or newest[0].id != revision_id:
        return False
    return _exists(store, note_id)

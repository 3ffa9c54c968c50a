"""A note its backend erased while noted kept its revisions: on Joplin, one erased by Joplin's own
apps (its trash emptied, a script), as the sidecar keeps what noted recorded. Its history is
listed and shown by its full id, and ``noted.ops.notes.restore_revision`` writes it again, with
that id, in the notebook the feed last saw it in (``last_notebook``). Where noted itself erased
the note (``empty-trash``), or the backend keeps no revisions apart from its notes, there is none.
"""

from __future__ import annotations

import re

from noted.errors import NotFoundError
from noted.models import Revision
from noted.store.protocol import Store

_FULL_ID = re.compile(r"[0-9a-f]{32}")
_LOOKED_BACK = 50
"""The newest changes of the note searched for a notebook it was in."""


def erased_history(store: Store, ref: str) -> list[Revision] | None:
    """The revisions, newest first, of the erased note whose full id is ``ref``; None when ``ref``
    is no full id, or the note is there, or nothing of it is kept."""
    note_id = ref.strip().lower()
    if not _FULL_ID.fullmatch(note_id):
        return None
    try:
        store.get_note(note_id)
    except NotFoundError:
        try:
            return store.note_history(note_id, bodies=False) or None
        except NotFoundError:
            return None
    return None


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
    try:
        store.get_note(note_id)
    except NotFoundError:
        return False
    return True

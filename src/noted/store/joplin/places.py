"""Where a note is, as the feed keeps it on Joplin: its notebook, trash and tags at noted's writes.

Joplin reports a note's change a little after it answers the write, and never a tag's link, so the
review cannot learn from Joplin where one of noted's writes left a note: by the time it looks, the
person may have moved or tagged the note in Joplin. Each of noted's writes of a note therefore
keeps the note's place just after it with its feed row (``Change.place``, as the embedded store's
feed does), and the review charges the writer with that place, not with the note's place now.

Before the write, the place the note is in is compared with the last one the feed kept: when it
differs (moved, tagged or trashed in Joplin, or by its sync, since), a row of that outside change
is appended first, with its place, so the review does not charge noted's writer with it either.
Where noted's last row of the note kept no place (a notebook's trash took it along, or the row is
older than this), nothing is told apart, as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from noted.errors import NotFoundError
from noted.models import ACTOR_JOPLIN, ACTOR_SYNC, ChangeType, ItemType, Place
from noted.store.joplin.client import JoplinClient
from noted.store.joplin.events import EventFeed


def place_after(
    client: JoplinClient,
    note_id: str,
    kind: ItemType,
    change: ChangeType,
    body: Mapping[str, Any] | None,
    before: Place | None,
) -> Place | None:
    """Where noted's write of a note (``kind``: the note, or one of its tag links) left it (None:
    erased); ``before``: its place just before, which an edit of its fields changes only by them."""
    if kind is ItemType.NOTE and change is ChangeType.CREATE and body is not None and "parent_id" in body:
        return Place(str(body["parent_id"]), 0, ())  # a new note, in its notebook, untagged
    if kind is ItemType.NOTE and change is ChangeType.DELETE:
        return None  # erased for good
    if kind is ItemType.NOTE and before is not None and body is not None:  # a PUT of its fields
        parent = str(body.get("parent_id", before.parent_id))
        return Place(parent, int(body.get("deleted_time", before.deleted_time)), before.tags)
    return read_place(client, note_id)  # a tag link, or a trashing (Joplin sets the time)


def read_place(client: JoplinClient, note_id: str, read: Mapping[str, Any] | None = None) -> Place | None:
    """The note's place in Joplin now (None: it is erased); ``read``: the note as just read, whose
    notebook and trash time are not asked for again."""
    try:
        note = read or client.get(f"/notes/{note_id}", {"fields": "parent_id,deleted_time"})
        tags = client.get_all(f"/notes/{note_id}/tags", {"fields": "id,title"})
    except NotFoundError:
        return None
    if not isinstance(note, dict) or "parent_id" not in note:
        return None
    titles = sorted((str(t["title"]) for t in tags), key=str.casefold)
    return Place(str(note["parent_id"] or ""), int(note.get("deleted_time") or 0), tuple(titles))


def keep_outside_place(
    feed: EventFeed, client: JoplinClient, note_id: str, read: Mapping[str, Any] | None = None
) -> Place | None:
    """Append a row of the change made to the note outside noted, when its place is not the one
    the feed kept last (after Joplin's own reports, which say whether its sync made it); returns
    the note's place (None: erased). ``read``: as for ``read_place``."""
    now = read_place(client, note_id, read)
    if now is None:
        return None
    sidecar = feed.sidecar
    known, kept = sidecar.kept_place(note_id)
    if kept == now or (known and kept is None):
        return now  # as noted left it; or left by a write of noted's that kept no place: no telling
    feed.pull()
    newest = sidecar.item_changes([note_id], 1)
    actor = ACTOR_SYNC if newest and newest[0].actor == ACTOR_SYNC else ACTOR_JOPLIN
    sidecar.record(ItemType.NOTE, [note_id], ChangeType.UPDATE, actor, {note_id: now})
    return now

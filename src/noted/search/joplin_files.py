"""The attachments a ``resource:`` filter weighs when noted searches Joplin notes it has read.

Which attachments a note holds is read from its body, the ``:/id`` links ``noted.store.seen``
reads too, so nothing is asked of Joplin note by note: asking each note's ``/notes/ID/resources``
made a scoped ``resource:image`` over 2,000 notes cost 2,114 requests and 9 to 19 s. The linked
attachments' types come from one listing (a request each when they are few), and, in a notebook
scope, only those whose type a filter names are checked to be ones the caller sees
(``noted.store.seen.linking_notes``, a search each): one it may not see is left out, as if no note
linked it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import apsw

from noted.errors import NotFoundError
from noted.markdown import linked_ids
from noted.models import Note, Resource
from noted.search.conditions import like_pattern
from noted.store.joplin import JoplinStore
from noted.store.seen import linking_notes
from noted.store.sqlite.scratch import add_resources

ASK_EACH = 50
"""Up to this many linked attachments, each is asked for; past it, Joplin's listing of them all
(100 a request) is read."""


def add_linked_resources(
    conn: apsw.Connection,
    store: JoplinStore,
    notes: Mapping[str, Note],
    types: Sequence[str],
    folder_ids: frozenset[str] | None,
) -> None:
    """Copy into ``conn`` (a scratch copy holding ``notes``) the attachments each note links, and
    in a scope (``folder_ids``) drop those of the ``types`` (``resource:`` values) it cannot see."""
    links = {note_id: linked_ids(note.body) for note_id, note in notes.items()}
    known = _resources(store, set().union(*links.values()))
    add_resources(conn, list(notes), lambda note_id: [known[i] for i in sorted(links[note_id]) if i in known])
    if folder_ids is None or not known:
        return
    typed = {
        str(row[0])
        for kind in types
        for row in conn.execute(
            "SELECT id FROM resources WHERE mime LIKE ? ESCAPE '\\'", (like_pattern(kind),)
        )
    }
    for resource_id in sorted(typed):
        if linking_notes(store, resource_id, folder_ids) is None:
            conn.execute("DELETE FROM note_resources WHERE resource_id = ?", (resource_id,))


def _resources(store: JoplinStore, ids: set[str]) -> dict[str, Resource]:
    """The attachments among ``ids`` (the others are notes, or gone)."""
    if len(ids) > ASK_EACH:
        return {r.id: r for r in store.list_resources() if r.id in ids}
    found: dict[str, Resource] = {}
    for resource_id in sorted(ids):
        try:
            found[resource_id] = store.get_resource(resource_id)
        except NotFoundError:  # a link to a note, or to nothing
            continue
    return found

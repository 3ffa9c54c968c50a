"""What a caller limited to some notebooks sees of the attachments, decided once for every layer:
the tools answer an attachment it may not see as an id that names nothing, and the searches'
``resource:`` filters weigh only those it sees (``noted.search.joplin``; the SQL of
``noted.search.conditions`` says the same)."""

from __future__ import annotations

from noted.models import Note
from noted.store.protocol import HasFileLinks, Store


def linking_notes(store: Store, resource_id: str, folders: frozenset[str] | None = None) -> list[Note] | None:
    """The notes whose body links the attachment (trashed ones too), or None when a caller limited
    to the notes of ``folders`` (None: no limit) may not see it at all.

    In a limit, an attachment is seen only when notes link it and every one of them is in
    ``folders``. One that a note elsewhere links is hidden, even once a visible note links it
    too: the caller could add that link itself (``[x](:/id)``) to reach a file kept elsewhere.
    So a hidden attachment answers every question as an id that names nothing, and a refusal
    never says that notes elsewhere link it.

    Where notes link files by path (a Markdown folder, ``HasFileLinks``), a file in the folder of a
    notebook outside ``folders`` is hidden too, whichever notes link it: any file a note links is
    its attachment there, and the person may have linked one from a visible note.
    """
    ids = store.resource_notes(resource_id)
    notes = store.get_notes(ids)
    if folders is None:
        return notes
    if not ids or len(notes) < len(ids) or any(n.parent_id not in folders for n in notes):
        return None
    if isinstance(store, HasFileLinks) and store.file_notebook(resource_id) not in (None, *folders):
        return None
    return notes

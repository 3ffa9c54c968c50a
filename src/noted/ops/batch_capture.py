"""What a batch of changes names, kept as it is before the batch and after it, so that one undo can
put it back (``noted.ops.batch_undo``).

``capture`` keeps the notes (with their tags), the notebooks, the tags and the attachments a batch's
calls name, as they are at one moment, with the change feed's cursor then. The notes that carry a named tag come
with it (renaming or deleting a tag changes them), and so do the notebooks that hold each note and
those above each notebook (restoring a note or a notebook brings its trashed parents back).
``made_since`` finds in the change feed what the batch's actor created after a cursor: notes,
notebooks, tags and attachment files.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from noted.errors import NotFoundError
from noted.models import ChangeType, Folder, ItemType, Note, Resource, Tag, descendants
from noted.store.protocol import Store


@dataclass(frozen=True, slots=True)
class NoteState:
    """A note at one moment, with its tags."""

    note: Note
    tags: tuple[str, ...]

    @property
    def look(self) -> tuple[object, ...]:
        """All a change can alter, by anyone: tags do not touch ``updated_time``, so they are
        compared themselves, as are the notebook, the trash and the to-do state."""
        n = self.note
        marks = (n.is_todo, n.todo_completed, n.todo_due, tuple(sorted(self.tags)))
        return (n.updated_time, n.title, n.body, n.parent_id, n.deleted_time, *marks)


@dataclass(frozen=True, slots=True)
class FolderState:
    """A notebook at one moment; with ``contents`` when asked for (see ``capture``)."""

    folder: Folder
    contents: tuple[tuple[str, int], ...] | None = None
    """The notes not in the trash below it, at any depth, as (id, updated_time), and its
    sub-notebooks not in the trash, as (id, 0): what trashing it would take with it."""

    @property
    def look(self) -> tuple[object, ...]:
        f = self.folder
        return (f.updated_time, f.title, f.parent_id, f.deleted_time, self.contents)


@dataclass(frozen=True, slots=True)
class FileState:
    """An attachment at one moment: as it was, or None when there was none under ``id``."""

    id: str
    resource: Resource | None


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What a batch names, at one moment, and the change feed's cursor then."""

    notes: tuple[NoteState, ...] = ()
    folders: tuple[FolderState, ...] = ()
    tags: tuple[Tag, ...] = ()
    cursor: int = 0
    files: tuple[FileState, ...] = ()

    def file_map(self) -> dict[str, FileState]:
        return {s.id: s for s in self.files}

    def note_map(self) -> dict[str, NoteState]:
        return {s.note.id: s for s in self.notes}

    def folder_map(self) -> dict[str, FolderState]:
        return {s.folder.id: s for s in self.folders}

    def tag_map(self) -> dict[str, Tag]:
        return {t.id: t for t in self.tags}


@dataclass(frozen=True, slots=True)
class Made:
    """What a batch created (ids), as the change feed recorded it."""

    notes: tuple[str, ...] = ()
    folders: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    files: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Batch:
    """What undoing a batch needs: what it named before and after it ran, and what it made."""

    before: Snapshot
    after: Snapshot
    made: Made
    final: tuple[str, ...] = ()
    """The changes of the batch that no undo can take back (a write tool without an ``Undo``), as the
    person was shown them."""


def capture(
    store: Store,
    *,
    notes: Iterable[str] = (),
    folders: Iterable[str] = (),
    tags: Iterable[str] = (),
    contents: Iterable[str] = (),
    files: Iterable[str] = (),
) -> Snapshot:
    """The notes, notebooks and tags among these ids that exist, as they are now (see the module
    docstring for what comes with them); ``contents`` names the notebooks whose contents to keep;
    ``files`` the attachments, each as it is or None."""
    cursor = store.latest_cursor()
    found_tags: list[Tag] = []
    note_ids = list(notes)
    for tag_id in dict.fromkeys(tags):
        try:
            found_tags.append(store.get_tag(tag_id))
        except NotFoundError:
            continue
        for trashed in (False, True):
            note_ids += [n.id for n in store.list_notes(tag_id=tag_id, trashed=trashed)]
    found = store.get_notes(list(dict.fromkeys(note_ids)))
    titles = store.note_tag_titles([n.id for n in found])
    every = {f.id: f for f in store.list_folders(include_trashed=True)}
    chain: dict[str, None] = {}
    for folder_id in [*folders, *(n.parent_id for n in found)]:
        while folder_id in every and folder_id not in chain:
            chain[folder_id] = None
            folder_id = every[folder_id].parent_id
    inside = set(contents)
    return Snapshot(
        tuple(NoteState(n, tuple(titles.get(n.id, ()))) for n in found),
        tuple(FolderState(every[f], contents_of(store, f, every) if f in inside else None) for f in chain),
        tuple(found_tags),
        cursor,
        tuple(FileState(f, _resource(store, f)) for f in dict.fromkeys(files)),
    )


def _resource(store: Store, resource_id: str) -> Resource | None:
    try:
        return store.get_resource(resource_id)
    except NotFoundError:
        return None


def contents_of(
    store: Store, folder_id: str, every: Mapping[str, Folder] | None = None
) -> tuple[tuple[str, int], ...]:
    """What trashing the notebook would take with it (``FolderState.contents``); ``every`` is every
    notebook, trashed ones too, when the caller has read them already."""
    every = every if every is not None else {f.id: f for f in store.list_folders(include_trashed=True)}
    below = descendants(every.values(), folder_id)
    notes = [(n.id, n.updated_time) for f in below for n in store.list_notes(folder_id=f)]
    books = [(f, 0) for f in below if f != folder_id and f in every and not every[f].is_trashed]
    return tuple(sorted(notes + books))


_KINDS = {ItemType.NOTE: 0, ItemType.FOLDER: 1, ItemType.TAG: 2, ItemType.RESOURCE: 3}


def made_since(store: Store, cursor: int, actor: str) -> Made:
    """What ``actor`` created after ``cursor`` and is still there to undo, by kind."""
    made: tuple[dict[str, None], ...] = ({}, {}, {}, {})
    while True:
        page = store.changes_since(cursor)
        for change in page.changes:
            kind = _KINDS.get(change.item_type)
            if kind is not None and change.change_type == ChangeType.CREATE and change.actor == actor:
                made[kind][change.item_id] = None
        if not page.has_more or page.cursor == cursor:
            break
        cursor = page.cursor
    notes, folders, tags, files = (tuple(m) for m in made)
    return Made(notes, folders, tags, files)


def settled(store: Store, before: Snapshot, actor: str, final: tuple[str, ...] = ()) -> Batch:
    """The batch ``actor`` ran since ``before``: what it named and made, as it is now."""
    made = made_since(store, before.cursor, actor)
    after = capture(
        store,
        notes=[*(s.note.id for s in before.notes), *made.notes],
        folders=[*(s.folder.id for s in before.folders), *made.folders],
        tags=[*(t.id for t in before.tags), *made.tags],
        contents=[s.folder.id for s in before.folders if s.folder.is_trashed],
        files=[s.id for s in before.files],
    )
    return Batch(before, after, made, final)

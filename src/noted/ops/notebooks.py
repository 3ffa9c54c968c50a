"""Operations on notebooks and tags: create, rename, move, trash and restore a notebook; create,
rename and delete a tag, or (for a caller who sees only some notes) move some notes to another tag
or take a tag off some notes.

Each returns a ``FolderChange`` or a ``TagChange`` saying what it is afterwards and whether anything
was written; an operation with nothing to do writes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from noted.errors import InvalidInputError
from noted.models import Folder, Tag, descendants
from noted.store.protocol import HasFolderNames, HasTitledFolders, Store
from noted.store.rules import clean_notebook_title, clean_tag_title


@dataclass(frozen=True, slots=True)
class FolderChange:
    """What an operation on a notebook did: the notebook afterwards, and whether it was written.

    For a notebook trashed or restored, ``notebooks`` and ``notes`` count what went to the trash
    (or came back) with it: the notebook and those inside it, and the notes in them.
    """

    folder: Folder
    changed: bool
    notebooks: int = 0
    notes: int = 0


@dataclass(frozen=True, slots=True)
class TagChange:
    """What an operation on a tag did.

    Attributes:
        tag: The tag afterwards (as it was, for a deleted tag).
        previous_title: Its title before.
        notes: How many notes (trashed ones included) carried it before.
        deleted: The tag is gone.
    """

    tag: Tag
    previous_title: str
    notes: int = 0
    deleted: bool = False


def named_otherwise(asked: str, folder: Folder) -> str:
    """'' when ``folder`` took the title asked for; else a line saying what it is named and why
    (a Markdown folder's notebook cannot take a name a file or another folder there has)."""
    wanted = clean_notebook_title(asked)
    if folder.title == wanted:
        return ""
    return f'the notebook is named "{folder.title}": the Markdown folder cannot take the name "{wanted}"'


def create_notebook(
    store: Store,
    title: str,
    *,
    parent_id: str = "",
    actor: str,
    made_id: str | None = None,
    visible: frozenset[str] | None = None,
) -> Folder:
    """A new notebook titled ``title`` inside ``parent_id`` ("" for the top level), called ``id``
    when given (a proposal's, fixed when it was made). ``visible``: as for ``refuse_taken``.

    Raises:
        InvalidInputError: the title is empty, or a notebook beside it has that name
            (``refuse_taken``); nothing was written.
    """
    refuse_taken(store, title, parent_id, visible=visible)  # before the write, as a bad title is
    return store.create_folder(title, parent_id=parent_id, actor=actor, made_id=made_id)


def refuse_taken(
    store: Store, title: str, parent_id: str, *, own_id: str = "", visible: frozenset[str] | None = None
) -> None:
    """Refuse ``title`` for a notebook inside ``parent_id`` ("" for the top level) when another
    notebook there, not in the trash, has it (case aside): every command naming a notebook by its
    title would then have to ask which. Two already there (Joplin allows them) stay addressable by
    path and id; this only keeps noted from making more.

    A caller who may see only the notebooks ``visible`` (an MCP client's scope; None: all of them)
    is refused only for those: one it cannot see does not count, and the refusal names no notebook
    it cannot see, so what it is told is the same whether or not one lies there (a refusal for it
    would tell that a notebook of that name exists, and its id). Only a top of its scope has
    siblings it cannot see, so two of a name can only come to be beside one.

    Raises:
        InvalidInputError: the title is empty, or another notebook (not ``own_id``) beside it has it.
    """
    title = clean_notebook_title(title)
    wanted = title.casefold()
    if isinstance(store, HasFolderNames):
        parent_id = store.folder_parent(parent_id)  # a Markdown folder's root notebook is its top
    # Joplin finds the notebooks of that title in one search, not every notebook's page.
    found = store.folders_titled(title) if isinstance(store, HasTitledFolders) else store.list_folders()
    for folder in (f for f in found if visible is None or f.id in visible):
        if folder.id != own_id and folder.title.casefold() == wanted and _parent(store, folder) == parent_id:
            seen = parent_id and (visible is None or parent_id in visible)
            parent = f'in "{store.get_folder(parent_id).title}"' if seen else "beside it"
            where = "at the top level" if visible is None and not parent_id else parent
            raise InvalidInputError(
                f'a notebook named "{folder.title}" is already {where} ({folder.id[:8]})',
                hint="pick another name, or use that notebook",
            )


def _parent(store: Store, folder: Folder) -> str:
    if isinstance(store, HasFolderNames) and folder.parent_id:
        return store.folder_parent(folder.parent_id)
    return folder.parent_id


def update_notebook(
    store: Store,
    folder_id: str,
    *,
    title: str | None = None,
    parent_id: str | None = None,
    actor: str,
    visible: frozenset[str] | None = None,
) -> FolderChange:
    """Rename the notebook and/or move it inside ``parent_id`` ("" for the top level), in one write.
    ``visible``: the notebooks the caller may see, as for ``refuse_taken``.

    Nothing is written when it has that title and parent already (a Markdown folder's root
    notebook stands for the top level: ``HasFolderNames.folder_parent``).

    Raises:
        InvalidInputError: ``parent_id`` is the notebook itself or one of its sub-notebooks, the
            title is empty, or a notebook where it would be has its name; nothing was written.
    """
    if parent_id == folder_id:
        raise InvalidInputError("a notebook cannot be its own parent")
    if parent_id is not None and isinstance(store, HasFolderNames):
        parent_id = store.folder_parent(parent_id)
    with store.batch():
        folder = store.get_folder(folder_id)
        if (title is None or title == folder.title) and (parent_id is None or parent_id == folder.parent_id):
            return FolderChange(folder, False)
        parent = folder.parent_id if parent_id is None else parent_id
        refuse_taken(
            store, folder.title if title is None else title, parent, own_id=folder_id, visible=visible
        )
        return FolderChange(
            store.update_folder(folder_id, title=title, parent_id=parent_id, actor=actor), True
        )


def trash_notebook(store: Store, folder_id: str, *, actor: str) -> FolderChange:
    """Move the notebook, with what it holds, to the trash (one already there is left as it is)."""
    with store.batch():
        folder = store.get_folder(folder_id)
        if folder.is_trashed:
            return FolderChange(folder, False)
        notebooks, notes = live_contents(store, folder_id)
        store.trash_folder(folder_id, actor=actor)
        return FolderChange(store.get_folder(folder_id), True, notebooks, notes)


def restore_notebook(store: Store, folder_id: str, *, actor: str) -> FolderChange:
    """Bring the notebook back from the trash (one not in the trash is left as it is)."""
    with store.batch():
        folder = store.get_folder(folder_id)
        if not folder.is_trashed:
            return FolderChange(folder, False)
        notebooks, notes = live_contents(store, folder_id)
        store.restore_folder(folder_id, actor=actor)
        after_notebooks, after_notes = live_contents(store, folder_id)
        return FolderChange(
            store.get_folder(folder_id), True, after_notebooks - notebooks, after_notes - notes
        )


def live_contents(store: Store, folder_id: str) -> tuple[int, int]:
    """How many notebooks, of the notebook and those inside it, are not in the trash, and how many
    notes not in the trash they hold."""
    below = set(descendants(store.list_folders(include_trashed=True), folder_id))
    live = {f.id for f in store.list_folders()} & below
    counts = store.folder_note_counts()
    return len(live), sum(counts.get(i, 0) for i in below)


def create_tag(store: Store, title: str, *, actor: str) -> Tag:
    """The tag titled ``title`` (case does not matter), made when there is none."""
    return store.create_tag(title, actor=actor)


def rename_tag(store: Store, tag_id: str, title: str, *, actor: str) -> TagChange:
    """Give the tag the title ``title``; every note carrying it shows the new title."""
    with store.batch():
        tag = store.get_tag(tag_id)
        if clean_tag_title(title) == tag.title:
            return TagChange(tag, tag.title)  # nothing to write (a change of case is a change)
        return TagChange(store.rename_tag(tag_id, title, actor=actor), tag.title)


def delete_tag(store: Store, tag_id: str, *, actor: str) -> TagChange:
    """Delete the tag; it comes off every note that carries it, and the notes stay."""
    with store.batch():
        tag = store.get_tag(tag_id)
        count = len(store.list_notes(tag_id=tag_id)) + len(store.list_notes(tag_id=tag_id, trashed=True))
        store.delete_tag(tag_id, actor=actor)
    return TagChange(tag, tag.title, notes=count, deleted=True)


def move_tag_on(store: Store, tag_id: str, title: str, note_ids: Sequence[str], *, actor: str) -> TagChange:
    """Give these notes the tag titled ``title`` (made when no tag has it) in place of ``tag_id``.

    The tag itself, and every other note that carries it, stay as they are: a rename for a caller
    who sees only some notes (an MCP client's scope). ``notes`` counts the notes moved.
    """
    with store.batch():
        tag = store.get_tag(tag_id)
        target = store.create_tag(title, actor=actor)
        for note_id in note_ids:
            store.tag_note(note_id, [target.title], actor=actor)
            store.untag_note(note_id, [tag.title], actor=actor)
        return TagChange(store.get_tag(target.id), tag.title, notes=len(note_ids))


def take_tag_off(store: Store, tag_id: str, note_ids: Sequence[str], *, actor: str) -> TagChange:
    """Take the tag off these notes; it stays on every other note, and stays a tag: a delete for a
    caller who sees only some notes (an MCP client's scope). ``notes`` counts the notes changed."""
    with store.batch():
        tag = store.get_tag(tag_id)
        for note_id in note_ids:
            store.untag_note(note_id, [tag.title], actor=actor)
    return TagChange(tag, tag.title, notes=len(note_ids))

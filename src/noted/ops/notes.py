"""Operations on one note: create, update, move, tags, completion, to-do, trash and restore, and
putting back an older text (a revision, or the text before an edit being undone), undoing a
change of tags (``undo_tags``: the tags it made go too once no note carries them), and thinning
every note's old revisions.

Each returns the note, a ``NoteChange`` (the note afterwards, and whether anything was written) or,
for tags, a ``NoteTags``; an operation with nothing to do writes nothing.

Input every store refuses (``noted.store.rules``) is refused before the first write.

A note created without a notebook goes in ``DEFAULT_NOTEBOOK``: the top-level notebook titled
"Inbox", made when missing (``noted create``, the app's new note with no notebook listed, the
``create_note`` tool given no notebook).
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass, replace

from noted.errors import (
    ConflictError,
    InvalidInputError,
    NotedError,
    NotFoundError,
    PartlyDoneError,
    WriteOutcomeUnknownError,
)
from noted.models import HistoryPruned, Note, NoteDraft, NotePatch, Resource, Revision, Tag, now_ms
from noted.ops.attachments import PickedFile, link_for
from noted.ops.erased import last_notebook
from noted.ops.resolve import refuse_trashed
from noted.store.protocol import HasFolderNames, Store, TidiesCutBatches
from noted.store.revisions import labelled
from noted.store.rules import clean_tag_title, clean_title

DEFAULT_NOTEBOOK = "Inbox"
"""The top-level notebook a note goes in when none is given (made when missing)."""


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
        created: The tags the change made, as no tag had their title before.
    """

    note: Note
    tags: tuple[str, ...]
    added: tuple[str, ...]
    removed: tuple[str, ...]
    not_on_note: tuple[str, ...]
    created: tuple[Tag, ...] = ()

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
    """Mark the to-do done (at ``stamp``, default now) or not done; nothing is written if it is so
    already (a done to-do keeps the time it was done).

    Raises:
        InvalidInputError: the note is not a to-do; nothing was written.
    """
    with store.batch():
        note = store.get_note(note_id)
        if not note.is_todo:
            raise InvalidInputError(f'"{note.title}" is a note, not a to-do')
        if bool(note.todo_completed) == done:
            return NoteChange(note, False)
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
    cleaned = [clean_tag_title(title) for title in add]
    with store.batch():
        note = store.get_note(note_id)
        tags = store.note_tags(note_id)
        before = {t.title.casefold() for t in tags}
        adding = [t for t in cleaned if t.casefold() not in before]  # what is there stays unwritten
        removing = [t for t in remove if t.strip().casefold() in before]
        known = {tag.id for title in adding if (tag := store.find_tag(title)) is not None}
        if adding:
            store.tag_note(note_id, adding, actor=actor)
        if removing:
            store.untag_note(note_id, removing, actor=actor)
        now = store.note_tags(note_id) if adding or removing else tags
    after = tuple(t.title for t in now)
    return NoteTags(
        note,
        after,
        added=tuple(t for t in after if t.casefold() not in before),
        removed=tuple(t for t in remove if t.casefold() in before),
        not_on_note=tuple(t for t in remove if t.casefold() not in before),
        created=tuple(t for t in now if t.title.casefold() not in before and t.id not in known),
    )


def undo_tags(store: Store, done: NoteTags, *, actor: str) -> NoteTags:
    """Put back the tags ``done`` (an ``edit_tags``) changed on its note, and delete the tags it
    made that no note carries any more (in the trash included) and that kept their title."""
    with store.batch():
        back = edit_tags(store, done.note.id, done.removed, done.added, actor=actor)
        for made in done.created:
            with contextlib.suppress(NotFoundError):  # deleted meanwhile: nothing to do
                tag = store.get_tag(made.id)
                held = any(store.list_notes(tag_id=tag.id, trashed=trashed) for trashed in (False, True))
                if tag.title == made.title and not held:
                    store.delete_tag(tag.id, actor=actor)
    return back


def set_tags(store: Store, note_id: str, titles: Sequence[str], *, actor: str) -> NoteTags:
    """Make the note's tags exactly ``titles`` (case does not matter), changing only what differs."""
    with store.batch():
        current = [t.title for t in store.note_tags(note_id)]
        folded = {t.casefold() for t in current}
        wanted = {t.casefold() for t in titles}
        add = [t for t in titles if t.casefold() not in folded]
        remove = [t for t in current if t.casefold() not in wanted]
        return edit_tags(store, note_id, add, remove, actor=actor)


@dataclass(frozen=True, slots=True)
class NewNote:
    """What ``create_note`` made: the note, whether its notebook was made for it, its attachments."""

    note: Note
    notebook_created: bool
    attachments: tuple[Resource, ...] = ()


def create_note(
    store: Store,
    draft: NoteDraft,
    *,
    actor: str,
    notebook: str = DEFAULT_NOTEBOOK,
    files: Sequence[PickedFile] = (),
) -> NewNote:
    """Create the note ``draft`` in notebook ``draft.parent_id``, or, when that is "", in the
    top-level notebook titled ``notebook`` (made when missing), with ``files`` linked at the end.

    The notebook, the files and the note are written in that order, so the note's first revision
    links its files, and in one transaction where the store has them: a refused note leaves no
    new notebook and no attachment (on Joplin, the attachments are deleted again).
    """
    clean_title(draft.title)
    for tag in draft.tags:
        clean_tag_title(tag)
    stored: list[Resource] = []
    try:
        with store.batch():
            parent, made = draft.parent_id, False
            if not parent:
                parent, made = top_level_notebook_made(store, notebook, actor)
            for file in files:
                title = file.title or file.filename
                stored.append(
                    store.add_resource(
                        file.data, filename=file.filename, mime=file.mime, title=title, actor=actor
                    )
                )
            links = "\n\n".join(link_for(r) for r in stored)
            body = draft.body
            if links:
                body = body.rstrip("\n") + ("\n\n" if body.strip() else "") + links + "\n"
            note = store.create_note(replace(draft, body=body, parent_id=parent), actor=actor)
    except PartlyDoneError:
        raise  # the note was written, and links the attachments: they stay
    except WriteOutcomeUnknownError:
        if not isinstance(store, TidiesCutBatches):
            _delete_stored(store, stored, actor)
        raise  # the note may be in, linking them: the batch's tidy deletes those no note links
    except (NotedError, OSError):
        _delete_stored(store, stored, actor)
        raise
    return NewNote(note, made, tuple(stored))


def _delete_stored(store: Store, stored: Sequence[Resource], actor: str) -> None:
    for resource in stored:  # a store without transactions kept them
        with contextlib.suppress(NotedError, OSError):  # the first failure is the one to report
            store.delete_resource(resource.id, actor=actor)


def top_level_notebook(store: Store, title: str) -> tuple[str, str]:
    """The top-level notebook a note given no notebook but ``title`` goes in: its id ("" when it
    is still to be made) and its title (a Markdown folder's: ``HasFolderNames.top_folder_title``).
    One of that title in another case is it (one would be refused beside it: ``refuse_taken``)."""
    if isinstance(store, HasFolderNames):
        title = store.top_folder_title(title)
    tops = [f for f in store.list_folders() if f.parent_id == ""]
    found = [f for f in tops if f.title == title] or [
        f for f in tops if f.title.casefold() == title.casefold()
    ]
    return (found[0].id, found[0].title) if found else ("", title)


def top_level_notebook_made(store: Store, title: str, actor: str) -> tuple[str, bool]:
    """The id of the top-level notebook ``title`` (``top_level_notebook``), made as ``actor`` when
    there is none, and whether it was made."""
    folder_id, title = top_level_notebook(store, title)
    if folder_id:
        return folder_id, False
    return store.create_folder(title, actor=actor).id, True


def update_note(
    store: Store,
    note_id: str,
    patch: NotePatch,
    *,
    actor: str,
    tags: Sequence[str] | None = None,
    base_updated_time: int | None = None,
) -> Note:
    """Change the note as ``patch`` says and, when ``tags`` is given, make its tags exactly those,
    in one transaction where the store has them. What the note already is stays unwritten: a patch
    that changes nothing writes nothing (a stale ``base_updated_time`` is refused all the same).

    Raises:
        ConflictError: ``base_updated_time`` is given and the note changed since; nothing was written.
    """
    if patch.title is not None:
        clean_title(patch.title)
    with store.batch():
        note = store.get_note(note_id)
        if not leaves_as_is(note, patch) or base_updated_time not in (None, note.updated_time):
            note = store.update_note(note_id, patch, actor=actor, base_updated_time=base_updated_time)
        if tags is not None:
            set_tags(store, note_id, tags, actor=actor)
    return note


def leaves_as_is(note: Note, patch: NotePatch) -> bool:
    """Whether ``patch`` would leave ``note`` as it is (then nothing is written: no change, no revision)."""
    if patch.body_after(note.body) != note.body:
        return False
    if patch.title is not None and clean_title(patch.title) != note.title:
        return False
    return all(
        getattr(patch, name) in (None, getattr(note, name))
        for name in ("parent_id", "is_todo", "todo_due", "todo_completed", "source_url",
                     "user_created_time", "user_updated_time")
    )  # fmt: skip


def revision_of(store: Store, note_id: str, revision_id: int) -> Revision:
    """Revision ``revision_id``, checked to be one of note ``note_id``'s.

    Raises:
        NotFoundError: there is no such revision of this note.
    """
    try:
        revision = store.get_revision(revision_id)
    except NotFoundError:
        revision = None  # none, or thinned: said as for another note's
    if revision is None or revision.note_id != note_id:
        try:
            name = f'note "{store.get_note(note_id).title}"'
        except NotFoundError:  # erased (``noted.ops.erased``)
            name = f"note {note_id}"
        raise NotFoundError(
            f"no revision {revision_id} of {name}", hint=f"`noted history {note_id}` lists them"
        )
    return revision


def restore_revision(store: Store, note_id: str, revision_id: int, *, actor: str) -> Note:
    """Put the note back as it was in its revision ``revision_id`` (a new save: nothing is lost).
    A note its backend erased is written again, with its id, in the notebook it was last seen in
    (else the Inbox): ``noted.ops.erased``. A note that reads as the revision already is returned
    as it is: as for ``update_note``, nothing is written.

    Raises:
        NotFoundError: there is no such revision of this note; nothing was written.
        NotedError: the note is in the trash (restore it first); nothing was written.
    """
    try:
        note: Note | None = store.get_note(note_id)
    except NotFoundError:
        note = None
    if note is not None:
        refuse_trashed(note)
    with labelled(f"restored from rev {revision_id}"):
        revision = revision_of(store, note_id, revision_id)
        if note is not None and (note.title, note.body) == (revision.title, revision.body):
            return note
        if note is not None:
            return store.restore_revision(revision.id, actor=actor)
        draft = NoteDraft(revision.title, revision.body, last_notebook(store, note_id), id=note_id)
        return create_note(store, draft, actor=actor).note


def prune_history(store: Store) -> HistoryPruned:
    """Thin every note's old revisions now by the history rule (``history.*`` settings) and give the
    space back (``noted history --prune``); no note changes, so nothing goes to the change feed."""
    return store.prune_history()


UNDID_EDIT = "undid the assistant's edit"
"""The label of the revision ``undo_edit`` saves."""


def undo_edit(store: Store, before: Note, after_updated_time: int, *, actor: str) -> Note:
    """Put the note back to ``before``'s title and body, undoing the edit that saved it at
    ``after_updated_time`` (a new save, so the edit stays in the history).

    A note already back as ``before`` (the edit reverted in the Changes view, say) is returned as it
    is: the edit is undone, and there is nothing to write.

    Raises:
        ConflictError: the note changed after that edit; nothing was written, so a later edit is
            not lost.
    """
    patch = NotePatch(title=before.title, body=before.body)
    try:
        with labelled(UNDID_EDIT):
            return store.update_note(before.id, patch, actor=actor, base_updated_time=after_updated_time)
    except ConflictError as exc:
        now = store.get_note(before.id)
        if (now.title, now.body) == (before.title, before.body):
            return now
        raise ConflictError(
            "the note changed after the assistant's edit; revert the edit in the Changes view "
            "instead, which keeps the later change too",
            current_updated_time=exc.current_updated_time,
        ) from exc

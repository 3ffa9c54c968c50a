"""Applying a batch of changes as one unit, and undoing it at once.

The chat applies the changes the person ticked in one approval (``noted.chat.calls``); before it
does, ``noted.ops.batch_capture.capture`` keeps what the changes name. ``all_or_none`` applies them
together: in one transaction (``Store.batch``) where the store has them; on Joplin, whose Data API
has none, each write lands as it runs, so a failure half way undoes the writes already made
(``restore``).

``restore`` is also the undo, as the person. It puts back the notes the batch changed (text,
notebook, trash, to-do state, tags), its notebooks (title, place, trash), its tags (title) and the
attachments it replaced or deleted (the version the store kept from before the batch), and takes
away what it made: notes go to the trash, notebooks too once nothing is left in them, tags and
attachment files once no note carries or links them. Whatever changed after the batch, by anyone,
is left as it is and named: each is compared whole with what the batch left (tags do not touch a
note's ``updated_time``), so a later change is never lost. So is what the batch made and the person
has used since. The changes no undo can take back (a tool declaring no ``Undo``) are named too.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from noted.errors import ConflictError, NotedError, NotFoundError
from noted.models import Folder, NotePatch, Resource, Tag
from noted.ops import notebooks
from noted.ops.attachments import delete_attachment, restore_attachment_version
from noted.ops.batch_capture import Batch, FolderState, NoteState, Snapshot, capture, contents_of, settled
from noted.ops.notes import restore_note, set_tags, trash_note
from noted.store.protocol import Store
from noted.store.revisions import labelled

UNDONE = "undid a batch of changes"
"""The label of the revision that puts a note back as it was before the batch."""

NAMED = 8
"""Items named in an undo's message at most; the rest are counted."""


@dataclass(frozen=True, slots=True)
class Undone:
    """What ``restore`` did: how many items it put back, and what it left and why."""

    restored: int
    kept: tuple[str, ...] = ()
    """What changed after the batch (or was used since), left as it is: ``note "Title"``."""
    final: tuple[str, ...] = ()
    """The changes of the batch that no undo can take back (a tool without an ``Undo``)."""

    @property
    def message(self) -> str:
        """One line for the person: what was undone, and what was not."""
        if not (self.kept or self.final):
            return (
                "Undone: all the batch changed is back as it was."
                if self.restored
                else "There was nothing left to undo."
            )
        parts = ["Undone." if self.restored else "Nothing was undone."]
        if self.kept:
            parts.append(f"Left as they are, changed since the batch: {_names(self.kept)}.")
        if self.final:
            parts.append(f"Not undone, as no undo can take it back: {_names(self.final)}.")
        return " ".join(parts)


def _names(items: Sequence[str]) -> str:
    shown = ", ".join(items[:NAMED])
    return shown if len(items) <= NAMED else f"{shown} and {len(items) - NAMED:,} more"


def restore(store: Store, batch: Batch, *, actor: str) -> Undone:
    """Undo ``batch`` as ``actor`` (see the module docstring), in one transaction where the store
    has them: all or nothing, a kill half way included."""
    with store.batch():
        return _Undo(store, batch, actor).run()


@dataclass
class _Undo:
    store: Store
    batch: Batch
    actor: str
    restored: int = 0
    kept: list[str] = field(default_factory=list)

    def run(self) -> Undone:
        before, after, made = self.batch.before, self.batch.after, self.batch.made
        now = capture(
            self.store,
            notes=[s.note.id for s in after.notes],
            folders=[s.folder.id for s in after.folders],
            tags=[*(t.id for t in before.tags), *made.tags],
            contents=[s.folder.id for s in after.folders if s.contents is not None],
            files=[s.id for s in after.files],
        )
        notes, folders = self._notes(now), self._folders(now)
        deleted = self._tags(now)  # renamed back first: the notes' tags then match again
        for folder in folders:
            self._put_folder_back(folder)
        for note in notes:
            self._put_note_back(note)
        self._put_files_back(now)
        self._take_away(now)
        for tag in deleted:
            if self.store.find_tag(tag.title) is None:
                notebooks.create_tag(self.store, tag.title, actor=self.actor)
            self.restored += 1
        return Undone(self.restored, tuple(dict.fromkeys(self.kept)), self.batch.final)

    def _notes(self, now: Snapshot) -> list[NoteState]:
        """The notes to put back; those changed since are named."""
        after, current = self.batch.after.note_map(), now.note_map()
        out: list[NoteState] = []
        for before in self.batch.before.notes:
            left, found = after.get(before.note.id), current.get(before.note.id)
            if left is None or found is None or left.look == before.look:
                continue  # gone for good since, or not changed by the batch
            if found.look != left.look:
                self.kept.append(f'note "{found.note.title}"')
            else:
                out.append(before)
        return out

    def _folders(self, now: Snapshot) -> list[FolderState]:
        """The notebooks to put back, the ones to trash again first; those changed since are named."""
        after, current = self.batch.after.folder_map(), now.folder_map()
        out: list[FolderState] = []
        for before in self.batch.before.folders:
            left, found = after.get(before.folder.id), current.get(before.folder.id)
            if left is None or found is None or _place(left.folder) == _place(before.folder):
                continue
            if found.look != left.look:
                self.kept.append(f'notebook "{found.folder.title}"')
            else:
                out.append(before)
        return sorted(out, key=lambda s: not s.folder.is_trashed)  # trash again first: ancestors too

    def _tags(self, now: Snapshot) -> list[Tag]:
        """Rename back the tags the batch renamed; the ones it deleted, to make again."""
        after, current = self.batch.after.tag_map(), now.tag_map()
        deleted: list[Tag] = []
        for before in self.batch.before.tags:
            left, found = after.get(before.id), current.get(before.id)
            if left is None:
                deleted.append(before)
            elif left.title == before.title:
                continue
            elif found is None or (found.title, found.updated_time) != (left.title, left.updated_time):
                self.kept.append(f'tag "{found.title if found else left.title}"')
            else:
                try:
                    notebooks.rename_tag(self.store, before.id, before.title, actor=self.actor)
                    self.restored += 1
                except NotedError:  # the person made a tag of that title since
                    self.kept.append(f'tag "{left.title}"')
        return deleted

    def _put_folder_back(self, state: FolderState) -> None:
        before, store = state.folder, self.store
        try:
            found = store.get_folder(before.id)
            if (found.title, found.parent_id) != (before.title, before.parent_id):
                notebooks.update_notebook(
                    store, before.id, title=before.title, parent_id=before.parent_id, actor=self.actor
                )
            if before.is_trashed and not found.is_trashed:
                notebooks.trash_notebook(store, before.id, actor=self.actor)
            elif found.is_trashed and not before.is_trashed:
                notebooks.restore_notebook(store, before.id, actor=self.actor)
        except NotFoundError:
            return
        except NotedError:  # its old parent went since
            self.kept.append(f'notebook "{before.title}"')
            return
        self.restored += 1

    def _put_note_back(self, state: NoteState) -> None:
        before, store = state.note, self.store
        try:
            found = store.get_note(before.id)
        except NotFoundError:
            return
        fields = ("title", "body", "parent_id", "is_todo", "todo_completed", "todo_due")
        if any(getattr(found, f) != getattr(before, f) for f in fields):
            patch = NotePatch(**{f: getattr(before, f) for f in fields})
            try:
                with labelled(UNDONE):
                    store.update_note(
                        before.id, patch, actor=self.actor, base_updated_time=found.updated_time
                    )
            except ConflictError:
                self.kept.append(f'note "{found.title}"')
                return
        if before.is_trashed != found.is_trashed:
            (trash_note if before.is_trashed else restore_note)(store, before.id, actor=self.actor)
        set_tags(store, before.id, state.tags, actor=self.actor)
        self.restored += 1

    def _put_files_back(self, now: Snapshot) -> None:
        """Put back the attachments the batch replaced or deleted, from the version the store kept
        of each as it was before; one changed since (or gone with no such version) is named."""
        after, current = self.batch.after.file_map(), now.file_map()
        for before in self.batch.before.files:
            was, left, found = before.resource, after.get(before.id), current.get(before.id)
            if was is None or left is None or found is None or left.resource == was:
                continue  # not there before the batch, or not changed by it
            name = f'file "{(found.resource or was).title}"'
            version = next(
                (v for v in self.store.resource_versions(was.id) if _same_file(v.resource, was)), None
            )
            if found.resource != left.resource or version is None:
                self.kept.append(name)
                continue
            try:
                restore_attachment_version(self.store, was.id, version.id, actor=self.actor)
            except NotedError:
                self.kept.append(name)
                continue
            self.restored += 1

    def _take_away(self, now: Snapshot) -> None:
        """Trash the notes and notebooks the batch made, and delete its tags and files no note
        carries or links any more; what was changed or used since stays, named."""
        store, made, after = self.store, self.batch.made, self.batch.after
        left, current = after.note_map(), now.note_map()
        for note_id in made.notes:
            found = current.get(note_id)
            if found is None:
                continue
            if note_id not in left or found.look != left[note_id].look:
                self.kept.append(f'note "{found.note.title}"')
                continue
            trash_note(store, note_id, actor=self.actor)
            self.restored += 1
        self._take_away_folders(now)
        ours = {s.note.id for s in self.batch.before.notes} | set(made.notes)
        tags_left, tags_now = after.tag_map(), now.tag_map()
        for tag_id in made.tags:
            tag, left_tag = tags_now.get(tag_id), tags_left.get(tag_id)
            if tag is None:
                continue
            if left_tag is None or (tag.title, tag.updated_time) != (left_tag.title, left_tag.updated_time):
                self.kept.append(f'tag "{tag.title}"')  # renamed since
                continue
            carried = {n.id for t in (False, True) for n in store.list_notes(tag_id=tag_id, trashed=t)}
            self._away(carried, ours, f'tag "{tag.title}"', tag_id, self._delete_tag)
        for file_id in made.files:
            with contextlib.suppress(NotFoundError):
                linked = set(store.resource_notes(file_id))
                self._away(
                    linked, ours, f'file "{store.get_resource(file_id).title}"', file_id, self._delete_file
                )

    def _away(
        self, users: set[str], ours: set[str], name: str, item_id: str, delete: Callable[[str], None]
    ) -> None:
        if not users:
            delete(item_id)
            self.restored += 1
        elif users - ours:  # a note the batch did not touch carries or links it: the person's now
            self.kept.append(name)

    def _delete_tag(self, tag_id: str) -> None:
        notebooks.delete_tag(self.store, tag_id, actor=self.actor)

    def _delete_file(self, file_id: str) -> None:
        delete_attachment(self.store, file_id, actor=self.actor)

    def _take_away_folders(self, now: Snapshot) -> None:
        store, after = self.store, self.batch.after.folder_map()
        current = now.folder_map()
        every = {f.id: f for f in store.list_folders(include_trashed=True)}
        made = [f for f in self.batch.made.folders if f in current and f in every]
        for folder_id in sorted(made, key=lambda f: -_depth(every, f)):  # the deepest first
            found, left = current[folder_id].folder, after.get(folder_id)
            if found.is_trashed:
                continue
            title = f'notebook "{found.title}"'
            if left is None or (*_place(found), found.updated_time) != (
                *_place(left.folder),
                left.folder.updated_time,
            ):
                self.kept.append(title)
            elif contents_of(store, folder_id):
                self.kept.append(title)  # notes are left in it: a note kept above, or the person's
            else:
                notebooks.trash_notebook(store, folder_id, actor=self.actor)
                self.restored += 1


def _same_file(kept: Resource, was: Resource) -> bool:
    """The kept version is the attachment as it was (a store may round its times, not its file)."""
    return (kept.updated_time, kept.size, kept.filename) == (was.updated_time, was.size, was.filename)


def _place(folder: Folder) -> tuple[str, str, bool]:
    return folder.title, folder.parent_id, folder.is_trashed


def _depth(every: dict[str, Folder], folder_id: str) -> int:
    depth, seen = 0, {folder_id}
    while (parent := every[folder_id].parent_id) in every and parent not in seen:
        seen.add(parent)
        depth, folder_id = depth + 1, parent
    return depth


@contextlib.contextmanager
def all_or_none(store: Store, before: Snapshot, *, actor: str) -> Iterator[None]:
    """Make the writes inside one unit: when the block raises, none of them is kept.

    On a store with transactions the block runs in one (``Store.batch``), rolled back as a whole.
    Joplin has none over its Data API: there what ``before`` names is put back and what ``actor``
    made since is taken away (``restore``, as ``actor``) before the error goes on; the history
    keeps the writes and their undoing.
    """
    if store.capabilities.transactions:
        with store.batch():
            yield
        return
    try:
        yield
    except BaseException as failure:
        try:
            restore(store, settled(store, before, actor), actor=actor)
        except NotedError as undo:
            raise NotedError(
                f"{failure}; putting back the changes made before it failed too ({undo})",
                hint="the note history keeps every version: restore them from there",
            ) from failure
        raise

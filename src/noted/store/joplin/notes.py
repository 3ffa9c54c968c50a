"""Notes on Joplin: read, create, update with a stale-base check, trash and restore.

Joplin has no conditional update, so an update reads the note, refuses it when its
``updated_time`` is not the base the caller read, and asks for that time again last before its
``PUT`` (``noted.store.joplin.note_update``): an edit made in Joplin's apps meanwhile is met as a
conflict, or, for a change based on no text read (an append), the update starts again from it.
"""

from __future__ import annotations

import functools
import shlex
from collections.abc import Sequence
from typing import Any

from noted.errors import (
    BackendError,
    ConflictError,
    EncryptedError,
    InvalidInputError,
    NotFoundError,
    PartlyDoneError,
)
from noted.models import (
    ChangeType,
    Note,
    NoteDraft,
    NoteMeta,
    NotePatch,
    Place,
    new_id,
    now_ms,
)
from noted.store.joplin.base import META_FIELDS, NOTE_FIELDS, JoplinApi, meta_of, note_of, safe_id
from noted.store.joplin.client import PAGE_LIMIT
from noted.store.joplin.folders import Folders
from noted.store.joplin.history import History
from noted.store.joplin.note_update import payload_of, saved_note, unmoved
from noted.store.joplin.provenance import stamped
from noted.store.joplin.tag_pages import Walks, tag_items
from noted.store.joplin.tags import Tags
from noted.store.protocol import NoteOrder
from noted.store.rules import check_body, clean_title
from noted.wording import plural

_TRIES = 3
_MADE_FIELDS = frozenset(NOTE_FIELDS.split(",")) - {"is_conflict", "encryption_applied"}
"""What Joplin's answer to a new note's POST gives (those two it leaves out are 0 for a new note)."""
"""An update based on no text read starts again this often when the note changes under it."""
_ORDER = {
    NoteOrder.UPDATED: ("user_updated_time", "DESC"),
    NoteOrder.CREATED: ("user_created_time", "DESC"),
    NoteOrder.TITLE: ("title", "ASC"),
    NoteOrder.ID: ("id", "ASC"),
}


def _pages_itself(tag_id: str | None, trashed: bool, todo_only: bool) -> bool:
    """Whether Joplin's listing holds exactly these notes, so that Joplin sorts and pages it."""
    return tag_id is None and not trashed and not todo_only


def _sort_key(order: NoteOrder) -> Any:
    if order is NoteOrder.UPDATED:
        return lambda m: (-m.user_updated_time, m.id)
    if order is NoteOrder.CREATED:
        return lambda m: (-m.user_created_time, m.id)
    if order is NoteOrder.TITLE:
        return lambda m: (m.title.casefold(), m.id)
    return lambda m: m.id


class Notes:
    """The notes of the Joplin store; each save is also a revision in the sidecar."""

    def __init__(self, api: JoplinApi, tags: Tags, folders: Folders, history: History) -> None:
        self.api = api
        self.tags = tags
        self.folders = folders
        self.history = history
        self.walks = Walks()
        """Which tags' pages are better read whole (``noted.store.joplin.tag_pages``)."""

    def get_note(self, note_id: str) -> Note:
        note = note_of(self.api.note_item(note_id))
        self.api.sidecar.lengths.keep([note])
        return note

    def get_notes(self, note_ids: Sequence[str]) -> list[Note]:
        """The notes that exist among ``note_ids``, in the order asked; one Joplin has not decrypted
        yet is left out, as its text is unknown (``NoteMeta.encrypted`` lists it)."""
        found: list[Note] = []
        for note_id in note_ids:
            try:
                found.append(note_of(self.api.note_item(note_id)))
            except (NotFoundError, EncryptedError):
                continue
        self.api.sidecar.lengths.keep(found)
        return found

    def note_metas(self, note_ids: Sequence[str]) -> list[NoteMeta]:
        """The notes that exist among ``note_ids``, in the order asked, without their bodies: a
        request each, as the API lists no notes by id (one not decrypted yet is ``encrypted``)."""
        found: list[NoteMeta] = []
        for note_id in note_ids:
            try:
                found.append(
                    meta_of(self.api.client.get(f"/notes/{safe_id(note_id)}", {"fields": META_FIELDS}))
                )
            except NotFoundError:
                continue
        return self.api.sidecar.lengths.fill([m for m in found if m.id])

    def saved_since(self, since: int, *, folder_id: str | None = None) -> list[Note]:
        """The notes Joplin saved at ``since`` (ms) or later, trashed ones too, newest first; of
        one notebook, not in the trash, when ``folder_id`` is given.

        Read a page of 100 at a time: reading them one by one costs a request each (9 ms). A note
        Joplin has not decrypted yet is left out, as in ``get_notes``.
        """
        params = {"fields": NOTE_FIELDS, "order_by": "updated_time", "order_dir": "DESC"}
        path = "/notes" if folder_id is None else f"/folders/{safe_id(folder_id)}/notes"
        if folder_id is None:
            params["include_deleted"] = "1"
        found: list[Note] = []
        for page in self.api.client.pages(path, params):
            notes = [note_of(i) for i in page if not i.get("encryption_applied")]
            found += [n for n in notes if n.updated_time >= since]
            if not page or int(page[-1].get("updated_time") or 0) < since:
                break
        self.api.sidecar.lengths.keep(found)
        return found

    def list_notes(
        self,
        *,
        folder_id: str | None = None,
        tag_id: str | None = None,
        trashed: bool = False,
        todo_only: bool = False,
        order: NoteOrder = NoteOrder.UPDATED,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[NoteMeta]:
        # Never the bodies: a page holding a 39 MB note moved 39 MB at each load (1.4 s), and a
        # full listing (the indexer's scan, the counts) tripled in cost. body_length is the one
        # kept when noted last read the note, if not saved since, else 0 (``lengths``).
        by, direction = _ORDER[order]
        path, params = self._listing(folder_id, tag_id, trashed)
        params |= {"fields": META_FIELDS, "order_by": by, "order_dir": direction}
        try:
            if _pages_itself(tag_id, trashed, todo_only):
                return self.api.sidecar.lengths.fill(
                    [meta_of(i) for i in self._page(path, params, limit, offset)]
                )
            if tag_id is not None and not trashed:
                wanted = None if limit is None else offset + limit
                items = tag_items(
                    self.api.client, self.tags.notes, self.walks, tag_id, folder_id, order, wanted
                )
            else:
                items = self.api.trash(META_FIELDS) if trashed else self.api.client.get_all(path, params)
            if tag_id is not None and trashed:
                items = self.api.trashed_with_tag(items, tag_id)
        except (NotFoundError, BackendError):
            if self._unknown(folder_id):
                return []
            raise
        metas = [
            m
            for m in map(meta_of, items)
            if m.is_trashed == trashed
            and (folder_id is None or m.parent_id == folder_id)
            and (not todo_only or m.is_todo)
        ]
        metas.sort(key=_sort_key(order))
        return self.api.sidecar.lengths.fill(metas[offset : None if limit is None else offset + limit])

    def count_notes(
        self,
        *,
        folder_id: str | None = None,
        tag_id: str | None = None,
        trashed: bool = False,
        todo_only: bool = False,
    ) -> int:
        """Joplin's API cannot count: a listing Joplin pages itself is probed for its last page
        (``JoplinClient.count``); a tag's notes and the to-dos are those kept (``Tags.notes``);
        the others are listed (without bodies) and counted."""
        if tag_id is not None and folder_id is None and not trashed and not todo_only:
            return len(self.tags.notes.note_ids(tag_id))
        if todo_only and tag_id is None and not trashed:  # the places kept, as the tree's counts
            places = self.tags.notes.places().values()
            return sum(1 for parent, todo in places if todo and folder_id in (None, parent))
        if not _pages_itself(tag_id, trashed, todo_only):
            return len(
                self.list_notes(
                    folder_id=folder_id,
                    tag_id=tag_id,
                    trashed=trashed,
                    todo_only=todo_only,
                    order=NoteOrder.ID,
                )
            )
        path, params = self._listing(folder_id, tag_id, trashed)
        try:
            return self.api.client.count(path, params | {"order_by": "id", "order_dir": "ASC"})
        except (NotFoundError, BackendError):
            if self._unknown(folder_id):
                return 0
            raise

    @staticmethod
    def _listing(
        folder_id: str | None, tag_id: str | None, trashed: bool
    ) -> tuple[str, dict[str, str | int]]:
        """The path that lists these notes, and its filter."""
        if tag_id is not None and not trashed:
            return f"/tags/{safe_id(tag_id)}/notes", {}
        if folder_id is not None and not trashed:
            return f"/folders/{safe_id(folder_id)}/notes", {}
        return "/notes", {"include_deleted": "1"} if trashed else {}

    def _unknown(self, folder_id: str | None) -> bool:
        """Joplin fails on an unknown notebook; noted lists nothing in it."""
        return folder_id is not None and not self.api.exists(f"/folders/{safe_id(folder_id)}")

    def _page(self, path: str, params: dict[str, str | int], limit: int | None, offset: int) -> list[Any]:
        """Items ``offset`` to ``offset + limit`` of a listing Joplin sorts and pages itself."""
        out: list[Any] = []
        skip = offset % PAGE_LIMIT
        for page in self.api.client.pages(path, params, first_page=offset // PAGE_LIMIT + 1):
            out.extend(page[skip:])
            skip = 0
            if limit is not None and len(out) >= limit:
                return out[:limit]
        return out

    def create_note(self, draft: NoteDraft, *, actor: str, session: str | None = None) -> Note:
        title = clean_title(draft.title)
        body = check_body(draft.body)
        if not draft.parent_id:
            raise InvalidInputError("a note needs a notebook")
        self.api.live_folder(draft.parent_id)
        note_id = draft.id or new_id()
        if draft.id and self.api.exists(f"/notes/{safe_id(note_id)}"):
            raise InvalidInputError(f'a note with id "{note_id}" exists already')
        payload: dict[str, Any] = {
            "id": note_id,
            "parent_id": draft.parent_id,
            "title": title,
            "body": body,
            "is_todo": int(draft.is_todo),
            "todo_due": draft.todo_due,
            "todo_completed": draft.todo_completed,
            "source_url": draft.source_url,
            "user_data": stamped("", actor, title, body, now_ms()),
        }
        if draft.user_created_time:
            payload["user_created_time"] = draft.user_created_time
        if draft.user_updated_time:
            payload["user_updated_time"] = draft.user_updated_time
        answer = self.api.send(note_id, actor, "POST", "/notes", payload, change=ChangeType.CREATE)
        note = self._made(note_id, answer)
        self.api.sidecar.save_revision(note, actor, note.updated_time, session=session)
        if draft.tags:
            try:
                self.tags.link(note_id, draft.tags, actor=actor, made=Place(draft.parent_id, 0, ()))
            except (BackendError, NotFoundError) as exc:
                tags = " ".join(shlex.quote(t) for t in draft.tags)
                raise PartlyDoneError(
                    f'note "{title}" was created ({note_id})',
                    "not all its tags were added",
                    exc,
                    hint=f"add them with `noted tag {note_id[:8]} {tags}`, not by creating it again",
                ) from exc
        return note

    def _made(self, note_id: str, answer: object) -> Note:
        """The note just made, as Joplin's answer to the POST gives it (every field it stores),
        else as read again."""
        if not (isinstance(answer, dict) and answer.get("id") == note_id and _MADE_FIELDS <= answer.keys()):
            return self.get_note(note_id)
        note = note_of(answer)
        self.api.sidecar.lengths.keep([note])
        return note

    def update_note(
        self,
        note_id: str,
        patch: NotePatch,
        *,
        actor: str,
        base_updated_time: int | None = None,
        session: str | None = None,
    ) -> Note:
        with self.api.note_writes:  # (no other noted process writes it between the read and the PUT)
            for _ in range(_TRIES - 1):
                try:
                    return self._update(note_id, patch, actor, base_updated_time, session)
                except ConflictError:
                    if base_updated_time is not None:
                        raise
            return self._update(note_id, patch, actor, base_updated_time, session)

    def _update(
        self, note_id: str, patch: NotePatch, actor: str, base_updated_time: int | None, session: str | None
    ) -> Note:
        item = self.api.note_item(note_id, NOTE_FIELDS + ",user_data")
        old, user_data = note_of(item), str(item.get("user_data") or "")
        if old.is_conflict:  # Joplin's apps do not let anyone edit one either
            raise InvalidInputError(
                f'note "{old.title}" is a conflict copy made by Joplin\'s sync and cannot be edited',
                hint=f"settle it with `noted conflicts resolve {old.id}`",
            )
        if base_updated_time is not None and base_updated_time != old.updated_time:
            raise ConflictError(
                f'note "{old.title}" changed since it was read; it was saved again meanwhile',
                current_updated_time=old.updated_time,
            )
        if patch.parent_id is not None and patch.parent_id != old.parent_id:
            self.api.live_folder(patch.parent_id)
        payload = payload_of(old, patch)
        if not payload:
            return old
        if "title" in payload or "body" in payload:
            title, body = payload.get("title", old.title), payload.get("body", old.body)
            payload["user_data"] = stamped(user_data, actor, title, body, now_ms())
        self.history.keep_outside_state(old, user_data)
        path = f"/notes/{safe_id(note_id)}"
        check = functools.partial(unmoved, self.api.client, old)
        answer = self.api.send(
            note_id, actor, "PUT", path, payload, change=ChangeType.UPDATE, read=item, check=check
        )
        new = saved_note(answer, note_id) or self.get_note(note_id)
        self.api.sidecar.lengths.keep([new])
        if new.title != old.title or new.body != old.body:
            self.api.sidecar.save_revision(new, actor, new.updated_time, session=session)
        return new

    def restore_revision(self, revision_id: int, *, actor: str) -> Note:
        """Put a note back to the title and body of one of its revisions (a new save by ``actor``)."""
        revision = self.api.sidecar.get_revision(revision_id)
        return self.update_note(
            revision.note_id, NotePatch(title=revision.title, body=revision.body), actor=actor
        )

    def trash_note(self, note_id: str, *, actor: str) -> None:
        note = self.get_note(note_id)
        if note.is_trashed:
            return
        self.api.send(note_id, actor, "DELETE", f"/notes/{safe_id(note_id)}", change=ChangeType.UPDATE)

    def restore_note(self, note_id: str, *, actor: str) -> Note:
        """Bring a note back from the trash into its notebook (restoring that notebook too)."""
        note = self.get_note(note_id)
        if not note.is_trashed:
            return note
        try:
            self.api.folder_item(note.parent_id)
        except NotFoundError:
            parent = self.folders.restored_folder(actor)
        else:
            parent = note.parent_id
            self.folders.restore_folder_chain(parent, actor)
        payload = {"deleted_time": 0, "parent_id": parent}
        self.api.send(note_id, actor, "PUT", f"/notes/{safe_id(note_id)}", payload, change=ChangeType.UPDATE)
        return self.get_note(note_id)

    def empty_trash(self, *, actor: str) -> int:
        """Erase every trashed note, then the trashed notebooks left empty; returns how many notes went."""
        trashed = self.list_notes(trashed=True)
        erased: list[str] = []
        try:
            for meta in trashed:
                path = f"/notes/{meta.id}"
                params = {"permanent": "1"}
                self.api.send(meta.id, actor, "DELETE", path, change=ChangeType.DELETE, params=params)
                erased.append(meta.id)
            self.folders.erase_trashed(actor)
        except BackendError as exc:  # Joplin stopped answering: say what went, as nothing is undone
            if not erased:
                raise
            failed = (
                "erasing the notebooks failed" if len(erased) == len(trashed) else "erasing the next failed"
            )
            raise PartlyDoneError(
                f"erased {len(erased):,} of the {plural(len(trashed), 'note')} in the trash",
                failed,
                exc,
                hint="run `noted empty-trash` again to erase the rest",
            ) from exc
        finally:
            self.api.sidecar.forget_notes(erased)
        return len(trashed)

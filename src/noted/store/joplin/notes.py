"""Notes on Joplin: read, create, update with a stale-base check, trash and restore, history.

Joplin has no conditional update, so an update reads the note, refuses it when its
``updated_time`` is not the base the caller read, and sends the new state at once; the window in
which an edit made in Joplin could slip between is the round trip of one request.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from noted.errors import BackendError, ConflictError, InvalidInputError, NotFoundError
from noted.models import (
    Change,
    ChangePage,
    ChangeType,
    HistoryPruned,
    ItemType,
    Note,
    NoteDraft,
    NoteMeta,
    NotePatch,
    Revision,
    new_id,
    now_ms,
)
from noted.store.joplin.base import META_FIELDS, NOTE_FIELDS, meta_of, note_of, safe_id
from noted.store.joplin.client import PAGE_LIMIT
from noted.store.joplin.provenance import stamped, writer_of
from noted.store.joplin.sidecar import ACTOR_JOPLIN
from noted.store.joplin.tags import TagOps
from noted.store.protocol import NoteOrder
from noted.store.rules import check_body, clean_title

RESTORED_FOLDER = "Restored notes"

_ORDER = {
    NoteOrder.UPDATED: ("user_updated_time", "DESC"),
    NoteOrder.CREATED: ("user_created_time", "DESC"),
    NoteOrder.TITLE: ("title", "ASC"),
    NoteOrder.ID: ("id", "ASC"),
}


def _sort_key(order: NoteOrder) -> Any:
    if order is NoteOrder.UPDATED:
        return lambda m: (-m.user_updated_time, m.id)
    if order is NoteOrder.CREATED:
        return lambda m: (-m.user_created_time, m.id)
    if order is NoteOrder.TITLE:
        return lambda m: (m.title.casefold(), m.id)
    return lambda m: m.id


class NoteOps(TagOps):
    """The note half of the Joplin store."""

    def get_note(self, note_id: str) -> Note:
        return note_of(self.note_item(note_id))

    def get_notes(self, note_ids: Sequence[str]) -> list[Note]:
        """The notes that exist among ``note_ids``, in the order asked."""
        found: list[Note] = []
        for note_id in note_ids:
            try:
                found.append(self.get_note(note_id))
            except NotFoundError:
                continue
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
        # A limited page carries bodies so body_length is right; a full listing (the indexer's
        # scan, the sidebar's counts) leaves them out, as bodies triple its cost (0.22 s → 0.67 s
        # for 1,000 notes of 4 kB): a caller showing lengths reads its page of notes instead.
        fields = NOTE_FIELDS if limit is not None else META_FIELDS
        by, direction = _ORDER[order]
        params: dict[str, str | int] = {"fields": fields, "order_by": by, "order_dir": direction}
        if tag_id is not None:
            path = f"/tags/{safe_id(tag_id)}/notes"
        elif folder_id is not None and not trashed:
            path = f"/folders/{safe_id(folder_id)}/notes"
        else:
            path = "/notes"
            if trashed:
                params["include_deleted"] = "1"
        try:
            if tag_id is None and not trashed and not todo_only:  # Joplin sorts and pages it itself
                return [meta_of(i) for i in self._page(path, params, limit, offset)]
            items = self.client.get_all(path, params)
        except (NotFoundError, BackendError):
            if folder_id is not None and not self._exists(f"/folders/{safe_id(folder_id)}"):
                return []  # Joplin fails on an unknown notebook; noted lists nothing in it
            raise
        metas = [
            m
            for m in map(meta_of, items)
            if m.is_trashed == trashed
            and (folder_id is None or m.parent_id == folder_id)
            and (not todo_only or m.is_todo)
        ]
        metas.sort(key=_sort_key(order))
        return metas[offset : None if limit is None else offset + limit]

    def count_notes(
        self,
        *,
        folder_id: str | None = None,
        tag_id: str | None = None,
        trashed: bool = False,
        todo_only: bool = False,
    ) -> int:
        """Joplin's API cannot count: the notes are listed (without bodies) and counted."""
        return len(
            self.list_notes(
                folder_id=folder_id, tag_id=tag_id, trashed=trashed, todo_only=todo_only, order=NoteOrder.ID
            )
        )

    def _page(self, path: str, params: dict[str, str | int], limit: int | None, offset: int) -> list[Any]:
        """Items ``offset`` to ``offset + limit`` of a listing Joplin sorts and pages itself."""
        out: list[Any] = []
        skip = offset % PAGE_LIMIT
        for page in self.client.pages(path, params, first_page=offset // PAGE_LIMIT + 1):
            out.extend(page[skip:])
            skip = 0
            if limit is not None and len(out) >= limit:
                return out[:limit]
        return out

    def create_note(self, draft: NoteDraft, *, actor: str) -> Note:
        title = clean_title(draft.title)
        body = check_body(draft.body)
        if not draft.parent_id:
            raise InvalidInputError("a note needs a notebook")
        self.live_folder(draft.parent_id)
        note_id = draft.id or new_id()
        if draft.id and self._exists(f"/notes/{safe_id(note_id)}"):
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
        self.send(note_id, actor, "POST", "/notes", payload, change=ChangeType.CREATE)
        note = self.get_note(note_id)
        self.sidecar.save_revision(note, actor, note.updated_time)
        if draft.tags:
            self.tag_note(note_id, draft.tags, actor=actor)
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
        item = self.note_item(note_id, NOTE_FIELDS + ",user_data")
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
            self.live_folder(patch.parent_id)
        payload = self._payload(old, patch)
        if not payload:
            return old
        if "title" in payload or "body" in payload:
            title, body = payload.get("title", old.title), payload.get("body", old.body)
            payload["user_data"] = stamped(user_data, actor, title, body, now_ms())
        self._keep_outside_state(old, user_data)
        self.send(note_id, actor, "PUT", f"/notes/{safe_id(note_id)}", payload, change=ChangeType.UPDATE)
        new = self.get_note(note_id)
        if new.title != old.title or new.body != old.body:
            self.sidecar.save_revision(new, actor, new.updated_time, session=session)
        return new

    @staticmethod
    def _payload(old: Note, patch: NotePatch) -> dict[str, Any]:
        body = old.body if patch.body is None else patch.body
        if patch.prepend is not None:
            body = patch.prepend + ("\n" if body and not patch.prepend.endswith("\n") else "") + body
        if patch.append is not None:
            body = body + ("\n" if body and not body.endswith("\n") else "") + patch.append
        payload: dict[str, Any] = {}
        if body != old.body:
            payload["body"] = check_body(body)
        if patch.title is not None:
            payload["title"] = clean_title(patch.title)
        simple = {
            "parent_id": patch.parent_id,
            "todo_due": patch.todo_due,
            "todo_completed": patch.todo_completed,
            "source_url": patch.source_url,
            "user_created_time": patch.user_created_time,
            "user_updated_time": patch.user_updated_time,
        }
        payload.update({k: v for k, v in simple.items() if v is not None})
        if patch.is_todo is not None:
            payload["is_todo"] = int(patch.is_todo)
        return payload

    def _keep_outside_state(self, note: Note, user_data: str) -> None:
        """Record the note as Joplin had it, when that state is not the last one noted knows.

        Without it, "undo what the assistant did" would have no state to go back to for a note
        written in Joplin. The feed is brought up to date first: Joplin keeps only a note's newest
        change, so the edit made there would be gone from its events once noted's write lands.
        The state is Joplin's, unless noted wrote it on another machine (its stamp says who).
        """
        last = self.sidecar.last_revision(note.id)
        if last is None or (last.title, last.body) != (note.title, note.body):
            self.feed.pull()
            actor = writer_of(user_data, note.title, note.body) or ACTOR_JOPLIN
            self.sidecar.save_revision(note, actor, note.updated_time)

    def restore_revision(self, revision_id: int, *, actor: str) -> Note:
        """Put a note back to the title and body of one of its revisions (a new save by ``actor``)."""
        revision = self.sidecar.get_revision(revision_id)
        return self.update_note(
            revision.note_id, NotePatch(title=revision.title, body=revision.body), actor=actor
        )

    def trash_note(self, note_id: str, *, actor: str) -> None:
        note = self.get_note(note_id)
        if note.is_trashed:
            return
        self.send(note_id, actor, "DELETE", f"/notes/{safe_id(note_id)}", change=ChangeType.UPDATE)

    def restore_note(self, note_id: str, *, actor: str) -> Note:
        """Bring a note back from the trash into its notebook (restoring that notebook too)."""
        note = self.get_note(note_id)
        if not note.is_trashed:
            return note
        try:
            self.folder_item(note.parent_id)
        except NotFoundError:
            parent = self._restored_folder(actor)
        else:
            parent = note.parent_id
            self.restore_folder_chain(parent, actor)
        payload = {"deleted_time": 0, "parent_id": parent}
        self.send(note_id, actor, "PUT", f"/notes/{safe_id(note_id)}", payload, change=ChangeType.UPDATE)
        return self.get_note(note_id)

    def _restored_folder(self, actor: str) -> str:
        for folder in self.all_folders():
            if folder.title == RESTORED_FOLDER and not folder.parent_id and not folder.is_trashed:
                return folder.id
        folder_id = new_id()
        body = {"id": folder_id, "title": RESTORED_FOLDER, "parent_id": ""}
        self.send(folder_id, actor, "POST", "/folders", body, change=ChangeType.CREATE)
        return folder_id

    def restore_folder_chain(self, folder_id: str, actor: str) -> None:
        """Un-trash ``folder_id`` and its ancestors (only the notebooks, not their notes)."""
        seen: set[str] = set()
        while folder_id and folder_id not in seen:
            seen.add(folder_id)
            try:
                folder = self.folder_item(folder_id)
            except NotFoundError:
                return
            if folder.is_trashed:
                body = {"deleted_time": 0}
                self.send(folder.id, actor, "PUT", f"/folders/{folder.id}", body, change=ChangeType.UPDATE)
            folder_id = folder.parent_id

    def empty_trash(self, *, actor: str) -> int:
        """Erase every trashed note and notebook for good; returns how many notes went."""
        trashed = self.list_notes(trashed=True)
        for meta in trashed:
            path = f"/notes/{meta.id}"
            self.send(meta.id, actor, "DELETE", path, change=ChangeType.DELETE, params={"permanent": "1"})
        self.sidecar.forget_notes(m.id for m in trashed)
        folders = [f for f in self.all_folders() if f.is_trashed]
        trashed_ids = {f.id for f in folders}
        for folder in folders:
            if folder.parent_id in trashed_ids:
                continue  # erased with its parent
            self.send(folder.id, actor, "DELETE", f"/folders/{folder.id}", params={"permanent": "1"})
        self.sidecar.record(ItemType.FOLDER, [f.id for f in folders], ChangeType.DELETE, actor)
        return len(trashed)

    def _exists(self, path: str) -> bool:
        try:
            self.client.get(path, {"fields": "id"})
        except NotFoundError:
            return False
        return True

    # Change feed and history ---------------------------------------------------------------
    def changes_since(self, cursor: int, limit: int = 1000) -> ChangePage:
        return self.feed.changes_since(cursor, limit)

    def latest_cursor(self) -> int:
        return self.feed.latest_cursor()

    def item_changes(self, item_ids: Sequence[str], *, limit: int = 200) -> list[Change]:
        """The changes noted has seen to any of ``item_ids``, newest first, at most ``limit``.

        Every write noted made is here with its actor, each as it happened. Edits made in Joplin
        itself are known only through its ``/events``, which keep a note's newest change: two
        made there between two looks of noted's show as one.
        """
        self.feed.pull()
        return self.sidecar.item_changes(item_ids, limit)

    def recent_notes(self, since: int, limit: int = 500) -> dict[str, tuple[int, int]]:
        """Notes changed since ``since`` (ms), each with a version that moves when it may have changed.

        Keyword search reads these itself: Joplin's search index may not have them yet.
        """
        self.feed.pull()
        return self.sidecar.recent_notes(since, limit)

    def note_history(self, note_id: str) -> list[Revision]:
        """The revisions noted recorded for a note, newest first.

        The note's text as it is now joins them first when noted has not seen it: an edit made in
        Joplin, or one that came by sync (its writer's, when noted wrote it on the other machine).
        """
        item = self.note_item(note_id, NOTE_FIELDS + ",user_data")
        self._keep_outside_state(note_of(item), str(item.get("user_data") or ""))
        return self.sidecar.note_history(note_id)

    def get_revision(self, revision_id: int) -> Revision:
        return self.sidecar.get_revision(revision_id)

    def prune_history(self, *, now: int | None = None) -> HistoryPruned:
        return self.sidecar.prune_history(now or now_ms())

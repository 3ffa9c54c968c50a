"""What the parts of the Joplin store share: field lists, conversions, and ``JoplinApi`` (sending one
write, reading one item)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from noted.errors import ConflictError, EncryptedError, InvalidInputError, NotFoundError
from noted.models import ChangeType, Folder, ItemState, ItemType, Note, NoteMeta, Place, Resource, Tag
from noted.store.joplin.client import JoplinClient, JoplinUnreachableError
from noted.store.joplin.events import EventFeed
from noted.store.joplin.note_writes import NoteWrites
from noted.store.joplin.places import keep_outside_place, place_after
from noted.store.joplin.sidecar import Sidecar

NOTE_FIELDS = (
    "id,parent_id,title,body,created_time,updated_time,user_created_time,user_updated_time,"
    "is_todo,todo_due,todo_completed,source_url,deleted_time,is_conflict,encryption_applied"
)
META_FIELDS = NOTE_FIELDS.replace("body,", "")
FOLDER_FIELDS = "id,title,parent_id,created_time,updated_time,deleted_time"
TAG_FIELDS = "id,title,created_time,updated_time"
RESOURCE_FIELDS = "id,title,filename,mime,size,file_extension,created_time,updated_time"


def _int(item: Mapping[str, Any], key: str) -> int:
    value = item.get(key)
    return int(value) if value not in (None, "") else 0


def _str(item: Mapping[str, Any], key: str) -> str:
    value = item.get(key)
    return "" if value is None else str(value)


def note_of(item: Mapping[str, Any]) -> Note:
    """A ``Note`` from a Joplin note (asked for with ``NOTE_FIELDS``)."""
    return Note(
        id=_str(item, "id"),
        parent_id=_str(item, "parent_id"),
        title=_str(item, "title"),
        body=_str(item, "body"),
        created_time=_int(item, "created_time"),
        updated_time=_int(item, "updated_time"),
        user_created_time=_int(item, "user_created_time"),
        user_updated_time=_int(item, "user_updated_time"),
        is_todo=bool(_int(item, "is_todo")),
        todo_due=_int(item, "todo_due"),
        todo_completed=_int(item, "todo_completed"),
        source_url=_str(item, "source_url"),
        deleted_time=_int(item, "deleted_time"),
        is_conflict=bool(_int(item, "is_conflict")),
    )


def meta_of(item: Mapping[str, Any]) -> NoteMeta:
    """A ``NoteMeta`` from a Joplin note; ``body_length`` is known only when the body was asked for."""
    return note_meta(note_of(item), encrypted=bool(_int(item, "encryption_applied")))


def note_meta(note: Note, *, encrypted: bool = False) -> NoteMeta:
    """A ``NoteMeta`` of a note read whole."""
    own = ("body_length", "encrypted")
    shared = {f.name: getattr(note, f.name) for f in dataclasses.fields(NoteMeta) if f.name not in own}
    return NoteMeta(**shared, body_length=len(note.body), encrypted=encrypted)


def folder_of(item: Mapping[str, Any]) -> Folder:
    return Folder(
        _str(item, "id"),
        _str(item, "title"),
        _str(item, "parent_id"),
        _int(item, "created_time"),
        _int(item, "updated_time"),
        _int(item, "deleted_time"),
    )


def tag_of(item: Mapping[str, Any], note_count: int = 0) -> Tag:
    return Tag(
        _str(item, "id"),
        _str(item, "title"),
        _int(item, "created_time"),
        _int(item, "updated_time"),
        note_count,
    )


def resource_of(item: Mapping[str, Any]) -> Resource:
    return Resource(
        id=_str(item, "id"),
        title=_str(item, "title"),
        filename=_str(item, "filename"),
        mime=_str(item, "mime") or "application/octet-stream",
        size=_int(item, "size"),
        file_extension=_str(item, "file_extension"),
        created_time=_int(item, "created_time"),
        updated_time=_int(item, "updated_time"),
    )


class JoplinApi:
    """What every part of the Joplin store works through: the Data API's client, the sidecar that
    records each write with its actor, and Joplin's event feed; and the reads they all need."""

    def __init__(self, client: JoplinClient, sidecar: Sidecar, feed: EventFeed) -> None:
        self.client = client
        self.sidecar = sidecar
        self.feed = feed
        self.note_writes = NoteWrites(sidecar.db.path.parent)
        """Held while a note is read and written back (``noted.store.joplin.note_writes``)."""

    def trash(self, fields: str) -> list[Any]:
        """The notes in the trash, with ``fields`` (``deleted_time`` among them). Joplin lists no
        trash of its own: see ``flagged``."""
        return self.flagged("deleted_time", fields, {"include_deleted": "1"})

    def flagged(self, flag: str, fields: str, params: dict[str, str]) -> list[Any]:
        """The notes of ``/notes`` (with ``params``) whose ``flag`` field is set, with ``fields``
        (``flag`` among them): read by ``flag``, highest first, up to the first page holding a note
        without it (one page for none, not every note of the store)."""
        params = params | {"fields": fields, "order_by": flag, "order_dir": "DESC"}
        out: list[Any] = []
        for page in self.client.pages("/notes", params):
            found = [item for item in page if item.get(flag)]
            out += found
            if len(found) < len(page):
                break
        return out

    def trashed_with_tag(self, items: list[Any], tag_id: str) -> list[Any]:
        """The trashed notes of ``items`` that carry the tag: Joplin's ``/tags/ID/notes`` leaves
        trashed notes out, so each one's tags are asked for (the trash is seldom large)."""
        out = []
        for item in items:
            if not item.get("deleted_time"):
                continue
            try:
                tags = self.client.get_all(f"/notes/{safe_id(str(item['id']))}/tags", {"fields": "id"})
            except NotFoundError:  # erased meanwhile
                continue
            if any(str(t["id"]) == tag_id for t in tags):
                out.append(item)
        return out

    def send(
        self,
        item_id: str,
        actor: str,
        method: str,
        path: str,
        body: Mapping[str, Any] | None = None,
        *,
        change: ChangeType | None = None,
        notes_too: Sequence[str] = (),
        state: ItemState | None = None,
        read: Mapping[str, Any] | None = None,
        check: Callable[[], None] | None = None,
        known: tuple[Place, Place] | None = None,
        **kwargs: Any,
    ) -> Any:
        """Send one write of ``item_id`` by ``actor``, recording it so its change gets the actor.

        The record is written before the request, so a follower that sees Joplin's change finds
        it; it is dropped only when the request was certainly not sent.

        Args:
            change: the change to append to the feed when Joplin answers (None: the caller
                appends its own rows). Joplin's later report of it is then not added again.
            notes_too: notes the write changes besides ``item_id`` (those of a notebook it moves
                to the trash); each gets a note ``update`` by ``actor``.
            state: a notebook's, tag's or attachment's state after the write, kept with its feed
                row for the review (``noted.models.ItemState``). A note's place after the write
                (``noted.models.Place``) is kept with its row by itself, so that the review charges
                the actor with what this write did, not with what was changed in Joplin since
                (Joplin reports its own changes a little after it answers, and a tag's never);
                a change of its place made outside noted before it gets a row first
                (``noted.store.joplin.places``).
            read: the note as the caller read it just before (its notebook and trash time are
                not asked for again).
            check: run last before the request (``ConflictError``: nothing is sent), so that what
                it checks can change only in the request's round trip.
            known: the note's place before and after the write, when noted knows both without
                asking (a tag linked to a note this process has just made): neither is read.
        """
        kind = _kind(path)
        placed = change is not None and kind in (ItemType.NOTE, ItemType.NOTE_TAG)
        before = None
        creates = kind is ItemType.NOTE and change in (ChangeType.CREATE, ChangeType.DELETE)
        if placed and known is None and not creates:
            before = keep_outside_place(self.feed, self.client, item_id, read)
        writes = [self.sidecar.begin_write(item_id, actor, kind)]
        writes += [self.sidecar.begin_write(note_id, actor, ItemType.NOTE) for note_id in notes_too]
        try:
            if check is not None:
                check()
            answer = self.client.write(method, path, body, **kwargs)
        except (JoplinUnreachableError, ConflictError):
            for write_id in writes:
                self.sidecar.drop_write(write_id)
            raise
        joplin_time = answer.get("updated_time") if isinstance(answer, dict) else None
        kept: ItemState | Place | None = state
        if placed and change is not None:
            kept = known[1] if known else place_after(self.client, item_id, kind, change, body, before)
        self.sidecar.end_write(
            writes[0], joplin_time=int(joplin_time) if joplin_time else None, change=change, state=kept
        )
        for write_id in writes[1:]:
            self.sidecar.end_write(write_id, change=ChangeType.UPDATE)
        return answer

    def note_item(self, note_id: str, fields: str = NOTE_FIELDS) -> dict[str, Any]:
        """One note as Joplin has it; ``EncryptedError`` for one Joplin has not decrypted yet (its
        title and body are empty, and Joplin refuses to change it)."""
        item = self._item(f"/notes/{safe_id(note_id)}", fields, f'no note with id "{note_id}"')
        if _int(item, "encryption_applied"):
            raise EncryptedError(
                f"note {note_id[:8]} is encrypted and Joplin has not decrypted it yet",
                hint="enter the master password in Joplin's encryption options, let it decrypt, then try again",
                parent_id=str(item.get("parent_id") or ""),
            )
        return item

    def folder_item(self, folder_id: str) -> Folder:
        return folder_of(
            self._item(f"/folders/{safe_id(folder_id)}", FOLDER_FIELDS, f'no notebook with id "{folder_id}"')
        )

    def _item(self, path: str, fields: str, missing: str) -> dict[str, Any]:
        try:
            item = self.client.get(path, {"fields": fields})
        except NotFoundError:
            raise NotFoundError(missing) from None
        if not isinstance(item, dict) or not item.get("id"):
            raise NotFoundError(missing)
        return item

    def live_folder(self, folder_id: str) -> Folder:
        folder = self.folder_item(folder_id)
        if folder.is_trashed:
            raise InvalidInputError(f'notebook "{folder.title}" is in the trash; restore it first')
        return folder

    def all_folders(self) -> list[Folder]:
        """Every notebook, the trashed ones included (``/folders`` leaves those out)."""
        items = self.client.get_all("/search", {"type": "folder", "query": "*", "fields": FOLDER_FIELDS})
        return [folder_of(i) for i in items]

    def exists(self, path: str) -> bool:
        try:
            self.client.get(path, {"fields": "id"})
        except NotFoundError:
            return False
        return True


def _kind(path: str) -> ItemType:
    """What a write to ``path`` changes (``/tags/ID/notes…`` links a note)."""
    parts = path.strip("/").split("/")
    if parts[0] == "tags" and len(parts) > 2:
        return ItemType.NOTE_TAG
    return {"notes": ItemType.NOTE, "folders": ItemType.FOLDER, "tags": ItemType.TAG}.get(
        parts[0], ItemType.RESOURCE
    )


def safe_id(item_id: str) -> str:
    """An id fit for a URL path: Joplin ids are 32 hex digits, and nothing else may reach the URL."""
    if not item_id or not item_id.isalnum() or len(item_id) > 64:
        raise NotFoundError(f'"{item_id}" is not an id')
    return item_id

"""The frozen values that cross every boundary: the store returns these, never rows or dicts.

Times are integers in milliseconds since the Unix epoch, as in Joplin, so that an id and a time
from either backend mean the same thing.
"""

from __future__ import annotations

import enum
import re
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field


def new_id() -> str:
    """A new item id: 32 lowercase hex digits, the shape Joplin uses."""
    return uuid.uuid4().hex


FULL_ID = re.compile(r"[0-9a-f]{32}")
"""A whole item id as :func:`new_id` makes it; the one pattern for it (``fullmatch``, ``finditer``)."""


def is_full_id(text: str) -> bool:
    """Whether ``text`` is a whole item id: 32 lowercase hex digits (lower a typed one first)."""
    return FULL_ID.fullmatch(text) is not None


def now_ms() -> int:
    """The current time in milliseconds since the epoch."""
    return time.time_ns() // 1_000_000


class ItemType(enum.StrEnum):
    """The kinds of item the change feed reports."""

    NOTE = "note"
    FOLDER = "folder"
    TAG = "tag"
    NOTE_TAG = "note_tag"
    RESOURCE = "resource"


class ChangeType(enum.StrEnum):
    """What happened to an item. Moving to the trash or back is an update."""

    CREATE = "create"
    UPDATE = "update"
    DELETE = "delete"


class ToolStatus(enum.StrEnum):
    """How a call of an assistant tool ended (``tools.ToolResult``).

    The value is the ``status`` that models, MCP clients and saved transcripts are shown.
    """

    OK = "ok"
    ERROR = "error"
    """A ToolError or a store error: the model can recover."""
    REFUSED = "refused"
    """Switched off, not available here, or declined by the person."""
    CONFLICT = "conflict"
    """An editor edit that was not saved because the note changed (see ``editor.CommitResult``)."""
    INTERNAL = "internal"
    """A bug, logged."""


@dataclass(frozen=True, slots=True)
class Folder:
    """A notebook. ``parent_id`` is ``""`` for a top-level notebook."""

    id: str
    title: str
    parent_id: str
    created_time: int
    updated_time: int
    deleted_time: int = 0

    @property
    def is_trashed(self) -> bool:
        return self.deleted_time > 0


def descendants(folders: Iterable[Folder], folder_id: str) -> list[str]:
    """``folder_id`` and every notebook below it, at any depth, parents first (each once, even in a cycle)."""
    children: dict[str, list[str]] = {}
    for folder in folders:
        children.setdefault(folder.parent_id, []).append(folder.id)
    out: dict[str, None] = {}  # an ordered set: a deep tree is not searched as a list
    todo = [folder_id]
    while todo:
        current = todo.pop()
        if current not in out:
            out[current] = None
            todo.extend(children.get(current, []))
    return list(out)


@dataclass(frozen=True, slots=True)
class Note:
    """A note with its Markdown body."""

    id: str
    parent_id: str
    title: str
    body: str
    created_time: int
    updated_time: int
    user_created_time: int
    user_updated_time: int
    is_todo: bool = False
    todo_due: int = 0
    todo_completed: int = 0
    source_url: str = ""
    deleted_time: int = 0
    is_conflict: bool = False

    @property
    def is_trashed(self) -> bool:
        return self.deleted_time > 0


@dataclass(frozen=True, slots=True)
class NoteMeta:
    """A note without its body, for listings."""

    id: str
    parent_id: str
    title: str
    created_time: int
    updated_time: int
    user_created_time: int
    user_updated_time: int
    is_todo: bool = False
    todo_due: int = 0
    todo_completed: int = 0
    source_url: str = ""
    deleted_time: int = 0
    is_conflict: bool = False
    body_length: int = 0
    encrypted: bool = False
    """Joplin holds it encrypted and has not decrypted it yet: its title and body are unknown
    (only a Joplin note can be; reading it raises ``noted.errors.EncryptedError``)."""

    @property
    def is_trashed(self) -> bool:
        return self.deleted_time > 0

    @property
    def listed_title(self) -> str:
        """The title a listing shows: its own, or for a note not decrypted yet, words saying so."""
        return "(encrypted: Joplin has not decrypted it yet)" if self.encrypted else self.title


@dataclass(frozen=True, slots=True)
class Tag:
    """A tag; ``note_count`` counts the notes (not in the trash) that carry it."""

    id: str
    title: str
    created_time: int
    updated_time: int
    note_count: int = 0


@dataclass(frozen=True, slots=True)
class Resource:
    """An attachment: a file kept under the profile's ``resources/`` folder."""

    id: str
    title: str
    filename: str
    mime: str
    size: int
    file_extension: str
    created_time: int
    updated_time: int


@dataclass(frozen=True, slots=True)
class ResourceVersion:
    """An attachment as it was before a replace or a delete, with its bytes (``Store.resource_versions``)."""

    id: int
    """The version's number, unique in the profile (``noted history ID --restore N``)."""
    resource: Resource
    """The attachment as it was: title, file name, type, size and times."""
    time: int
    actor: str
    """When and by whom it was replaced or deleted."""
    deleted: bool = False
    """It was deleted (False: replaced)."""
    stayed: str = ""
    """Deleted from noted while its file stayed in the Markdown folder, at this path (``KeptFile``:
    noted deletes only the files it wrote); "" when the file went too, or it was replaced."""


@dataclass(frozen=True, slots=True)
class Place:
    """What the feed's columns do not say about a note: where it is, whether trashed, its tags (A→Z)."""

    parent_id: str
    deleted_time: int
    tags: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ItemState:
    """What the feed keeps of a notebook or a tag at a change (a tag has no parent nor trash)."""

    title: str
    parent_id: str = ""
    deleted_time: int = 0
    notes: tuple[str, ...] = ()
    """A deleted tag: the notes that carried it, so that a revert can put it back on them."""
    was: ItemState | None = None
    """The state just before the change, where the writer knew it (an update)."""
    label: str = ""
    """An attachment's title (its ``title`` here is its file name), where a replace recorded it."""
    digest: str = ""
    """An attachment's bytes, hashed, where a replace recorded them ("": not known)."""
    version: int = 0
    """The attachment version a replace or a delete kept (``ResourceVersion.id``; 0: none or not known)."""


@dataclass(frozen=True, slots=True)
class Change:
    """One row of the change feed."""

    id: int
    item_type: ItemType
    item_id: str
    change_type: ChangeType
    time: int
    actor: str
    place: Place | None = None
    """A note's place just after this change (a row about a note, ``note`` or ``note_tag``), so the
    review can tell whose move, trashing or tags it was; None where the backend cannot say (Joplin's
    feed, rows written before noted kept it, a note deleted for good)."""
    item: ItemState | None = None
    """A notebook's or tag's state just after this change (for a deletion: just before it), kept
    in the same column as a note's place; None where the backend cannot say (Joplin's feed)."""
    revision: int | None = None
    """The revision a change to a note saved (0: none; None: not known, as in Joplin's feed)."""
    renamed: tuple[str, str] | None = None
    """A note's file in a Markdown folder renamed or moved by this change: (from, to), paths in
    the folder; None otherwise."""


@dataclass(frozen=True, slots=True)
class ChangePage:
    """Changes after a cursor, and the cursor to ask from next time."""

    changes: tuple[Change, ...]
    cursor: int
    has_more: bool


@dataclass(frozen=True, slots=True)
class Revision:
    """A state of a note as left by one actor (a burst of edits by one actor is one revision)."""

    id: int
    note_id: str
    time: int
    actor: str
    title: str
    body: str
    edits: int = 1
    """How many saves were collapsed into this revision."""
    label: str = ""
    """What the save was, when the actor alone does not tell (``noted.store.revisions.labelled``):
    "yours, set aside", "theirs by sync, taken", "conflict copy", "restored from rev 12"…"""


@dataclass(frozen=True, slots=True)
class HistoryPruned:
    """What ``Store.prune_history`` did: notes seen, revisions thinned, database bytes before and after."""

    notes: int
    removed: int
    size_before: int
    size_after: int
    versions: int = 0
    """The old attachment versions thinned, their files removed."""


@dataclass(frozen=True, slots=True)
class NotePatch:
    """The fields an update changes; ``None`` leaves a field as it is.

    ``append`` and ``prepend`` are applied inside the write transaction, so two processes that
    append at once both keep their text.
    """

    title: str | None = None
    body: str | None = None
    append: str | None = None
    prepend: str | None = None
    parent_id: str | None = None
    is_todo: bool | None = None
    todo_due: int | None = None
    todo_completed: int | None = None
    source_url: str | None = None
    user_created_time: int | None = None
    user_updated_time: int | None = None
    keep_file_name: bool = False
    """Where a note's title may be its file's name (a Markdown folder), a new title leaves the name
    as it is (the title goes in the front matter), as it does there when a note links this one by
    name. Set for a caller limited to some notebooks: whether links from notes it cannot see
    would break must not decide what it sees."""

    def body_after(self, body: str) -> str:
        """What this patch makes of ``body``: its own ``body`` when it has one, with ``prepend`` and
        ``append`` each joined on a line of its own (as every backend saves it)."""
        body = body if self.body is None else self.body
        if self.prepend is not None:
            body = self.prepend + ("\n" if body and not self.prepend.endswith("\n") else "") + body
        if self.append is not None:
            body = body + ("\n" if body and not body.endswith("\n") else "") + self.append
        return body


@dataclass(frozen=True, slots=True)
class NoteDraft:
    """What a new note is made from."""

    title: str
    body: str = ""
    parent_id: str = ""
    is_todo: bool = False
    todo_due: int = 0
    todo_completed: int = 0
    source_url: str = ""
    id: str | None = None
    user_created_time: int | None = None
    user_updated_time: int | None = None
    tags: tuple[str, ...] = field(default_factory=tuple)
    """Tag titles; missing tags are created."""


# Actors: who made a change. Free-form strings with these prefixes.
ACTOR_USER = "user"
ACTOR_IMPORT = "import"
ACTOR_SYNC = "sync"
"""A change that came by sync from another device (Joplin's sync, as its ``/events`` say)."""
SYNCED_LABEL = "came by sync"
"""The label of a revision that came by sync when its writer's stamp names its actor (noted wrote
it on another machine): its actor is that writer, and the review's ``sync`` entry is paired with it."""
ACTOR_JOPLIN = "joplin"
"""An edit made in Joplin on this machine: the person's own, in their other notes app. (Joplin
records no author: a Joplin plugin or another program using its Data API looks the same.)"""
ACTOR_OUTSIDE = "outside"
"""A change to a Markdown folder's files made outside noted (an editor, ``git pull``, a sync tool),
seen by the folder's watcher or its start-up scan. Only the Markdown-folder backend records it."""


def assistant_actor(conversation_id: str) -> str:
    """The actor of an edit made by the in-app assistant in one conversation."""
    return f"assistant:{conversation_id}"


def mcp_actor(client: str) -> str:
    """The actor of an edit made by an outside AI app over MCP."""
    return f"mcp:{client}"

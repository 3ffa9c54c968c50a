"""The change feed: ``record`` appends the row of one change inside the writer's transaction; the
readers serve the embedded store's ``changes`` and the Joplin sidecar's mirror, which have the
same columns. A row about a note in ``changes`` keeps the note's place just after it (its
notebook, trash and tags, as a JSON array: ``Change.place``), which Joplin's feed cannot know.

The same column keeps a notebook's, a tag's or an attachment's state (``Change.item``, a JSON
object), in both feeds (noted makes those changes itself on Joplin too): its title (an
attachment's file name), parent and trash just after the change, and just before it (``was``) for
an update; a deletion keeps the state it was deleted in and, for a tag, the notes that carried it.
The review reads these to word and undo what a model did to them (``noted.ops.review_items``)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Collection, Sequence
from typing import Any

import apsw

from noted.models import Change, ChangePage, ChangeType, ItemState, ItemType, Place, now_ms

_COLUMNS = "id, item_type, item_id, change_type, time, actor"
_NOTE_ITEMS = (ItemType.NOTE, ItemType.NOTE_TAG)
_STATE_ITEMS = (ItemType.FOLDER, ItemType.TAG, ItemType.RESOURCE)
_PLACE = (
    "SELECT json_array(n.parent_id, n.deleted_time, json((SELECT json_group_array(t.title) FROM "
    "(SELECT t.title FROM note_tags nt JOIN tags t ON t.id = nt.tag_id WHERE nt.note_id = n.id "
    "ORDER BY t.title COLLATE NOCASE) AS t)), ?) FROM notes n WHERE n.id = ?"
)
"""A note's place as ``[parent_id, deleted_time, [tag, …], revision]`` (``Change.revision``; rows
written before it have three items), and a file renamed (``note_renamed``: ``Change.renamed``);
NULL once it is deleted for good."""


def _columns(table: str) -> str:
    return _COLUMNS + ", place"


def _change(row: tuple[int, str, str, str, int, str, str | None]) -> Change:
    id_, kind, item, change, time, actor, place = row
    kept = None if place is None else json.loads(place)
    if isinstance(kept, dict):
        return Change(id_, ItemType(kind), item, ChangeType(change), time, actor, None, _state(kept))
    revision = int(kept[3]) if kept is not None and len(kept) > 3 else None
    renamed = (str(kept[4]), str(kept[5])) if kept is not None and len(kept) > 5 else None
    return Change(
        id_,
        ItemType(kind),
        item,
        ChangeType(change),
        time,
        actor,
        _place(kept),
        revision=revision,
        renamed=renamed,
    )


def _place(kept: Any) -> Place | None:
    if kept is None:
        return None
    parent, deleted, tags = kept[:3]
    return Place(str(parent), int(deleted), tuple(str(t) for t in tags))


def _state(kept: dict[str, Any]) -> ItemState:
    was = kept.get("was")
    return ItemState(
        str(kept.get("title", "")),
        str(kept.get("parent", "")),
        int(kept.get("deleted", 0)),
        tuple(str(n) for n in kept.get("notes", ())),
        _state(was) if isinstance(was, dict) else None,
        str(kept.get("label", "")),
        str(kept.get("digest", "")),
        int(kept.get("version", 0)),
    )


def _state_json(state: ItemState) -> dict[str, Any]:
    out: dict[str, Any] = {"title": state.title, "parent": state.parent_id, "deleted": state.deleted_time}
    if state.notes:
        out["notes"] = list(state.notes)
    if state.was is not None:
        out["was"] = _state_json(state.was)
    if state.label:
        out["label"] = state.label
    if state.digest:
        out["digest"] = state.digest
    if state.version:
        out["version"] = state.version
    return out


def file_state(filename: str, title: str, data: bytes | None, version: int | None = None) -> ItemState:
    """What the feed keeps of an attachment at a replace: its file name, its title and its bytes
    hashed (None: not known), so the review tells a new file from a new name or title alone, and
    the version the replace kept (``ItemState.version``)."""
    digest = hashlib.sha256(data).hexdigest()[:32] if data is not None else ""
    return ItemState(filename, label=title, digest=digest, version=version or 0)


def state_json(state: ItemState) -> str:
    """How the ``place`` column keeps a notebook's, tag's or attachment's state."""
    return json.dumps(_state_json(state), ensure_ascii=False)


def place_from(text: str) -> Place | None:
    """A note's place from the ``place`` column (None for a notebook's, tag's or attachment's state)."""
    kept = json.loads(text)
    return None if isinstance(kept, dict) else _place(kept)


def place_json(place: Place) -> str:
    """How the ``place`` column keeps a note's place (the form ``_PLACE`` writes)."""
    return json.dumps([place.parent_id, place.deleted_time, list(place.tags)], ensure_ascii=False)


def kept_json(kept: ItemState | Place) -> str:
    """The ``place`` column's text for a note's place or a notebook's, tag's or attachment's state."""
    return place_json(kept) if isinstance(kept, Place) else state_json(kept)


def item_state(conn: apsw.Connection, item_type: ItemType, item_id: str) -> ItemState | None:
    """A notebook's or a tag's state as it is now in this transaction (None when there is none)."""
    if item_type is ItemType.FOLDER:
        row = conn.execute(
            "SELECT title, parent_id, deleted_time FROM folders WHERE id = ?", (item_id,)
        ).fetchone()
        return ItemState(row[0], row[1], row[2]) if row else None
    if item_type is ItemType.TAG:
        row = conn.execute("SELECT title FROM tags WHERE id = ?", (item_id,)).fetchone()
        return ItemState(row[0]) if row else None
    if item_type is ItemType.RESOURCE:  # an attachment: its file name
        row = conn.execute("SELECT filename FROM resources WHERE id = ?", (item_id,)).fetchone()
        return ItemState(row[0]) if row else None
    return None


def changes_after(conn: apsw.Connection, table: str, cursor: int, limit: int) -> ChangePage:
    """Rows of ``table`` after ``cursor``, oldest first, at most ``limit`` of them."""
    limit = max(1, limit)
    rows = conn.execute(
        f"SELECT {_columns(table)} FROM {table} WHERE id > ? ORDER BY id LIMIT ?", (cursor, limit + 1)
    ).fetchall()
    changes = tuple(_change(r) for r in rows[:limit])
    return ChangePage(changes, changes[-1].id if changes else cursor, len(rows) > limit)


def first_not_by(conn: apsw.Connection, table: str, cursor: int, actors: Collection[str]) -> int | None:
    """The id of the first row of ``table`` after ``cursor`` whose actor is none of ``actors``."""
    marks = ", ".join("?" * len(actors))
    row = conn.execute(
        f"SELECT id FROM {table} WHERE id > ? AND actor NOT IN ({marks}) ORDER BY id LIMIT 1",
        (cursor, *actors),
    ).fetchone()
    return None if row is None else int(row[0])


def notes_changed_after(conn: apsw.Connection, table: str, cursor: int, limit: int) -> tuple[set[str], bool]:
    """The notes the rows of ``table`` after ``cursor`` changed (the first ``limit`` rows), and
    whether more rows follow: their ids alone, none of the rows parsed."""
    rows = conn.execute(
        f"SELECT item_type, item_id FROM {table} WHERE id > ? ORDER BY id LIMIT ?",
        (cursor, max(1, limit) + 1),
    ).fetchall()
    note = ItemType.NOTE.value
    return {str(item) for kind, item in rows[:limit] if kind == note}, len(rows) > limit


def changes_of(conn: apsw.Connection, table: str, item_ids: Sequence[str], limit: int) -> list[Change]:
    """Rows of ``table`` about any of ``item_ids``, newest first, at most ``limit``."""
    ids = list(dict.fromkeys(item_ids))
    if not ids or limit < 1:
        return []
    marks = ",".join("?" * len(ids))
    rows = conn.execute(
        f"SELECT {_columns(table)} FROM {table} WHERE item_id IN ({marks}) ORDER BY id DESC LIMIT ?",
        [*ids, limit],
    ).fetchall()
    return [_change(r) for r in rows]


def record(
    conn: apsw.Connection,
    item_type: ItemType,
    item_id: str,
    change_type: ChangeType,
    actor: str,
    time: int | None = None,
    *,
    was: ItemState | None = None,
    state: ItemState | None = None,
    revision: int = 0,
) -> None:
    """Append one row to the change feed, inside the caller's transaction (after the write, so a
    row about a note keeps the place the write left it in, and one about a notebook or a tag its
    state). ``was`` is a notebook's or tag's state before an update (``item_state`` read before
    the write); ``state`` is given for a deletion, which leaves nothing to read; ``revision`` the
    revision a change to a note saved (0: none)."""
    if not actor:
        raise ValueError("every write needs an actor")
    values: list[object] = [item_type.value, item_id, change_type.value, time or now_ms(), actor]
    place = "NULL"
    if item_type in _NOTE_ITEMS:
        place = f"({_PLACE})"
        values += [revision, item_id]
    elif item_type in _STATE_ITEMS:
        after = state or item_state(conn, item_type, item_id)
        if after is not None:
            if was is not None:
                after = dataclasses.replace(after, was=was)
            place = "?"
            values.append(state_json(after))
    conn.execute(
        f"INSERT INTO changes(item_type, item_id, change_type, time, actor, place) VALUES (?, ?, ?, ?, ?, {place})",
        values,
    )


def note_renamed(conn: apsw.Connection, note_id: str, old: str, new: str) -> None:
    """Add to the feed's last row about the note, just written in the caller's transaction, that
    its file was renamed from ``old`` to ``new`` (``Change.renamed``): a Markdown folder's."""
    conn.execute(
        "UPDATE changes SET place = json_insert(place, '$[#]', ?, '$[#]', ?) WHERE id = (SELECT max(id)"
        " FROM changes WHERE item_id = ? AND item_type = ?) AND json_array_length(place) = 4",
        (old, new, note_id, ItemType.NOTE.value),
    )

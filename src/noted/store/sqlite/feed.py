"""The change feed: ``record`` appends the row of one change inside the writer's transaction; the
readers serve the embedded store's ``changes`` and the Joplin sidecar's mirror, which have the
same columns but one: a row about a note in ``changes`` keeps the note's place just after it (its
notebook, trash and tags, as JSON: ``Change.place``), which Joplin's feed cannot know."""

from __future__ import annotations

import json
from collections.abc import Sequence

import apsw

from noted.models import Change, ChangePage, ChangeType, ItemType, Place, now_ms

_COLUMNS = "id, item_type, item_id, change_type, time, actor"
PLACED = "changes"
"""The one feed table with a ``place`` column."""
_NOTE_ITEMS = (ItemType.NOTE, ItemType.NOTE_TAG)
_PLACE = (
    "SELECT json_array(n.parent_id, n.deleted_time, json((SELECT json_group_array(t.title) FROM "
    "(SELECT t.title FROM note_tags nt JOIN tags t ON t.id = nt.tag_id WHERE nt.note_id = n.id "
    "ORDER BY t.title COLLATE NOCASE) AS t))) FROM notes n WHERE n.id = ?"
)
"""A note's place as ``[parent_id, deleted_time, [tag, …]]``; NULL once it is deleted for good."""


def _columns(table: str) -> str:
    return _COLUMNS + (", place" if table == PLACED else ", NULL")


def _change(row: tuple[int, str, str, str, int, str, str | None]) -> Change:
    id_, kind, item, change, time, actor, place = row
    return Change(id_, ItemType(kind), item, ChangeType(change), time, actor, _place(place))


def _place(text: str | None) -> Place | None:
    if text is None:
        return None
    parent, deleted, tags = json.loads(text)
    return Place(str(parent), int(deleted), tuple(str(t) for t in tags))


def changes_after(conn: apsw.Connection, table: str, cursor: int, limit: int) -> ChangePage:
    """Rows of ``table`` after ``cursor``, oldest first, at most ``limit`` of them."""
    limit = max(1, limit)
    rows = conn.execute(
        f"SELECT {_columns(table)} FROM {table} WHERE id > ? ORDER BY id LIMIT ?", (cursor, limit + 1)
    ).fetchall()
    changes = tuple(_change(r) for r in rows[:limit])
    return ChangePage(changes, changes[-1].id if changes else cursor, len(rows) > limit)


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
) -> None:
    """Append one row to the change feed, inside the caller's transaction (after the write, so a
    row about a note keeps the place the write left it in)."""
    if not actor:
        raise ValueError("every write needs an actor")
    values: list[object] = [item_type.value, item_id, change_type.value, time or now_ms(), actor]
    place = "NULL"
    if item_type in _NOTE_ITEMS:
        place = f"({_PLACE})"
        values.append(item_id)
    conn.execute(
        f"INSERT INTO changes(item_type, item_id, change_type, time, actor, place) VALUES (?, ?, ?, ?, ?, {place})",
        values,
    )

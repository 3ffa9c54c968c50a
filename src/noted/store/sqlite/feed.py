"""The change feed: ``record`` appends the row of one change inside the writer's transaction; the
readers serve the embedded store's ``changes`` and the Joplin sidecar's mirror, which have the
same columns."""

from __future__ import annotations

from collections.abc import Sequence

import apsw

from noted.models import Change, ChangePage, ChangeType, ItemType, now_ms

_COLUMNS = "id, item_type, item_id, change_type, time, actor"


def _change(row: tuple[int, str, str, str, int, str]) -> Change:
    id_, kind, item, change, time, actor = row
    return Change(id_, ItemType(kind), item, ChangeType(change), time, actor)


def changes_after(conn: apsw.Connection, table: str, cursor: int, limit: int) -> ChangePage:
    """Rows of ``table`` after ``cursor``, oldest first, at most ``limit`` of them."""
    limit = max(1, limit)
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM {table} WHERE id > ? ORDER BY id LIMIT ?", (cursor, limit + 1)
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
        f"SELECT {_COLUMNS} FROM {table} WHERE item_id IN ({marks}) ORDER BY id DESC LIMIT ?", [*ids, limit]
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
    """Append one row to the change feed, inside the caller's transaction."""
    if not actor:
        raise ValueError("every write needs an actor")
    conn.execute(
        "INSERT INTO changes(item_type, item_id, change_type, time, actor) VALUES (?, ?, ?, ?, ?)",
        (item_type.value, item_id, change_type.value, time or now_ms(), actor),
    )

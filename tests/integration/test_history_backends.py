"""History stays bounded on both backends: deltas on every save, thinning by the rule, VACUUM.

The embedded store keeps revisions in ``notes.db``; the Joplin backend keeps them in its sidecar
database. Both run the same ``RevisionTable``; these tests go through the ``Store`` protocol and
look at each backend's own table.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.backends import BACKENDS, open_backend

from noted.errors import NotFoundError
from noted.models import NoteDraft, NotePatch, now_ms
from noted.ops.erased import history_note
from noted.ops.notes import trash_note
from noted.ops.trash import empty_trash
from noted.store.history.thinning import DAY_MS, Row, Thinning, dropped
from noted.store.protocol import Store
from noted.store.sqlite.db import Database


@pytest.fixture(params=BACKENDS)
def backend_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    with open_backend(request.param, tmp_path / "store") as store:
        yield store


def _table(store: Store) -> tuple[Database, str]:
    db: Database = store.db  # type: ignore[attr-defined]  # both backends' local database
    with db.read() as conn:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}
    return db, "joplin_revisions" if "joplin_revisions" in names else "revisions"


def _stored_bytes(store: Store, note_id: str) -> int:
    db, table = _table(store)
    with db.read() as conn:
        return int(
            conn.execute(f"SELECT sum(length(body)) FROM {table} WHERE note_id = ?", (note_id,)).fetchone()[0]
        )


def test_appending_keeps_older_states_as_deltas(backend_store: Store) -> None:
    store = backend_store
    lines = "".join(f"{i:04d} a line the app logged, with some words {i * 7919 % 1000}\n" for i in range(400))
    folder = store.create_folder("Logs", actor="user")
    note = store.create_note(NoteDraft(title="Log", body=lines, parent_id=folder.id), actor="mcp:logger")
    bodies = [lines]
    for i in range(40):
        note = store.update_note(note.id, NotePatch(append=f"entry {i}\n"), actor="mcp:logger")
        bodies.append(note.body)
    history = store.note_history(note.id)
    assert [r.body for r in history if r.body in bodies][:1] == [bodies[-1]]
    assert {r.body for r in history} >= set(bodies)  # every state restores exactly
    # Not vacuous: before deltas, each of the 41 revisions was a whole compressed copy.
    db, table = _table(store)
    with db.read() as conn:
        largest = conn.execute(
            f"SELECT max(length(body)) FROM {table} WHERE note_id = ?", (note.id,)
        ).fetchone()[0]
    assert _stored_bytes(store, note.id) < 3 * largest


def test_prune_thins_by_the_rule_and_keeps_every_kept_state(backend_store: Store) -> None:
    store = backend_store
    folder = store.create_folder("Work", actor="user")
    note = store.create_note(NoteDraft(title="Plan", body="v0", parent_id=folder.id), actor="user")
    for i, actor in enumerate(["user"] * 4 + ["assistant:c1"] * 3 + ["user"] * 3):
        store.update_note(note.id, NotePatch(body=f"v{i + 1} by {actor}"), actor=actor)
    db, table = _table(store)
    with db.write() as conn:  # a month passes
        conn.execute(f"UPDATE {table} SET time = time - ?, first_time = first_time - ?", (30 * DAY_MS,) * 2)
    before = {r.id: r for r in store.note_history(note.id)}
    now = now_ms()
    rows = [Row(r.id, r.time, r.actor) for r in sorted(before.values(), key=lambda r: r.id)]
    expected = set(before) - dropped(rows, now, Thinning())

    pruned = store.prune_history(now=now)

    after = store.note_history(note.id)
    assert {r.id for r in after} == expected and pruned.removed == len(before) - len(expected) > 0
    assert all(r == before[r.id] for r in after)
    # The state the person left before the assistant wrote, and the assistant's, are kept.
    assert {r.body for r in after} >= {"v4 by user", "v7 by assistant:c1", "v10 by user"}


def test_kept_notes_names_each_note_by_its_newest_revision_and_noteds_empty_trash_keeps_none(
    backend_store: Store,
) -> None:
    """The erased-note lookups (``noted.ops.erased``) read every backend's revisions one way; a note
    noted itself erased for good (its trash emptied) has no history left to reach, on any backend."""
    store = backend_store
    folder = store.create_folder("Kept", actor="user")
    note = store.create_note(NoteDraft("Plan", "first\n", folder.id), actor="user")
    store.update_note(note.id, NotePatch(title="Plan B", body="second\n"), actor="user")
    assert store.kept_notes(note.id[:6]) == {note.id: "Plan B"}
    assert note.id not in store.kept_notes(note.id[:6] + ("0" if note.id[6] != "0" else "1"))
    trash_note(store, note.id, actor="user")
    empty_trash(store, actor="user")
    assert note.id not in store.kept_notes()
    with pytest.raises(NotFoundError):
        history_note(store, note.id[:8])

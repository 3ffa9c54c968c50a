"""Revisions say what a save was when the actor alone does not: the sides of a settled conflict,
a conflict copy, a restore and an undo are all the person's (``user``), on every backend.

Before labels, *Take theirs* left three ``user`` revisions a minute apart that nothing told apart;
each test reads the labels back through the ``Store`` protocol, so a backend that dropped them (the
Joplin sidecar, the Markdown folder's mirror) fails here.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import apsw
import pytest
from tests.support.backends import BACKENDS, LocalStore, open_backend

from noted.models import ACTOR_USER, NoteDraft, NotePatch, Place
from noted.ops import notes as ops
from noted.ops.batch_capture import capture, settled
from noted.ops.batch_undo import UNDONE, restore
from noted.ops.conflicts import Choice, Conflict, resolve
from noted.store.history.delta import pack_whole
from noted.store.joplin.sidecar_schema import SCHEMA_KEY, SCHEMA_VERSION, ensure_schema
from noted.store.revisions import COPY
from noted.store.sqlite.schema import MIGRATIONS
from noted.store.sqlite.store import SqliteStore


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LocalStore]:
    with open_backend(request.param, tmp_path / "store") as opened:
        yield opened


def _conflict(store: LocalStore) -> Conflict:
    """The person opened "base"; meanwhile the assistant saved "theirs"; the person wrote "mine"."""
    folder = store.create_folder("Work", actor=ACTOR_USER)
    base = store.create_note(NoteDraft(title="Plan", body="base\n", parent_id=folder.id), actor=ACTOR_USER)
    store.update_note(base.id, NotePatch(body="theirs\n"), actor="assistant:1")
    return Conflict.read(store, base, "Plan", "mine\n")


def test_take_theirs_labels_both_sides_and_names_whose_is_kept(store: LocalStore) -> None:
    conflict = _conflict(store)
    resolve(store, conflict, Choice.THEIRS, actor=ACTOR_USER)
    history = store.note_history(conflict.base.id)
    assert [(r.body, r.actor, r.label) for r in history[:3]] == [
        ("theirs\n", ACTOR_USER, "theirs by assistant:1, taken"),
        ("mine\n", ACTOR_USER, "yours, set aside"),
        ("theirs\n", "assistant:1", ""),
    ]
    assert history[3].label == ""  # a plain save has none


def test_overwrite_and_keep_both_label_the_persons_side(store: LocalStore) -> None:
    conflict = _conflict(store)
    resolved = resolve(store, conflict, Choice.KEEP_BOTH, actor=ACTOR_USER)
    assert resolved.copy is not None
    assert [(r.actor, r.label) for r in store.note_history(resolved.copy.id)] == [(ACTOR_USER, COPY)]
    conflict = Conflict.read(store, conflict.base, "Plan", "mine again\n")
    resolve(store, conflict, Choice.OVERWRITE, actor=ACTOR_USER)
    newest = store.note_history(conflict.base.id)[0]
    assert (newest.body, newest.actor, newest.label) == ("mine again\n", ACTOR_USER, "yours, taken")


def test_a_restore_and_an_undo_say_what_they_were(store: LocalStore) -> None:
    folder = store.create_folder("Work", actor=ACTOR_USER)
    note = store.create_note(NoteDraft(title="Plan", body="one\n", parent_id=folder.id), actor=ACTOR_USER)
    first = store.note_history(note.id)[0]
    store.update_note(note.id, NotePatch(body="two\n"), actor=ACTOR_USER)
    ops.restore_revision(store, note.id, first.id, actor=ACTOR_USER)
    newest = store.note_history(note.id)[0]
    assert (newest.body, newest.actor, newest.label) == ("one\n", ACTOR_USER, f"restored from rev {first.id}")

    before = capture(store, notes=[note.id])
    store.update_note(note.id, NotePatch(body="by the batch\n"), actor="assistant:2")
    restore(store, settled(store, before, "assistant:2"), actor=ACTOR_USER)
    newest = store.note_history(note.id)[0]
    assert (newest.body, newest.actor, newest.label) == ("one\n", ACTOR_USER, UNDONE)
    # The label lasts only for the saves made inside: the next save has none.
    store.update_note(note.id, NotePatch(body="three\n"), actor=ACTOR_USER)
    assert store.note_history(note.id)[0].label == ""


def test_a_database_of_schema_4_gets_the_label_column_and_keeps_its_revisions(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    conn = apsw.Connection(str(path))
    with conn:
        for migration in MIGRATIONS[:4]:
            migration.apply(conn)
        conn.execute("INSERT INTO folders(id, title, created_time, updated_time) VALUES ('f', 'Inbox', 1, 1)")
        conn.execute(
            "INSERT INTO notes(id, parent_id, title, body, created_time, updated_time, user_created_time, "
            "user_updated_time) VALUES ('n1', 'f', 'Old', 'old\n', 1, 1, 1, 1)"
        )
        conn.execute(
            "INSERT INTO revisions(note_id, time, first_time, actor, title, body) "
            "VALUES ('n1', 1, 1, 'user', 'Old', ?)",
            (pack_whole(b"old\n"),),
        )
        conn.execute("PRAGMA user_version=4")
    conn.close()
    store = SqliteStore.open(path, tmp_path / "resources")
    try:
        assert (
            store.db.connection().execute("PRAGMA user_version").fetchone()[0] == MIGRATIONS[-1].version >= 5
        )
        assert [(r.body, r.label) for r in store.note_history("n1")] == [("old\n", "")]
        store.update_note("n1", NotePatch(title="Old"), actor=ACTOR_USER)  # nothing changed: no revision
        conflict = Conflict.read(store, store.get_note("n1"), "Old", "new\n")
        resolve(store, conflict, Choice.OVERWRITE, actor=ACTOR_USER)
        assert [r.label for r in store.note_history("n1")] == ["yours, taken", ""]
    finally:
        store.close()


def test_a_joplin_sidecar_of_schema_3_gets_the_label_column(tmp_path: Path) -> None:
    conn = apsw.Connection(str(tmp_path / "sidecar.db"))
    with conn:
        conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        conn.execute(
            "CREATE TABLE joplin_revisions (id INTEGER PRIMARY KEY AUTOINCREMENT, note_id TEXT NOT NULL, "
            "time INTEGER NOT NULL, first_time INTEGER NOT NULL, actor TEXT NOT NULL, title TEXT NOT NULL, "
            "body BLOB NOT NULL, edits INTEGER NOT NULL DEFAULT 1, base INTEGER, depth INTEGER NOT NULL DEFAULT 0)"
        )
        conn.execute(
            "INSERT INTO joplin_revisions(note_id, time, first_time, actor, title, body) VALUES ('n', 1, 1, 'user', 'T', x'')"
        )
        conn.execute("INSERT INTO meta VALUES (?, '3')", (SCHEMA_KEY,))
    with conn:
        ensure_schema(conn)
    columns = {r[1] for r in conn.execute("PRAGMA table_info(joplin_revisions)")}
    assert "label" in columns
    assert conn.execute("SELECT label FROM joplin_revisions").fetchall() == [("",)]
    assert conn.execute("SELECT value FROM meta WHERE key = ?", (SCHEMA_KEY,)).fetchone() == (
        str(SCHEMA_VERSION),
    )
    conn.close()


def test_a_database_of_schema_5_gets_places_in_its_feed_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    conn = apsw.Connection(str(path))
    with conn:
        for migration in MIGRATIONS[:5]:
            migration.apply(conn)
        conn.execute("INSERT INTO folders(id, title, created_time, updated_time) VALUES ('f', 'Inbox', 1, 1)")
        conn.execute(
            "INSERT INTO notes(id, parent_id, title, body, created_time, updated_time, user_created_time, "
            "user_updated_time) VALUES ('n1', 'f', 'Old', 'old\n', 1, 1, 1, 1)"
        )
        conn.execute(
            "INSERT INTO changes(item_type, item_id, change_type, time, actor) VALUES ('note', 'n1', 'create', 1, 'user')"
        )
        conn.execute("PRAGMA user_version=5")
    conn.close()
    store = SqliteStore.open(path, tmp_path / "resources")
    try:
        store.tag_note("n1", ["kept"], actor=ACTOR_USER)
        old, new = store.changes_since(0).changes[0], store.changes_since(0).changes[-1]
        assert (old.item_id, old.place) == ("n1", None)  # written before: no place, as before
        assert (new.item_id, new.place) == ("n1", Place("f", 0, ("kept",)))
    finally:
        store.close()


def test_a_joplin_sidecar_of_schema_5_gets_states_in_its_feed_and_keeps_its_rows(tmp_path: Path) -> None:
    conn = apsw.Connection(str(tmp_path / "sidecar.db"))
    with conn:
        conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        conn.execute(
            "CREATE TABLE joplin_feed (id INTEGER PRIMARY KEY AUTOINCREMENT, joplin_id INTEGER UNIQUE, "
            "item_type TEXT NOT NULL, item_id TEXT NOT NULL, change_type TEXT NOT NULL, "
            "time INTEGER NOT NULL, actor TEXT NOT NULL)"
        )
        conn.execute(
            "INSERT INTO joplin_feed(item_type, item_id, change_type, time, actor) VALUES ('folder', 'f', 'update', 1, 'mcp:x')"
        )
        conn.execute("INSERT INTO meta VALUES (?, '5')", (SCHEMA_KEY,))
    with conn:
        ensure_schema(conn)
    assert conn.execute("SELECT item_id, actor, place FROM joplin_feed").fetchall() == [("f", "mcp:x", None)]
    assert conn.execute("SELECT value FROM meta WHERE key = ?", (SCHEMA_KEY,)).fetchone() == (
        str(SCHEMA_VERSION),
    )
    conn.close()


def test_a_joplin_sidecar_of_schema_6_gets_its_feed_indexed_by_item(tmp_path: Path) -> None:
    """Not vacuous: a sidecar of version 6 has no such index, and the reads of one note's rows
    (its history, its last place) scanned the whole feed."""
    conn = apsw.Connection(str(tmp_path / "sidecar.db"))
    with conn:
        conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        conn.execute(
            "CREATE TABLE joplin_feed (id INTEGER PRIMARY KEY AUTOINCREMENT, joplin_id INTEGER UNIQUE, "
            "item_type TEXT NOT NULL, item_id TEXT NOT NULL, change_type TEXT NOT NULL, "
            "time INTEGER NOT NULL, actor TEXT NOT NULL, place TEXT)"
        )
        conn.execute(
            "INSERT INTO joplin_feed(item_type, item_id, change_type, time, actor) VALUES ('note', 'n', 'update', 1, 'mcp:x')"
        )
        conn.execute("INSERT INTO meta VALUES (?, '6')", (SCHEMA_KEY,))
    with conn:
        ensure_schema(conn)
    assert conn.execute("SELECT item_id, actor FROM joplin_feed").fetchall() == [("n", "mcp:x")]
    plan = conn.execute(
        "EXPLAIN QUERY PLAN SELECT id FROM joplin_feed WHERE item_id IN (?) ORDER BY id DESC LIMIT 1", ("n",)
    ).fetchall()
    assert "joplin_feed_item" in str(plan)
    conn.close()

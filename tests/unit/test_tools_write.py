"""The write tools through the registry: every parameter and error they document, and provenance.

Every write must be recorded with the caller's actor in the change feed and in the revisions.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.tools_env import ACTOR, WRITE_TOOLS, Env, make_env
from tests.support.vaults import opened

from noted.models import ItemType, NotePatch
from noted.store.sqlite import SqliteStore
from noted.tools.payloads import iso


@pytest.fixture
def env(store: SqliteStore, tmp_path: Path) -> Env:
    return make_env(store, tmp_path, enabled=WRITE_TOOLS)


def _actors_since(env: Env, cursor: int) -> set[tuple[str, str]]:
    """(item type, actor) of every change after ``cursor``."""
    return {(c.item_type.value, c.actor) for c in env.store.changes_since(cursor).changes}


# create_note, create_notebook ---------------------------------------------------------------------


async def test_create_note_in_a_notebook_by_id_with_tags_created_and_recorded(env: Env) -> None:
    folder = env.folder("Home")
    env.store.create_tag("Existing", actor="user")
    cursor = env.store.latest_cursor()
    got = await env.ok(
        "create_note",
        title="Groceries",
        body="- eggs",
        notebook_id=folder,
        is_todo=True,
        tags=["existing", "new"],
    )
    note = env.store.get_note(got["id"])
    assert (note.title, note.body, note.parent_id, note.is_todo) == ("Groceries", "- eggs", folder, True)
    assert got["tags"] == ["Existing", "new"] and got["notebook_created"] is False
    assert got["updated_time"] == iso(note.updated_time) and got["body_length"] == 6
    assert env.store.find_tag("new") is not None
    assert ("note", ACTOR) in _actors_since(env, cursor) and ("tag", ACTOR) in _actors_since(env, cursor)
    assert {a for _, a in _actors_since(env, cursor)} == {ACTOR}
    assert [r.actor for r in env.store.note_history(note.id)] == [ACTOR]


async def test_create_note_by_notebook_title_reuses_an_exact_match_else_creates_it(env: Env) -> None:
    home = env.folder("Home")
    reused = await env.ok("create_note", title="a", notebook_title="Home")
    assert reused["notebook_id"] == home and reused["notebook_created"] is False
    made = await env.ok("create_note", title="b", notebook_title="Recipes")
    assert made["notebook_created"] is True and made["notebook"] == "Recipes"
    folder = env.store.get_folder(made["notebook_id"])
    assert folder.title == "Recipes" and folder.parent_id == ""
    again = await env.ok("create_note", title="c", notebook_title="Recipes")
    assert again["notebook_id"] == folder.id and again["notebook_created"] is False


async def test_create_note_notebook_choice_errors(env: Env) -> None:
    home = env.folder("Home")
    both = await env.error("create_note", title="x", notebook_id=home, notebook_title="Home")
    assert both.field == "notebook_title" and "not both" in (both.message or "")
    # Neither: the default notebook, "Inbox" at the top level, made the first time (noted.ops.notes).
    inbox = await env.ok("create_note", title="x")
    assert inbox["notebook"] == "Inbox" and inbox["notebook_created"] is True and inbox["notebook_id"] != home
    assert env.store.get_folder(inbox["notebook_id"]).parent_id == ""
    env.folder("Inbox", parent=home)  # a sub-notebook of the same title is not the default one
    again = await env.ok("create_note", title="y")
    assert again["notebook_id"] == inbox["notebook_id"] and again["notebook_created"] is False
    env.folder("Work")
    env.folder("Work")
    twice = await env.error("create_note", title="x", notebook_title="Work")
    assert "2 notebooks" in (twice.message or "") and twice.field == "notebook_title"
    missing = await env.error("create_note", title="x", notebook_id="0" * 32)
    assert missing.field == "notebook_id"


async def test_create_note_in_a_scope_goes_in_the_default_notebook_only_when_visible(env: Env) -> None:
    inbox, work = env.folder("Inbox"), env.folder("Work")
    env.scoped("Work")
    cursor = env.store.latest_cursor()
    refused = await env.error("create_note", title="x")  # the default notebook is outside the scope
    assert refused.field == "notebook_id" and env.store.latest_cursor() == cursor
    env.scoped("Work", "Inbox")
    made = await env.ok("create_note", title="x")
    assert made["notebook_id"] == inbox != work and made["notebook_created"] is False


async def test_create_notebook_at_top_level_or_inside_a_parent(env: Env) -> None:
    cursor = env.store.latest_cursor()
    top = await env.ok("create_notebook", title="Work")
    sub = await env.ok("create_notebook", title="2025", parent_id=top["id"])
    assert top["parent_id"] == "" and sub["parent_id"] == top["id"]
    assert env.store.get_folder(sub["id"]).title == "2025"
    assert _actors_since(env, cursor) == {("folder", ACTOR)}
    assert (await env.error("create_notebook", title="x", parent_id="0" * 32)).field == "parent_id"


# update_note -------------------------------------------------------------------------------------


async def test_update_note_body_modes_each_work_and_are_recorded(env: Env) -> None:
    note = env.note(env.folder("F"), "Plan", "line one")
    cursor = env.store.latest_cursor()
    got = await env.ok("update_note", id=note, append="line two")
    assert env.store.get_note(note).body == "line one\nline two" and got["changed"] == ["append"]
    await env.ok("update_note", id=note, prepend="# Title")
    assert env.store.get_note(note).body == "# Title\nline one\nline two"
    await env.ok("update_note", id=note, replace_text={"find": "line one", "replace": "first line"})
    assert env.store.get_note(note).body == "# Title\nfirst line\nline two"
    await env.ok("update_note", id=note, body="all new", title="Renamed")
    stored = env.store.get_note(note)
    assert (stored.title, stored.body) == ("Renamed", "all new")
    assert _actors_since(env, cursor) == {("note", ACTOR)}
    assert env.store.note_history(note)[0].actor == ACTOR


async def test_update_note_body_modes_are_mutually_exclusive(env: Env) -> None:
    note = env.note(env.folder("F"), "Plan", "text")
    result = await env.error("update_note", id=note, body="a", append="b")
    assert result.field == "append" and "cannot be used together" in (result.message or "")
    result = await env.error("update_note", id=note, prepend="a", replace_text={"find": "t", "replace": "x"})
    assert result.field == "replace_text"
    assert env.store.get_note(note).body == "text"


async def test_replace_text_must_match_exactly_once_and_says_how_often_it_matched(env: Env) -> None:
    note = env.note(env.folder("F"), "Plan", "aaa and bbb and bbb")
    none = await env.error("update_note", id=note, replace_text={"find": "ccc", "replace": "x"})
    assert none.field == "replace_text.find" and "matches 0 times" in (none.message or "")
    twice = await env.error("update_note", id=note, replace_text={"find": "bbb", "replace": "x"})
    assert "matches twice" in (twice.message or "")
    overlapping = await env.error("update_note", id=note, replace_text={"find": "aa", "replace": "x"})
    assert "matches twice" in (overlapping.message or "")  # "aaa" holds "aa" at two places
    assert env.store.get_note(note).body == "aaa and bbb and bbb"
    await env.ok("update_note", id=note, replace_text={"find": "and bbb and", "replace": "or"})
    assert env.store.get_note(note).body == "aaa or bbb"


async def test_stale_base_updated_time_writes_nothing_and_says_to_read_again(env: Env) -> None:
    note = env.note(env.folder("F"), "Plan", "v1")
    read = await env.ok("read_note", id=note)
    env.store.update_note(note, NotePatch(body="v2 by the person"), actor="user")
    stale = await env.error("update_note", id=note, body="v3", base_updated_time=read["updated_time"])
    assert stale.field == "base_updated_time" and "read_note again" in (stale.message or "")
    assert env.store.get_note(note).body == "v2 by the person"
    fresh = await env.ok("read_note", id=note)
    await env.ok("update_note", id=note, body="v3", base_updated_time=fresh["updated_time"])
    assert env.store.get_note(note).body == "v3"
    as_ms = env.store.get_note(note).updated_time
    await env.ok("update_note", id=note, append="v4", base_updated_time=as_ms)  # milliseconds work too
    bad = await env.error("update_note", id=note, title="x", base_updated_time="yesterday")
    assert bad.field == "base_updated_time"


async def test_update_note_moves_to_a_notebook_and_completes_a_todo(env: Env) -> None:
    home, work = env.folder("Home"), env.folder("Work")
    todo = env.note(home, "Call", is_todo=True)
    got = await env.ok("update_note", id=todo, notebook_id=work, todo_completed=True)
    stored = env.store.get_note(todo)
    assert stored.parent_id == work and stored.todo_completed > 0
    assert got["notebook"] == "Work" and got["todo_completed"] is True
    await env.ok("update_note", id=todo, todo_completed=False)
    assert env.store.get_note(todo).todo_completed == 0
    plain = env.note(home, "Plain")
    assert (await env.error("update_note", id=plain, todo_completed=True)).field == "todo_completed"
    assert (await env.error("update_note", id=plain, notebook_id="0" * 32)).field == "notebook_id"


async def test_update_note_needs_something_to_change_and_a_live_note(env: Env) -> None:
    note = env.note(env.folder("F"), "Plan", "x")
    assert "nothing to change" in ((await env.error("update_note", id=note)).message or "")
    assert (await env.error("update_note", id="0" * 32, body="x")).field == "id"
    env.store.trash_note(note, actor="user")
    trashed = await env.error("update_note", id=note, body="y")
    assert "in the trash" in (trashed.message or "") and env.store.get_note(note).body == "x"


# delete_note, restore_note ------------------------------------------------------------------------


async def test_delete_note_goes_to_the_trash_and_restore_brings_it_back(env: Env) -> None:
    folder = env.folder("F")
    note = env.note(folder, "Plan", "keep me")
    cursor = env.store.latest_cursor()
    deleted = await env.ok("delete_note", id=note)
    assert deleted["in_trash"] is True and env.store.get_note(note).is_trashed
    assert (await env.ok("search_notes", query="keep"))["total"] == 0
    assert (await env.ok("delete_note", id=note))["in_trash"] is True  # idempotent
    restored = await env.ok("restore_note", id=note)
    assert restored["in_trash"] is False and restored["notebook_id"] == folder
    assert env.store.get_note(note).body == "keep me"
    assert (await env.ok("restore_note", id=note))["in_trash"] is False  # not in the trash: unchanged
    assert _actors_since(env, cursor) == {("note", ACTOR)}
    assert (await env.error("delete_note", id="0" * 32)).field == "id"
    assert (await env.error("restore_note", id="0" * 32)).field == "id"


# manage_tags -------------------------------------------------------------------------------------


async def test_manage_tags_adds_creating_missing_tags_and_removes(env: Env) -> None:
    note = env.note(env.folder("F"), "Plan", tags=("old", "keep"))
    cursor = env.store.latest_cursor()
    got = await env.ok("manage_tags", note_id=note, add=["urgent"], remove=["OLD", "absent"])
    assert got["tags"] == ["keep", "urgent"] and got["added"] == ["urgent"]
    assert got["removed"] == ["OLD"] and got["not_on_note"] == ["absent"]
    assert [t.title for t in env.store.note_tags(note)] == ["keep", "urgent"]
    assert {("note_tag", ACTOR), ("tag", ACTOR)} == _actors_since(env, cursor)
    assert any(c.item_type is ItemType.NOTE_TAG for c in env.store.changes_since(cursor).changes)


async def test_manage_tags_errors(env: Env) -> None:
    note = env.note(env.folder("F"), "Plan")
    assert (await env.error("manage_tags", note_id=note)).field == "add"
    both = await env.error("manage_tags", note_id=note, add=["x"], remove=["X"])
    assert both.field == "remove" and "both added and removed" in (both.message or "")
    assert (await env.error("manage_tags", note_id="0" * 32, add=["x"])).field == "note_id"


async def test_create_note_in_a_scope_finds_the_default_notebook_as_ops_does(tmp_path: Path) -> None:
    """In a Markdown folder the default notebook is the folder ``create_note`` would use
    (``HasFolderNames.top_folder_title``: here ``inbox/``); the tool looked for a notebook titled
    exactly "Inbox", so a client limited to it was told to name a notebook. Not vacuous: the
    unlimited call lands in the same folder, and makes no "Inbox 2"."""
    root = tmp_path / "notes"
    (root / "inbox").mkdir(parents=True)
    (root / "inbox" / "first.md").write_text("# First\n")
    with opened(root, tmp_path / "profile") as store:
        env = make_env(store, tmp_path, enabled=WRITE_TOOLS)
        inbox = next(f.id for f in store.list_folders() if f.title == "inbox")
        env.scoped("inbox")
        made = await env.ok("create_note", title="Scoped")
        assert made["notebook_id"] == inbox and made["notebook_created"] is False
        free = await make_env(store, tmp_path, enabled=WRITE_TOOLS).ok("create_note", title="Free")
        assert free["notebook_id"] == inbox and free["notebook_created"] is False
    assert sorted(p.name for p in root.iterdir()) == ["inbox"]

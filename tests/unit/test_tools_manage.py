"""Notebook and tag management and ``list_notes`` through the registry, on every backend.

Every write is checked for its actor in the change feed, and every refusal for "nothing written".
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.backends import BACKENDS, LocalStore, open_backend
from tests.support.tools_env import ACTOR, MANAGE_TOOLS, WRITE_TOOLS, Env, make_env

from noted.models import NotePatch, now_ms
from noted.store.protocol import HasFolderNames
from noted.tools import all_tools


@pytest.fixture(params=BACKENDS)
def backend_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LocalStore]:
    with open_backend(request.param, tmp_path / "store") as store:
        yield store


@pytest.fixture
def env(backend_store: LocalStore, tmp_path: Path) -> Env:
    return make_env(backend_store, tmp_path, enabled=(*WRITE_TOOLS, *MANAGE_TOOLS))


def _next_millisecond() -> None:
    """Wait (a fraction of a millisecond) until the clock moves, so notes made next are newer."""
    start = now_ms()
    while now_ms() == start:
        pass


def _actors_since(env: Env, cursor: int) -> set[str]:
    return {c.actor for c in env.store.changes_since(cursor).changes}


def test_the_new_write_tools_are_off_by_default_and_destructive_where_they_overwrite_or_remove(
    backend_store: LocalStore, tmp_path: Path
) -> None:
    plain = make_env(backend_store, tmp_path)
    tools = {t.name: t for t in all_tools()}
    for name in MANAGE_TOOLS:
        assert tools[name].is_write and not plain.registry.enabled(tools[name]), name
    destructive = {n for n in MANAGE_TOOLS if tools[n].annotations.destructive}
    assert destructive == {
        "update_notebook", "delete_notebook", "rename_tag", "delete_tag", "replace_attachment",
        "delete_attachment",
    }  # fmt: skip
    for name in (
        "get_notebook",
        "get_tag",
        "list_notes",
        "list_tag_notes",
        "list_attachments",
        "read_attachment",
    ):
        assert not tools[name].is_write and plain.registry.enabled(tools[name]), name


# Notebooks ---------------------------------------------------------------------------------------


async def test_list_notebooks_shows_trashed_ones_only_when_asked(env: Env) -> None:
    live = env.folder("Live")
    gone = env.folder("Gone")
    env.store.trash_folder(gone, actor="user")
    plain = await env.ok("list_notebooks")
    assert [(n["id"], n["in_trash"]) for n in plain["notebooks"]] == [(live, False)]
    every = await env.ok("list_notebooks", include_trashed=True)
    assert {(n["id"], n["in_trash"]) for n in every["notebooks"]} == {(live, False), (gone, True)}


async def test_get_notebook_gives_parent_counts_and_trash_state(env: Env) -> None:
    top = env.folder("Top")
    sub = env.folder("Sub", top)
    env.folder("Sub2", top)
    env.note(top, "a")
    env.note(sub, "b")
    trashed = env.note(top, "c")
    env.store.trash_note(trashed, actor="user")
    got = await env.ok("get_notebook", id=top)
    assert (got["title"], got["parent_id"], got["parent"], got["in_trash"]) == ("Top", "", "", False)
    assert (got["note_count"], got["notebook_count"], got["total_note_count"], got["trashed_note_count"]) == (
        1,
        2,
        2,
        1,
    )
    child = await env.ok("get_notebook", id=sub)
    assert (child["parent_id"], child["parent"]) == (top, "Top")
    assert (await env.error("get_notebook", id="0" * 32)).field == "id"


async def test_update_notebook_renames_and_moves_with_the_callers_actor(env: Env) -> None:
    a, b = env.folder("A"), env.folder("B")
    cursor = env.store.latest_cursor()
    renamed = await env.ok("update_notebook", id=a, title="  Alpha ")
    assert renamed["title"] == "Alpha" and renamed["changed"] == ["title"]
    moved = await env.ok("update_notebook", id=a, parent_id=b)
    assert (moved["parent_id"], moved["parent"]) == (b, "B")
    assert env.store.get_folder(a).parent_id == b
    back = await env.ok("update_notebook", id=a, parent_id="")
    assert back["parent_id"] == "" and env.store.get_folder(a).parent_id == ""
    assert _actors_since(env, cursor) == {ACTOR}


async def test_a_notebook_moved_into_its_own_child_is_refused_with_nothing_written(env: Env) -> None:
    top = env.folder("Top")
    child = env.folder("Child", top)
    grandchild = env.folder("Grandchild", child)
    cursor = env.store.latest_cursor()
    for target in (child, grandchild, top):
        refused = await env.error("update_notebook", id=top, parent_id=target)
        assert refused.field == "parent_id" and "into itself or one of its own sub-notebooks" in (
            refused.message or ""
        )
    assert env.store.latest_cursor() == cursor and env.store.get_folder(top).parent_id == ""


async def test_update_notebook_errors(env: Env) -> None:
    folder = env.folder("F")
    assert "nothing to change" in ((await env.error("update_notebook", id=folder)).message or "")
    assert (await env.error("update_notebook", id=folder, parent_id="0" * 32)).field == "parent_id"
    assert (await env.error("update_notebook", id=folder, title="two\nlines")).field == "title"
    env.store.trash_folder(folder, actor="user")
    assert (await env.error("update_notebook", id=folder, title="x")).field == "id"


async def test_delete_notebook_trashes_it_with_everything_inside_and_restore_brings_it_all_back(
    env: Env,
) -> None:
    top = env.folder("Top")
    sub = env.folder("Sub", top)
    notes = [env.note(top, "a"), env.note(sub, "b")]
    cursor = env.store.latest_cursor()
    deleted = await env.ok("delete_notebook", id=top)
    assert deleted["in_trash"] is True and (deleted["notebooks_trashed"], deleted["notes_trashed"]) == (2, 2)
    assert all(env.store.get_note(n).is_trashed for n in notes) and env.store.get_folder(sub).is_trashed
    again = await env.ok("delete_notebook", id=top)  # idempotent: nothing more happens
    assert (again["notebooks_trashed"], again["notes_trashed"]) == (0, 0)
    restored = await env.ok("restore_notebook", id=top)
    assert restored["in_trash"] is False and (restored["notebooks_restored"], restored["notes_restored"]) == (
        2,
        2,
    )
    assert not any(env.store.get_note(n).is_trashed for n in notes)
    assert _actors_since(env, cursor) == {ACTOR}
    # Deleting never erases: the notes are all still there with their text.
    assert [env.store.get_note(n).title for n in notes] == ["a", "b"]


# create_note and notebooks -------------------------------------------------------------------------


async def test_create_note_with_an_unknown_notebook_id_writes_nothing(env: Env) -> None:
    env.folder("Home")
    cursor = env.store.latest_cursor()
    refused = await env.error("create_note", title="x", notebook_id="0" * 32, tags=["new-tag"])
    assert refused.field == "notebook_id"
    assert env.store.latest_cursor() == cursor and env.store.find_tag("new-tag") is None


async def test_create_note_by_notebook_title_reuses_or_creates_and_writes_nothing_on_a_bad_title(
    env: Env,
) -> None:
    made = await env.ok("create_note", title="a", notebook_title="Inbox")
    reused = await env.ok("create_note", title="b", notebook_title="Inbox")
    assert made["notebook_created"] is True and reused["notebook_created"] is False
    assert made["notebook_id"] == reused["notebook_id"]
    cursor = env.store.latest_cursor()
    bad = await env.error("create_note", title="two\nlines", notebook_title="Brand new")
    assert bad.field == "title" and env.store.latest_cursor() == cursor
    assert "Brand new" not in {f.title for f in env.store.list_folders()}


# list_notes -----------------------------------------------------------------------------------------


async def test_list_notes_filters_by_notebook_tag_and_time_without_bodies(env: Env) -> None:
    a, b = env.folder("A"), env.folder("B")
    first = env.note(a, "first", "body one", tags=("red",))
    _next_millisecond()
    second = env.note(b, "second", "body two", tags=("red", "blue"))
    _next_millisecond()
    third = env.note(a, "third", "")
    red = env.store.find_tag("red")
    assert red is not None
    every = await env.ok("list_notes")
    assert [n["id"] for n in every["notes"]] == [third, second, first]  # newest first
    assert every["total"] == 3 and every["has_more"] is False and "body" not in every["notes"][0]
    row = next(n for n in every["notes"] if n["id"] == second)
    assert (row["notebook"], row["tags"], row["body_length"]) == ("B", ["blue", "red"], 8)
    assert [n["id"] for n in (await env.ok("list_notes", notebook_id=a))["notes"]] == [third, first]
    assert [n["id"] for n in (await env.ok("list_notes", tag_id=red.id))["notes"]] == [second, first]
    both = await env.ok("list_notes", notebook_id=a, tag_id=red.id)
    assert [n["id"] for n in both["notes"]] == [first]
    since = env.store.get_note(second).updated_time
    recent = await env.ok("list_notes", updated_since=every["notes"][1]["updated_time"])
    assert [n["id"] for n in recent["notes"]] == [third, second]
    assert [n["id"] for n in (await env.ok("list_notes", updated_since=since + 10_000_000))["notes"]] == []


async def test_list_notes_pages_with_a_cursor_that_survives_an_edit(env: Env) -> None:
    folder = env.folder("F")
    ids = [env.note(folder, f"n{i}") for i in range(5)]
    page1 = await env.ok("list_notes", limit=2)
    assert len(page1["notes"]) == 2 and page1["has_more"] is True and page1["total"] == 5
    seen = [n["id"] for n in page1["notes"]]
    unseen = [i for i in ids if i not in seen]
    edited = unseen[0]
    env.store.update_note(edited, NotePatch(body="edited"), actor="user")
    page2 = await env.ok("list_notes", limit=2, cursor=page1["next_cursor"])
    # The edited note jumped to the front. With offsets, page 2 would repeat a note of page 1; after
    # the cursor, the other unseen notes come exactly once and the edited one is found by time.
    assert sorted(n["id"] for n in page2["notes"]) == sorted(unseen[1:])
    assert page2["has_more"] is False and "next_cursor" not in page2
    since = await env.ok("list_notes", updated_since=page1["notes"][0]["updated_time"])
    assert edited in [n["id"] for n in since["notes"]]
    assert (await env.error("list_notes", cursor="not-a-cursor")).field == "cursor"
    assert (await env.error("list_notes", limit=101)).field == "limit"


# Tags ---------------------------------------------------------------------------------------------------


async def test_get_tag_and_list_tag_notes(env: Env) -> None:
    folder = env.folder("F")
    tagged = [env.note(folder, f"n{i}", "x" * (i + 1), tags=("work",)) for i in range(3)]
    env.note(folder, "untagged")
    tag = env.store.find_tag("work")
    assert tag is not None
    got = await env.ok("get_tag", id=tag.id)
    assert (got["title"], got["note_count"]) == ("work", 3)
    listed = await env.ok("list_tag_notes", tag_id=tag.id, limit=2)
    assert listed["total"] == 3 and listed["has_more"] is True and listed["next_offset"] == 2
    rest = await env.ok("list_tag_notes", tag_id=tag.id, limit=2, offset=2)
    # Distinct lengths, so a listing that cannot measure bodies (0 for all) is caught.
    lengths = {n["id"]: n["body_length"] for n in listed["notes"] + rest["notes"]}
    assert lengths == {note_id: i + 1 for i, note_id in enumerate(tagged)}
    assert (await env.error("get_tag", id="0" * 32)).field == "id"
    assert (await env.error("list_tag_notes", tag_id="0" * 32)).field == "tag_id"


async def test_rename_tag_and_its_errors(env: Env) -> None:
    folder = env.folder("F")
    note = env.note(folder, "n", tags=("todo", "later"))
    tag = env.store.find_tag("todo")
    assert tag is not None
    cursor = env.store.latest_cursor()
    renamed = await env.ok("rename_tag", id=tag.id, title="TODO")  # a change of case is allowed
    assert (renamed["title"], renamed["previous_title"]) == ("TODO", "todo")
    assert [t.title for t in env.store.note_tags(note)] == ["later", "TODO"]
    assert _actors_since(env, cursor) == {ACTOR}
    clash = await env.error("rename_tag", id=tag.id, title="Later")
    assert clash.field == "title" and "exists already" in (clash.message or "")
    assert env.store.get_tag(tag.id).title == "TODO"


async def test_delete_tag_removes_it_from_every_note_for_good(env: Env) -> None:
    folder = env.folder("F")
    notes = [env.note(folder, "a", tags=("old",)), env.note(folder, "b", tags=("old", "keep"))]
    tag = env.store.find_tag("old")
    assert tag is not None
    got = await env.ok("delete_tag", id=tag.id)
    assert got == {"id": tag.id, "title": "old", "deleted": True, "removed_from_notes": 2}
    assert env.store.find_tag("old") is None
    assert [[t.title for t in env.store.note_tags(n)] for n in notes] == [[], ["keep"]]


async def test_in_a_scope_tag_renames_and_deletes_act_on_the_visible_notes_only(env: Env) -> None:
    """Before, a shared tag was refused ("also used outside the notebooks you can see"), which told
    the caller that it was; now the visible notes change and the notes outside keep their tags."""
    work, private = env.folder("Work"), env.folder("Private")
    w = env.note(work, "w", tags=("shared", "mine"))
    p = env.note(private, "p", tags=("shared", "secret"))
    tags = {t.title: t.id for t in env.store.list_tags()}
    env.scoped("Work")
    # "secret" is only on a private note: its id answers as one that names no tag (its title would
    # tell of the note outside)
    hidden, nowhere = await env.error("get_tag", id=tags["secret"]), await env.error("get_tag", id="0" * 32)
    assert hidden.field == nowhere.field == "id"
    assert hidden.message == (nowhere.message or "").replace("0" * 32, tags["secret"])
    shared = await env.ok("get_tag", id=tags["shared"])
    assert shared["note_count"] == 1  # counts only the visible note
    renamed = await env.ok("rename_tag", id=tags["shared"], title="common")
    assert (renamed["title"], renamed["note_count"], renamed["previous_title"]) == ("common", 1, "shared")
    assert [t.title for t in env.store.note_tags(w)] == ["common", "mine"]
    assert [t.title for t in env.store.note_tags(p)] == ["secret", "shared"]  # outside: untouched
    deleted = await env.ok("delete_tag", id=tags["mine"])
    assert deleted == {"id": tags["mine"], "title": "mine", "deleted": True, "removed_from_notes": 1}
    assert [t.title for t in env.store.note_tags(w)] == ["common"]


async def test_in_a_scope_a_notebook_cannot_be_moved_or_renamed_out_of_sight(env: Env) -> None:
    work, private = env.folder("Work"), env.folder("Private")
    project = env.folder("Project", work)
    env.scoped("Work")
    cursor = env.store.latest_cursor()
    assert (await env.error("update_notebook", id=project, parent_id=private)).field == "parent_id"
    out = await env.error("update_notebook", id=project, parent_id="")
    assert "out of the notebooks you can see" in (out.message or "")
    # "Work" is the top of the scope: moved or trashed, the notebooks around it (the person's) change
    assert "a top of the notebooks you can see" in (
        (await env.error("delete_notebook", id=work)).message or ""
    )
    assert (await env.error("update_notebook", id=work, parent_id=project)).field == "parent_id"
    assert (await env.error("get_notebook", id=private)).field == "id"
    assert (await env.error("delete_notebook", id=private)).field == "id"
    assert env.store.latest_cursor() == cursor
    # the scope holds "Work" by id, so a rename keeps it in sight; in a Markdown folder the name a
    # top of the scope got would tell which names beside it are taken (test_mcp_vault_scope.py)
    if isinstance(env.store, HasFolderNames):
        assert (await env.error("update_notebook", id=work, title="Job")).field == "title"
    else:
        assert (await env.ok("update_notebook", id=work, title="Job"))["title"] == "Job"
    assert (await env.ok("update_notebook", id=project, title="Project X"))["title"] == "Project X"
    listed = await env.ok("list_notes")
    assert all(n["notebook_id"] in (work, project) for n in listed["notes"])

"""Scope: with allowed notebooks set, every tool behaves as if the other notebooks did not exist.

Each test is built so it could fail: the out-of-scope notebook holds the *best* match of the
searches and a tag shared with visible notes, and the unscoped call is checked to find it first.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.support.tools_env import WRITE_TOOLS, Env, make_env

from noted.mcp.scopes import Settled
from noted.models import NotePatch
from noted.settings.handles import MCP_ALLOWED_NOTEBOOKS
from noted.store.sqlite import SqliteStore
from noted.tools import Scope
from noted.tools.base import Payload


@dataclass
class World:
    env: Env
    work: str
    projects: str
    private: str
    shared: str
    secret: str
    work_note: str
    project_note: str
    shared_note: str
    secret_note: str


@pytest.fixture
def world(store: SqliteStore, tmp_path: Path) -> World:
    env = make_env(store, tmp_path, enabled=WRITE_TOOLS)
    work = env.folder("Work")
    projects = env.folder("Projects", work)
    private = env.folder("Private")
    shared = env.folder("Shared", private)  # allowed by id, under a parent that is not
    secret = env.folder("Secret")
    work_note = env.note(work, "Meeting", "we talked about the budget once", tags=("common",))
    project_note = env.note(projects, "Launch", "# Costs\nthe launch budget is small")
    shared_note = env.note(shared, "Shared plan", "a plan we share")
    secret_note = env.note(
        secret, "Budget budget", "# Budget\nbudget budget budget: the secret budget plan, salaries",
        tags=("common", "hushhush"),
    )  # fmt: skip
    return World(
        env, work, projects, private, shared, secret, work_note, project_note, shared_note, secret_note
    )


def _scoped(world: World) -> Env:
    world.env.scoped("Work", world.shared)
    return world.env


def _assert_hidden(world: World, payload: Payload) -> None:
    text = json.dumps(payload)
    for leak in (world.secret, world.secret_note, world.private, "Secret", "Private", "hushhush", "salaries"):
        assert leak not in text, leak


# Searching ---------------------------------------------------------------------------------------


async def test_keyword_search_whose_best_match_is_out_of_scope(world: World) -> None:
    unscoped = await world.env.ok("search_notes", query="budget")
    assert unscoped["results"][0]["id"] == world.secret_note and unscoped["total"] == 3  # the test can fail
    env = _scoped(world)
    got = await env.ok("search_notes", query="budget")
    assert {r["id"] for r in got["results"]} == {world.work_note, world.project_note}
    assert got["total"] == 2
    _assert_hidden(world, got)
    assert (await env.ok("search_notes", query="notebook:Secret"))["total"] == 0
    assert (await env.ok("search_notes", query="tag:hushhush"))["total"] == 0


async def test_semantic_search_whose_best_match_is_out_of_scope(world: World) -> None:
    world.env.index()
    query = {"query": "budget budget plan", "relevance": "loose"}
    unscoped = await world.env.ok("semantic_search_notes", **query)
    assert unscoped["results"][0]["id"] == world.secret_note
    env = _scoped(world)
    got = await env.ok("semantic_search_notes", **query)
    assert got["results"] and world.secret_note not in {r["id"] for r in got["results"]}
    _assert_hidden(world, got)
    assert (
        await env.error("semantic_search_notes", notebook_id=world.secret, **query)
    ).field == "notebook_id"
    hush = env.store.find_tag("hushhush")
    assert hush is not None  # carried only outside: it answers as an id that names no tag
    hidden = await env.error("semantic_search_notes", tag_id=hush.id, **query)
    nowhere = await env.error("semantic_search_notes", tag_id="0" * 32, **query)
    assert hidden.field == nowhere.field == "tag_id"
    assert hidden.message == (nowhere.message or "").replace("0" * 32, hush.id)
    common = env.store.find_tag("common")
    assert common is not None
    by_tag = await env.ok("semantic_search_notes", tag_id=common.id, **query)
    assert [r["id"] for r in by_tag["results"]] == [world.work_note]


async def test_find_notes_whose_best_match_is_out_of_scope(world: World) -> None:
    world.env.index()
    query = {"query": "budget plan", "relevance": "loose"}
    unscoped = await world.env.ok("find_notes", **query)
    assert unscoped["results"][0]["id"] == world.secret_note  # the test can fail
    env = _scoped(world)
    got = await env.ok("find_notes", **query)
    assert {r["id"] for r in got["results"]} >= {world.work_note, world.project_note}
    assert world.secret_note not in {r["id"] for r in got["results"]}
    assert got["index"]["notes_total"] == 3  # Meeting, Launch, Shared plan: the caller's notes
    _assert_hidden(world, got)
    for filtered in ("notebook:Secret budget", "tag:hushhush budget", "notebook:Secret"):
        assert (await env.ok("find_notes", query=filtered))["results"] == []


async def test_no_word_held_only_outside_the_scope_is_offered_as_a_correction(world: World) -> None:
    """A misspelt word was mended from every note's words, so "salaris" came back as "salaries",
    a word of the notes outside the scope alone; and a word held only outside was never mended."""
    world.env.note(world.secret, "Pay", "the salaries of the team")  # two notes: a correction
    world.env.note(world.work, "Pay rise", "a salary review")
    world.env.index()
    for tool in ("find_notes", "semantic_search_notes"):
        unscoped = await world.env.ok(tool, query="salaris review")
        assert unscoped["corrected"] == {"salaris": "salaries"}  # the test can fail
    env = _scoped(world)
    for tool in ("find_notes", "semantic_search_notes"):
        got = await env.ok(tool, query="salaris review")
        assert "corrected" not in got and "salaries" not in json.dumps(got), got
    world.env.note(world.projects, "Payroll", "salaries are paid monthly")
    world.env.note(world.projects, "Payroll 2", "salaries again")
    got = await env.ok("find_notes", query="salaris review")  # now the caller's notes hold it twice
    assert got["corrected"] == {"salaris": "salaries"}


async def test_a_scoped_search_finds_its_notes_however_many_notes_outside_match(world: World) -> None:
    """The best 1,000 matches of all notes were read and those outside the scope dropped: with
    more than that outside, the caller's own matches were lost."""
    with world.env.store.batch():
        for i in range(1_001):
            world.env.note(world.secret, f"Old budget {i}", "budget budget budget")
    env = _scoped(world)
    for query in ("budget", "type:note"):
        got = await env.ok("find_notes", query=query)
        assert world.work_note in {r["id"] for r in got["results"]}, query
    got = await env.ok("search_notes", query="budget")
    assert got["total"] == 2


# Reading and listing -----------------------------------------------------------------------------


async def test_out_of_scope_notes_are_not_found_exactly_like_missing_ones(world: World) -> None:
    env = _scoped(world)
    missing_id = "0" * 32
    for name, key in (("read_note", "id"), ("note_history", "id")):
        hidden = await env.error(name, **{key: world.secret_note})
        missing = await env.error(name, **{key: missing_id})
        assert hidden.message == (missing.message or "").replace(missing_id, world.secret_note)
    got = await env.ok("read_notes", ids=[world.work_note, world.secret_note])
    assert [n["id"] for n in got["notes"]] == [world.work_note] and got["not_found"] == [world.secret_note]
    assert (await env.ok("read_note", id=world.shared_note))["title"] == "Shared plan"


async def test_listings_show_nothing_from_outside(world: World) -> None:
    env = _scoped(world)
    notebooks = await env.ok("list_notebooks")
    rows = {n["title"]: n for n in notebooks["notebooks"]}
    assert set(rows) == {"Work", "Projects", "Shared"}
    assert rows["Shared"]["parent_id"] == ""  # its real parent is out of scope
    assert rows["Projects"]["parent_id"] == world.work
    _assert_hidden(world, notebooks)
    tags = await env.ok("list_tags")
    assert [(t["title"], t["note_count"]) for t in tags["tags"]] == [("common", 1)]  # 2 unscoped
    _assert_hidden(world, tags)
    assert (await env.error("list_notebook_notes", notebook_id=world.secret)).field == "notebook_id"
    listed = await env.ok("list_notebook_notes", notebook_id=world.work)
    assert [n["id"] for n in listed["notes"]] == [world.work_note]


# Writing -----------------------------------------------------------------------------------------


async def test_writes_cannot_reach_or_move_notes_out_of_scope(world: World) -> None:
    env = _scoped(world)
    cursor = env.store.latest_cursor()
    moved = await env.error("update_note", id=world.work_note, notebook_id=world.secret)
    assert moved.field == "notebook_id"
    assert (await env.error("update_note", id=world.secret_note, body="pwned")).field == "id"
    assert (await env.error("delete_note", id=world.secret_note)).field == "id"
    assert (await env.error("restore_note", id=world.secret_note)).field == "id"
    assert (await env.error("manage_tags", note_id=world.secret_note, add=["x"])).field == "note_id"
    assert (await env.error("create_note", title="x", notebook_id=world.secret)).field == "notebook_id"
    by_title = await env.error("create_note", title="x", notebook_title="Secret")
    assert by_title.field == "notebook_title"
    assert (await env.error("create_note", title="x")).field == "notebook_id"  # no "Inbox" in the scope
    assert (await env.error("create_notebook", title="Top")).field == "parent_id"
    assert (await env.error("create_notebook", title="x", parent_id=world.secret)).field == "parent_id"
    assert env.store.latest_cursor() == cursor  # nothing at all was written
    assert env.store.get_note(world.work_note).parent_id == world.work


async def test_a_notebook_created_inside_the_scope_is_in_it_at_once(world: World) -> None:
    env = _scoped(world)
    made = await env.ok("create_notebook", title="2025", parent_id=world.work)
    note = await env.ok("create_note", title="New", notebook_title="2025", body="fresh budget")
    assert note["notebook_id"] == made["id"] and note["notebook_created"] is False
    assert "2025" in {n["title"] for n in (await env.ok("list_notebooks"))["notebooks"]}
    moved = await env.ok("update_note", id=note["id"], notebook_id=world.projects)
    assert moved["notebook_id"] == world.projects


async def _tag_views(env: Env, note_id: str, title: str) -> Payload:
    """Everything a scoped caller sees of a tag it adds: manage_tags, read_note, list_tags, get_tag."""
    added = await env.ok("manage_tags", note_id=note_id, add=[title])
    tag = next(t for t in (await env.ok("list_tags"))["tags"] if t["title"].casefold() == title.casefold())
    got = await env.ok("get_tag", id=tag["id"])
    note = await env.ok("read_note", id=note_id)
    listed = await env.ok("list_tag_notes", tag_id=tag["id"])
    return {
        "manage_tags": {k: added[k] for k in ("tags", "added")},
        "list_tags": {k: tag[k] for k in ("title", "note_count")},
        "get_tag": {k: v for k, v in got.items() if k != "id"},
        "read_note": note["tags"],
        "list_tag_notes": listed["tag"],
    }


async def test_adding_a_tag_tells_a_scoped_caller_nothing_of_a_tag_used_only_outside(
    world: World, store: SqliteStore
) -> None:
    """The probe added SECRET-TAG in a scope and got back the hidden tag's case and old times.

    Not vacuous: the same calls for a title no tag has are the control; before the fix the
    existing tag came back as "secret-tag" with its old created_time, the new one as "FRESH-TAG".
    """
    world.env.note(world.secret, "Hidden", "x", tags=("secret-tag",))
    existing = store.find_tag("secret-tag")
    assert existing is not None
    env = _scoped(world)
    hidden = await _tag_views(env, world.work_note, "SECRET-TAG")
    fresh = await _tag_views(env, world.work_note, "FRESH-TAG")
    as_fresh = json.loads(json.dumps(fresh).replace("fresh-tag", "secret-tag"))
    as_fresh["read_note"] = hidden["read_note"]  # the note carries both tags by now
    as_fresh["manage_tags"]["tags"] = hidden["manage_tags"]["tags"]
    assert hidden == as_fresh
    assert hidden["get_tag"]["created_time"] is None
    after = store.find_tag("secret-tag")  # the hidden tag itself was not renamed or remade
    assert after is not None and (after.id, after.title) == (existing.id, existing.title)


async def test_list_tags_in_a_scope_lists_the_tags_its_notes_carry_and_no_other(world: World) -> None:
    """Counted by folded title and looked up again by it, two tags whose titles fold alike (as an
    older noted made "Ünï" and "ÜNÏ", or a long s "huſh" beside "hush") came back as one, with
    the id of whichever the lookup met first: perhaps a tag of the notes outside."""
    env = _scoped(world)
    with env.store.db.write() as conn:  # two tags an older noted kept apart
        for tag_id, title in (("a" * 32, "Ünï"), ("b" * 32, "ÜNÏ")):
            conn.execute("INSERT INTO tags(id, title, created_time, updated_time) VALUES (?, ?, 1, 1)",
                         (tag_id, title))  # fmt: skip
            conn.execute("INSERT INTO note_tags VALUES (?, ?, 1)", (world.work_note, tag_id))
    carried = {t.id for t in env.store.note_tags(world.work_note)}
    assert {"a" * 32, "b" * 32} <= carried  # the test can fail
    listed = (await env.ok("list_tags"))["tags"]
    assert {t["id"] for t in listed} == carried
    assert all(t["note_count"] == 1 for t in listed)


async def test_renaming_onto_a_hidden_tag_title_answers_as_onto_a_free_one(world: World) -> None:
    """The probe saw "that title cannot be used" for a title used only outside, and a rename for a
    free one. Not vacuous: the control renames onto a title no tag has."""
    env = _scoped(world)
    env.enable("rename_tag")
    answers = []
    for old, new in (("mine", "HUSHHUSH"), ("yours", "FREE")):
        await env.ok("manage_tags", note_id=world.work_note, add=[old])
        tag = env.store.find_tag(old)
        assert tag is not None
        renamed = await env.ok("rename_tag", id=tag.id, title=new)
        answers.append({k: v for k, v in renamed.items() if k != "id"})
    assert answers[0] == {**answers[1], "title": "hushhush", "previous_title": "mine"}
    secret_tags = {t.title for t in env.store.note_tags(world.secret_note)}
    assert secret_tags == {"common", "hushhush"}  # the note outside kept its tag as it was


# Building scopes ---------------------------------------------------------------------------------


def test_a_scope_of_ids_includes_sub_notebooks_and_fails_closed(world: World) -> None:
    store = world.env.store
    assert Scope.of([world.work]).view(store).folder_ids == frozenset({world.work, world.projects})
    assert Scope.of([world.private]).view(store).folder_ids == frozenset({world.private, world.shared})
    assert Scope.of(["Work"]).view(store).folder_ids == frozenset()  # a title is no id: it matches nothing
    assert Scope.of(["0" * 32]).view(store).folder_ids == frozenset()
    assert Scope.of([]).unrestricted and Scope().view(store).unrestricted
    # a setting of nothing but blanks (`'["$NB"]'` with NB unset) shared every notebook: a list
    # that names nothing shares nothing, only no list at all means everything
    blanks = Scope.of(["", "  "])
    assert not blanks.unrestricted and blanks.view(store).folder_ids == frozenset()


async def test_a_scope_that_names_nothing_shows_nothing(world: World) -> None:
    env = world.env
    env.scoped("0" * 32)
    assert (await env.ok("search_notes", query="budget"))["total"] == 0
    assert (await env.ok("list_notebooks"))["notebooks"] == []
    assert (await env.ok("list_tags"))["tags"] == []


def test_allowed_notebooks_are_read_as_ids_and_names_only_once_resolved(world: World) -> None:
    settings, store = world.env.settings, world.env.store
    allowed = Settled(settings, store)
    assert allowed.scope().unrestricted
    settings.set("mcp.allowedNotebooks", f"Work, {world.shared}")
    assert allowed.scope().view(store).folder_ids == frozenset({world.shared})  # "Work": not yet an id
    allowed.settle()
    scope = allowed.scope()
    assert scope.named() == {world.work, world.shared} and scope.limits[0].source == "mcp.allowedNotebooks"
    assert scope.view(store).folder_ids == frozenset({world.work, world.projects, world.shared})
    assert settings.get(MCP_ALLOWED_NOTEBOOKS) == (world.work, world.shared)  # written back


def test_a_narrowed_scope_shows_only_what_every_list_allows(world: World) -> None:
    store = world.env.store
    both = Scope.of([world.work, world.private]).narrowed([world.projects, world.shared, world.secret], "c")
    # Secret is in the client's list but not in the global one: narrowing never widens
    assert both.view(store).folder_ids == frozenset({world.projects, world.shared})
    assert both.excluding(store.list_folders(), world.secret) == "mcp.allowedNotebooks"
    assert both.excluding(store.list_folders(), world.work) == "c"
    alone = Scope().narrowed([world.work], "c").view(store).folder_ids
    assert alone == frozenset({world.work, world.projects})
    assert Scope.of([world.work]).narrowed(None, "c") == Scope.of([world.work])
    assert Scope.of([world.work]).narrowed([], "c").view(store).folder_ids == frozenset()  # fails closed
    assert Scope.of([world.work]).narrowed([world.private], "c").view(store).folder_ids == frozenset()


async def test_note_history_numbers_revisions_within_the_note_in_a_scope(world: World) -> None:
    """The ids counted every revision of the profile, so a client saw edits made elsewhere (found
    by test_scope_property). Not vacuous: the unscoped call is checked to show the profile's ids."""
    env = world.env
    for text in ("one", "two"):
        env.store.update_note(world.secret_note, NotePatch(body=text), actor="user")
    env.store.update_note(world.work_note, NotePatch(body="edited"), actor="user")
    unscoped = await env.ok("note_history", id=world.work_note)
    assert [r["revision_id"] for r in unscoped["revisions"]][0] > 2
    scoped = await _scoped(world).ok("note_history", id=world.work_note)
    assert [r["revision_id"] for r in scoped["revisions"]] == list(range(len(scoped["revisions"]), 0, -1))

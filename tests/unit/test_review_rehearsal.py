"""A write in review mode is refused as the direct call is, on every backend, and writes nothing.

``ToolRegistry`` rehearses the tool's handler over ``noted.tools.rehearsal.ReadOnlyStore`` before it
stores a proposal. Each write tool has at least one call here that direct mode refuses (the table
must name them all, so a new write tool gets one); in review mode each gets the same status, words
and field, and leaves no proposal and no change. A call that would change nothing (``UNCHANGING``)
gets direct mode's answer and leaves no proposal either. Not vacuous: a valid call in review mode still
waits as a proposal, and the rehearsal of a call that would write nothing (a note with an
attachment) leaves no file behind either.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.backends import BACKENDS, LocalStore, open_backend
from tests.support.tools_env import MANAGE_TOOLS, WRITE_TOOLS, Env, make_env

from noted.models import ToolStatus
from noted.store.sqlite.review import SqliteReview
from noted.tools import all_tools
from noted.tools.rehearsal import STORE_WRITES, ReadOnlyStore, WouldWrite

MADE_UP = "0123456789abcdef0123456789abcdef"
TEXT = base64.b64encode(b"hello\n").decode()
Ids = dict[str, str]
CASES: list[tuple[str, Callable[[Ids], dict[str, Any]]]] = [
    ("create_notebook", lambda i: {"title": "X", "parent_id": MADE_UP}),
    ("update_notebook", lambda i: {"id": i["work"]}),
    ("update_notebook", lambda i: {"id": i["work"], "parent_id": i["sub"]}),
    ("delete_notebook", lambda i: {"id": MADE_UP}),
    ("restore_notebook", lambda i: {"id": MADE_UP}),
    ("create_tag", lambda i: {"title": " "}),
    ("rename_tag", lambda i: {"id": i["beta"], "title": "ALPHA"}),
    ("delete_tag", lambda i: {"id": MADE_UP}),
    ("attach_file", lambda i: {"note_id": i["note"], "filename": "a.png", "mime": "image/png", "content_base64": TEXT}),
    ("replace_attachment", lambda i: {"id": MADE_UP, "content_base64": TEXT}),
    ("delete_attachment", lambda i: {"id": MADE_UP}),
    ("create_note", lambda i: {"title": "r2", "notebook_id": MADE_UP}),
    ("create_note", lambda i: {"title": "r2", "body": "a", "body_html": "<p>b</p>"}),
    ("update_note", lambda i: {"id": i["note"], "append": "x", "body": "y"}),
    ("update_note", lambda i: {"id": i["note"]}),
    ("update_note", lambda i: {"id": i["note"], "replace_text": {"find": "not there", "replace": "y"}}),
    ("update_note", lambda i: {"id": i["note"], "append": "x", "base_updated_time": 1}),
    ("update_note", lambda i: {"id": i["note"], "notebook_id": MADE_UP}),
    ("delete_note", lambda i: {"id": MADE_UP}),
    ("restore_note", lambda i: {"id": MADE_UP}),
    ("manage_tags", lambda i: {"note_id": i["note"]}),
    ("manage_tags", lambda i: {"note_id": i["note"], "add": ["a"], "remove": ["A"]}),
    # what every store refuses (noted.store.rules), checked by the operation before its first write
    ("create_notebook", lambda i: {"title": "two\nlines"}),
    ("create_notebook", lambda i: {"title": " "}),
    ("update_note", lambda i: {"id": i["note"], "title": "two\nlines"}),
    ("manage_tags", lambda i: {"note_id": i["note"], "add": [" "]}),
    ("manage_tags", lambda i: {"note_id": i["note"], "add": ["two\nlines"]}),
    ("create_note", lambda i: {"title": "r2", "notebook_id": i["work"], "tags": ["ok", " "]}),
]  # fmt: skip


UNCHANGING: list[tuple[str, Callable[[Ids], dict[str, Any]]]] = [
    ("create_tag", lambda i: {"title": "ALPHA"}),
    ("manage_tags", lambda i: {"note_id": i["note"], "add": ["Alpha"]}),
    ("manage_tags", lambda i: {"note_id": i["note"], "remove": ["beta"]}),
    ("update_note", lambda i: {"id": i["note"], "body": "one\n"}),
    ("update_note", lambda i: {"id": i["note"], "title": "Plan"}),
    ("update_note", lambda i: {"id": i["note"], "notebook_id": i["work"]}),
    ("update_note", lambda i: {"id": i["note"], "tags": ["ALPHA"]}),
    ("update_note", lambda i: {"id": i["note"], "replace_text": {"find": "one", "replace": "one"}}),
    ("update_note", lambda i: {"id": i["todo"], "todo_completed": True}),
    ("update_note", lambda i: {"id": i["note"], "title": "Plan", "body": "one\n", "notebook_id": i["work"]}),
    ("update_notebook", lambda i: {"id": i["work"], "title": "Work"}),
    ("update_notebook", lambda i: {"id": i["sub"], "parent_id": i["work"]}),
    ("rename_tag", lambda i: {"id": i["alpha"], "title": "alpha"}),
    ("restore_note", lambda i: {"id": i["note"]}),
    ("restore_notebook", lambda i: {"id": i["work"]}),
]  # fmt: skip
"""Calls that would change nothing: direct mode writes nothing and says so; review mode answers alike."""


@pytest.fixture(params=BACKENDS)
def backend_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LocalStore]:
    with open_backend(request.param, tmp_path / "store") as store:
        yield store


@pytest.fixture
def env(backend_store: LocalStore, tmp_path: Path) -> Env:
    env = make_env(backend_store, tmp_path, enabled=(*WRITE_TOOLS, *MANAGE_TOOLS))
    env.ctx.review = SqliteReview(backend_store.db)
    return env


def _world(env: Env) -> Ids:
    work = env.folder("Work")
    ids = {"work": work, "sub": env.folder("Sub", work), "note": env.note(work, "Plan", "one\n")}
    for title in ("alpha", "beta"):
        ids[title] = env.store.create_tag(title, actor="user").id
    env.store.tag_note(ids["note"], ["alpha"], actor="user")
    return ids


def test_every_write_tool_has_a_refused_call_here() -> None:
    writes = {t.name for t in all_tools() if t.is_write and not t.editor}
    assert {name for name, _ in CASES} == writes


async def test_a_call_direct_mode_refuses_is_refused_alike_in_review_mode_with_nothing_written(
    env: Env,
) -> None:
    ids = _world(env)
    cursor = env.store.latest_cursor()
    for name, make in CASES:
        args = make(ids)
        env.ctx.writes_wait = True
        waiting = await env.registry.call(name, args, env.ctx)
        env.ctx.writes_wait = False
        at_once = await env.registry.call(name, args, env.ctx)
        assert at_once.status is ToolStatus.ERROR, (name, args, at_once)  # direct mode refuses it
        assert (waiting.status, waiting.message, waiting.field) == (
            at_once.status,
            at_once.message,
            at_once.field,
        )
    assert env.ctx.review is not None and env.ctx.review.proposals(state=None) == []
    assert env.store.latest_cursor() == cursor


async def test_a_valid_call_still_waits_and_its_rehearsal_leaves_nothing_behind(env: Env) -> None:
    ids = _world(env)
    cursor = env.store.latest_cursor()
    env.ctx.writes_wait = True
    attachment = {"filename": "a.txt", "mime": "text/plain", "content_base64": TEXT}
    args = {"title": "New", "notebook_id": ids["work"], "tags": ["gamma"], "attachments": [attachment]}
    answer = await env.ok("create_note", **args)
    assert answer["status"] == "pending_review"
    assert env.store.latest_cursor() == cursor  # no notebook, tag, attachment or note was written
    assert env.store.list_resources() == [] and env.store.find_tag("gamma") is None
    assert (await env.ok("update_note", id=ids["note"], append="two"))["status"] == "pending_review"
    assert env.ctx.review is not None and len(env.ctx.review.proposals()) == 2


async def test_a_call_that_would_change_nothing_is_answered_as_in_direct_mode_and_not_proposed(
    env: Env,
) -> None:
    """A tag the note has, the body it has, the notebook it is in: the person was asked to accept a
    change that was none. Not vacuous: the same call in direct mode succeeds, and the first test's
    valid calls still wait."""
    ids = _world(env)
    ids["todo"] = env.note(ids["work"], "Call", is_todo=True, todo_completed=1_700_000_000_000)
    cursor = env.store.latest_cursor()
    for name, make in UNCHANGING:
        args = make(ids)
        env.ctx.writes_wait = True
        waiting = await env.registry.call(name, args, env.ctx)
        env.ctx.writes_wait = False
        at_once = await env.registry.call(name, args, env.ctx)
        assert at_once.ok, (name, args, at_once)
        assert (waiting.status, waiting.payload) == (at_once.status, at_once.payload), (name, args)
        assert at_once.payload is not None and at_once.payload.get("changed", []) == [], (name, args)
        assert env.store.latest_cursor() == cursor, (name, args)  # direct mode wrote nothing either
    assert env.ctx.review is not None and env.ctx.review.proposals(state=None) == []


def test_the_read_only_store_reads_and_stops_at_the_first_write(backend_store: LocalStore) -> None:
    folder = backend_store.create_folder("Work", actor="user")
    rehearsed = ReadOnlyStore(backend_store)
    assert {"create_note", "update_note", "tag_note", "add_resource", "prune_history"} <= STORE_WRITES
    assert rehearsed.get_folder(folder.id) == folder  # reads reach the store
    with rehearsed.batch():  # groups nothing: no transaction, no lock
        with pytest.raises(WouldWrite):
            rehearsed.create_folder("Other", actor="user")
    assert [f.title for f in backend_store.list_folders()] == ["Work"]

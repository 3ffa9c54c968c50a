"""What joplin-md-sync's tool set has and noted lacked, on every backend:
``update_note(tags=…)`` replacing the tag set, ``create_tag``, and ``get_attachment`` (details
without content)."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.backends import BACKENDS, open_backend
from tests.support.tools_env import ACTOR, MANAGE_TOOLS, WRITE_TOOLS, Env, make_env

from noted.models import NotePatch, now_ms
from noted.store.protocol import Store


@pytest.fixture(params=BACKENDS)
def env(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Env]:
    with open_backend(request.param, tmp_path / "store") as store:
        yield make_env(store, tmp_path, enabled=(*WRITE_TOOLS, *MANAGE_TOOLS, "attach_file"))


def _tags(store: Store, note_id: str) -> list[str]:
    return sorted(t.title for t in store.note_tags(note_id))


async def test_update_note_tags_replace_the_whole_set(env: Env) -> None:
    note = env.note(env.folder("F"), "n", "body", tags=("old", "Keep"))
    cursor = env.store.latest_cursor()
    got = await env.ok("update_note", id=note, tags=["keep", "new", "NEW"])
    assert sorted(got["tags"]) == ["Keep", "new"]  # "keep" is the existing Keep; duplicates fold
    assert _tags(env.store, note) == ["Keep", "new"]
    assert got["changed"] == ["tags"]
    assert {c.actor for c in env.store.changes_since(cursor).changes} == {ACTOR}
    both = await env.ok("update_note", id=note, append="more", tags=[])
    assert both["tags"] == [] and _tags(env.store, note) == []
    assert env.store.get_note(note).body.endswith("more")


async def test_update_note_tags_with_a_stale_base_or_a_bad_title_write_nothing(env: Env) -> None:
    note = env.note(env.folder("F"), "n", "body", tags=("a",))
    before = env.store.get_note(note)
    while now_ms() == before.updated_time:  # the edit below must get a later updated_time
        pass
    env.store.update_note(note, NotePatch(append="x"), actor="user")
    cursor = env.store.latest_cursor()
    stale = await env.error(
        "update_note", id=note, tags=["b"], base_updated_time=before.updated_time, title="T"
    )
    assert stale.field == "base_updated_time"
    bad = await env.error("update_note", id=note, tags=["fine", "two\nlines"], body="new")
    assert bad.field == "tags"
    assert env.store.latest_cursor() == cursor and _tags(env.store, note) == ["a"]


async def test_create_tag_makes_one_and_returns_an_existing_one_unchanged(env: Env) -> None:
    made = await env.ok("create_tag", title="Project-X")
    assert made["created"] is True and made["title"] == "Project-X" and made["note_count"] == 0
    found = env.store.find_tag("project-x")
    assert found is not None and found.id == made["id"]
    cursor = env.store.latest_cursor()
    again = await env.ok("create_tag", title="PROJECT-X")
    assert again["created"] is False and again["id"] == made["id"] and again["title"] == "Project-X"
    assert env.store.latest_cursor() == cursor  # nothing written the second time
    assert (await env.error("create_tag", title="  ")).field == "title"


async def test_get_attachment_gives_the_details_without_the_content(env: Env) -> None:
    note = env.note(env.folder("F"), "n")
    data = b"secret content " * 100
    attached = await env.ok(
        "attach_file",
        note_id=note,
        filename="a.txt",
        mime="text/plain",
        content_base64=base64.b64encode(data).decode(),
    )
    got = await env.ok("get_attachment", id=attached["id"])
    assert (got["filename"], got["size"], got["mime"]) == ("a.txt", len(data), "text/plain")
    assert [n["id"] for n in got["notes"]] == [note]
    assert "secret content" not in str(got) and "text" not in got and "content_base64" not in got
    assert (await env.error("get_attachment", id="0" * 32)).field == "id"

"""The OpenAPI door over real HTTP (uvicorn on a loopback port): the document, every operation with
and without the token, sizes, switches, scope, a tunnel's Host, and the consent needed to start."""

from __future__ import annotations

import base64
import dataclasses
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from openapi_spec_validator import validate
from tests.integration.mcp_support import World, http_server, make_world
from tests.support.images import b64, image_bytes, size_of
from tests.support.polling import scaled

from noted.errors import ConfigError
from noted.mcp.actions import LEFT_OUT, MAX_OPERATIONS
from noted.mcp.http import HttpServer
from noted.mcp.options import HttpOptions
from noted.mcp.server import NotedMcp
from noted.mcp.token import create
from noted.models import NoteDraft, NotePatch
from noted.store.sqlite.review import SqliteReview
from noted.tools import all_tools

SERVED = {t.name for t in all_tools() if not t.editor and t.name not in LEFT_OUT} | {"broken_tool"}
"""Every tool the test world's server offers as an action (its registry has a tool with a bug too)."""


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = make_world(tmp_path / "profile")
    yield w
    w.close()


@pytest.fixture
def token(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "token"
    return path, create(path)


@asynccontextmanager
async def door(world: World, token: tuple[Path, str]) -> AsyncIterator[tuple[HttpServer, httpx.AsyncClient]]:
    """The server with actions on, and a client that sends the token and names itself."""
    headers = {"authorization": f"Bearer {token[1]}", "x-client-name": "Custom GPT"}
    async with http_server(world, token_file=token[0], actions=True, allow_remote=True) as http:
        base = f"http://127.0.0.1:{http.port}"
        async with httpx.AsyncClient(base_url=base, headers=headers, timeout=scaled(120)) as client:
            yield http, client


def _switch_everything_on(world: World) -> None:
    for tool in all_tools():
        world.settings.set(tool.setting_key, True)


async def test_openapi_json_is_valid_and_lists_the_tools_switched_on(
    world: World, token: tuple[Path, str]
) -> None:
    async with door(world, token) as (http, client):
        response = await client.get("/openapi.json")
        assert response.status_code == 200
        doc = response.json()
        validate(doc)
        names = {p.removeprefix("/actions/") for p in doc["paths"]}
        assert names == {t.name for t in http.mcp.offered()} and "create_note" not in names
        assert doc["servers"] == [{"url": f"http://127.0.0.1:{http.port}"}]
        world.settings.set("ai.tool.create_note.enabled", True)
        again = (await client.get("/openapi.json", params={"server": "https://notes.example.net"})).json()
        assert "/actions/create_note" in again["paths"]
        assert again["servers"] == [{"url": "https://notes.example.net"}]
        async with httpx.AsyncClient(base_url=str(client.base_url)) as anonymous:
            assert (await anonymous.get("/openapi.json")).status_code == 401


async def test_every_tool_switched_on_answers_at_the_door_and_is_listed_while_they_fit(
    world: World, token: tuple[Path, str]
) -> None:
    """``proposal_status`` (and ``find_notes``, ``note_links``) answered 404 at the door though
    switched on: a client writing there in review mode was told "proposal_status tells you what
    became of it" and could not ask. Every tool switched on now answers, under the same switches
    and scope; the document leaves some out only where all would not fit ChatGPT's cap."""
    world.deps = dataclasses.replace(world.deps, review=SqliteReview(world.store.db))
    world.settings.set("mcp.writes", "review")
    world.settings.set("ai.tool.update_note.enabled", True)
    async with door(world, token) as (http, client):
        names = {p.removeprefix("/actions/") for p in (await client.get("/openapi.json")).json()["paths"]}
        assert names == {t.name for t in http.mcp.offered() if not t.editor}  # as many as fit: all
        assert {"proposal_status", "find_notes", "note_links"} <= names
        written = await client.post("/actions/update_note", json={"id": world.work_note, "append": "More."})
        ref = written.json()["proposal"]  # it waits for the person
        asked = await client.post("/actions/proposal_status", json={"ids": [ref]})
        assert asked.status_code == 200, asked.text
        assert [(p["proposal"], p["status"]) for p in asked.json()["proposals"]] == [(ref, "pending")]
        for name, args, expected in (
            ("find_notes", {"query": "budget"}, (200, 400)),  # 400: no index built here
            ("note_links", {"id": world.work_note}, (200,)),
        ):
            response = await client.post(f"/actions/{name}", json=args)
            assert response.status_code in expected, f"{name}: {response.status_code} {response.text[:300]}"
        _switch_everything_on(world)
        world.settings.set("ai.tool.broken_tool.enabled", False)  # the test world's extra tool
        listed = (await client.get("/openapi.json")).json()["paths"]
        assert len(listed) == MAX_OPERATIONS and "/actions/proposal_status" not in listed
        assert (await client.post("/actions/proposal_status", json={})).status_code == 200  # still answers
        world.settings.set("ai.tool.proposal_status.enabled", False)
        assert (await client.post("/actions/proposal_status", json={})).status_code == 403  # its switch


def _calls(world: World, ids: dict[str, str]) -> list[tuple[str, dict[str, Any], tuple[int, ...]]]:
    """One call of every operation, in an order where each finds what it needs."""
    png = b64(image_bytes(64, 64))
    return [
        ("search_notes", {"query": "budget"}, (200,)),
        ("semantic_search_notes", {"query": "money"}, (200, 400)),  # 400: no index built here
        ("read_note", {"id": world.work_note}, (200,)),
        ("read_notes", {"ids": [world.work_note]}, (200,)),
        ("note_history", {"id": world.work_note}, (200,)),
        ("list_notes", {"notebook_id": world.work_id}, (200,)),
        ("list_tag_notes", {"tag_id": ids["tag"]}, (200,)),
        ("list_notebooks", {"include_trashed": True}, (200,)),
        ("list_tags", {}, (200,)),
        ("list_notebook_notes", {"notebook_id": world.work_id}, (200,)),
        ("get_notebook", {"id": world.work_id}, (200,)),
        ("get_tag", {"id": ids["tag"]}, (200,)),
        ("list_attachments", {"note_id": world.work_note}, (200,)),
        ("read_attachment", {"id": ids["resource"]}, (200,)),
        ("get_attachment", {"id": ids["resource"]}, (200,)),
        ("create_notebook", {"title": "Made over HTTP"}, (200,)),
        ("update_notebook", {"id": ids["spare"], "title": "Spare renamed"}, (200,)),
        ("delete_notebook", {"id": ids["spare"]}, (200,)),
        ("restore_notebook", {"id": ids["spare"]}, (200,)),
        ("create_tag", {"title": "made-over-http"}, (200,)),
        ("rename_tag", {"id": ids["tag"], "title": "renamed-tag"}, (200,)),
        ("delete_tag", {"id": ids["doomed_tag"]}, (200,)),
        (
            "attach_file",
            {"note_id": world.work_note, "filename": "a.png", "mime": "image/png", "content_base64": png},
            (200,),
        ),
        ("replace_attachment", {"id": ids["resource"], "content_base64": png}, (200,)),
        ("delete_attachment", {"id": ids["doomed_resource"]}, (200,)),
        ("create_note", {"title": "From HTTP", "notebook_id": world.work_id}, (200,)),
        ("update_note", {"id": world.work_note, "append": "Added over HTTP."}, (200,)),
        ("delete_note", {"id": ids["spare_note"]}, (200,)),
        ("restore_note", {"id": ids["spare_note"]}, (200,)),
        ("manage_tags", {"note_id": world.work_note, "add": ["http"]}, (200,)),
        ("broken_tool", {}, (500,)),  # a bug: 500, with no internals in the answer
    ]


def _prepare(world: World) -> dict[str, str]:
    store = world.store
    store.tag_note(world.work_note, ["budget-tag", "doomed"], actor="user")
    resource = store.add_resource(image_bytes(80, 40), filename="r.png", mime="image/png", actor="user")
    doomed = store.add_resource(b"bye", filename="bye.txt", mime="text/plain", actor="user")
    store.update_note(
        world.work_note, NotePatch(append=f"![r](:/{resource.id}) [bye](:/{doomed.id})"), actor="user"
    )
    spare = store.create_folder("Spare", parent_id=world.work_id, actor="user")
    spare_note = store.create_note(NoteDraft("Spare note", "", world.work_id), actor="user")
    tags = {t.title: t.id for t in store.list_tags()}
    return {
        "tag": tags["budget-tag"],
        "doomed_tag": tags["doomed"],
        "resource": resource.id,
        "doomed_resource": doomed.id,
        "spare": spare.id,
        "spare_note": spare_note.id,
    }


async def test_every_operation_answers_with_the_token_and_is_401_without(
    world: World, token: tuple[Path, str]
) -> None:
    _switch_everything_on(world)
    ids = _prepare(world)
    calls = _calls(world, ids)
    assert {name for name, _, _ in calls} == SERVED  # every operation of the document is called
    async with door(world, token) as (_, client):
        paths = set((await client.get("/openapi.json")).json()["paths"])
        assert paths == {f"/actions/{name}" for name in SERVED}
        cursor = world.store.latest_cursor()
        async with httpx.AsyncClient(base_url=str(client.base_url), timeout=scaled(120)) as anonymous:
            for name, args, _ in calls:
                refused = await anonymous.post(f"/actions/{name}", json=args)
                wrong = await anonymous.post(
                    f"/actions/{name}", json=args, headers={"authorization": "Bearer nope"}
                )
                assert (refused.status_code, wrong.status_code) == (401, 401), name
                assert "bearer token" in refused.json()["error"]
        assert world.store.latest_cursor() == cursor  # nothing written without the token
        for name, args, expected in calls:
            response = await client.post(f"/actions/{name}", json=args)
            assert response.status_code in expected, f"{name}: {response.status_code} {response.text[:300]}"
            assert "secret internals" not in response.text
    actors = {c.actor for c in world.store.changes_since(cursor).changes}
    assert actors == {"actions:self:Custom GPT"}


async def test_an_image_comes_back_as_a_file_and_its_description(
    world: World, token: tuple[Path, str]
) -> None:
    resource = world.store.add_resource(
        image_bytes(1024, 256), filename="wide.png", mime="image/png", actor="user"
    )
    world.store.update_note(world.work_note, NotePatch(append=f"![w](:/{resource.id})"), actor="user")
    async with door(world, token) as (_, client):
        body = (
            await client.post("/actions/read_attachment", json={"id": resource.id, "detail": "medium"})
        ).json()
    assert body["kind"] == "image" and body["image"]["width"] == 256
    (file,) = body["openaiFileResponse"]
    assert file["name"] == "wide.png" and file["mime_type"] == "image/png"
    assert size_of(base64.b64decode(file["content"])) == (256, 64)


async def test_refusals_name_what_to_do(world: World, token: tuple[Path, str]) -> None:
    async with door(world, token) as (_, client):
        off = await client.post("/actions/create_note", json={"title": "x"})
        assert off.status_code == 403 and "ai.tool.create_note.enabled" in off.json()["error"]
        unknown = await client.post("/actions/no_such_tool", json={})
        assert unknown.status_code == 404 and "search_notes" in unknown.json()["error"]
        editor = await client.post("/actions/editor_append", json={"text": "x"})
        assert editor.status_code == 404
        bad_json = await client.post("/actions/search_notes", content=b"{not json")
        assert bad_json.status_code == 400 and "JSON" in bad_json.json()["error"]
        bad_field = await client.post("/actions/search_notes", json={"query": "x", "limit": 1000})
        assert bad_field.status_code == 400 and bad_field.json()["field"] == "limit"
        not_found = await client.post("/actions/read_note", json={"id": "0" * 32})
        assert not_found.status_code == 400 and not_found.json()["field"] == "id"


async def test_deeply_nested_json_is_a_400_naming_the_problem(world: World, token: tuple[Path, str]) -> None:
    """``[`` x 200,000, or 3,000 levels inside an object, was a plain-text 500 with a RecursionError
    in the log; it is the documented ``{"error": …}`` 400, and the door serves on."""
    world.settings.set("ai.tool.create_note.enabled", True)
    bodies = [b"[" * 200_000, b'{"title": ' + b"[" * 3_000 + b"]" * 3_000 + b"}"]
    bodies += [b'{"title": ' + b"[" * depth + b"]" * depth + b"}" for depth in (500, 900)]
    before = world.store.latest_cursor()
    async with door(world, token) as (_, client):
        for body in bodies:
            response = await client.post("/actions/create_note", content=body)
            assert response.status_code == 400, (len(body), response.text[:200])
            assert "error" in response.json()
        assert (await client.post("/actions/search_notes", json={"query": "budget"})).status_code == 200
    assert world.store.latest_cursor() == before


async def test_the_scope_of_mcp_allowed_notebooks_applies(world: World, token: tuple[Path, str]) -> None:
    world.settings.set("mcp.allowedNotebooks", "Work")
    async with door(world, token) as (_, client):
        found = (await client.post("/actions/search_notes", json={"query": "budget"})).json()
        assert [r["id"] for r in found["results"]] == [world.work_note]
        hidden = await client.post("/actions/read_note", json={"id": world.private_note})
        assert hidden.status_code == 400 and "Secret" not in hidden.text


async def test_a_body_over_16_mib_is_413_saying_what_fits(world: World, token: tuple[Path, str]) -> None:
    world.settings.set("ai.tool.attach_file.enabled", True)
    cursor = world.store.latest_cursor()
    content = "A" * (16 * 1024 * 1024)
    async with door(world, token) as (_, client):
        response = await client.post(
            "/actions/attach_file",
            json={
                "note_id": world.work_note,
                "filename": "big.bin",
                "mime": "application/octet-stream",
                "content_base64": content,
            },
        )
    assert response.status_code == 413
    message = response.json()["error"]
    assert "16 MiB" in message and "10 MiB" in message
    assert world.store.latest_cursor() == cursor


async def test_a_tunnel_reaches_the_actions_under_its_own_name_but_not_mcp(
    world: World, token: tuple[Path, str]
) -> None:
    tunnel = {
        "host": "quiet-fox.tunnel.example",
        "x-forwarded-host": "quiet-fox.tunnel.example",
        "x-forwarded-proto": "https",
    }
    async with door(world, token) as (_, client):
        doc = await client.get("/openapi.json", headers=tunnel)
        assert doc.status_code == 200
        assert doc.json()["servers"] == [{"url": "https://quiet-fox.tunnel.example"}]
        called = await client.post("/actions/list_notebooks", json={}, headers=tunnel)
        assert called.status_code == 200
        mcp = await client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers=tunnel)
        assert mcp.status_code == 421


async def test_actions_are_absent_unless_switched_on(world: World, token: tuple[Path, str]) -> None:
    async with http_server(world, token_file=token[0]) as http:
        async with httpx.AsyncClient(headers={"authorization": f"Bearer {token[1]}"}) as client:
            base = f"http://127.0.0.1:{http.port}"
            assert (await client.get(base + "/openapi.json")).status_code == 404
            assert (await client.post(base + "/actions/search_notes", json={"query": "x"})).status_code == 404


async def test_consent_withdrawn_while_serving_closes_the_door_at_once(
    world: World, token: tuple[Path, str]
) -> None:
    # The door needs ai.allowRemote to start, but turning it off while the server ran left a remote
    # service reading and writing notes until a restart. Consent is now read at each request.
    world.settings.set("ai.allowRemote", True)
    options = HttpOptions.from_settings(world.settings, port=0, actions=True)
    options = dataclasses.replace(options, token_file=token[0], clients_file=None)
    http = HttpServer(NotedMcp(world.deps, poll_seconds=0.2), options)
    await http.start()
    try:
        headers = {"authorization": f"Bearer {token[1]}"}
        async with httpx.AsyncClient(headers=headers, timeout=scaled(120)) as client:
            base = f"http://127.0.0.1:{http.port}"
            before = await client.post(base + "/actions/search_notes", json={"query": "budget"})
            world.settings.set("ai.allowRemote", False)
            after = await client.post(base + "/actions/search_notes", json={"query": "budget"})
            document = await client.get(base + "/openapi.json")
    finally:
        await http.stop()
    assert before.status_code == 200  # not vacuous: served while consent was given
    assert (after.status_code, document.status_code) == (403, 403)
    assert "ai.allowRemote" in after.text and "budget" not in after.text.lower()


async def test_the_door_switched_off_while_serving_is_gone_at_once(
    world: World, token: tuple[Path, str]
) -> None:
    # Opened by mcp.actions.enabled (not --actions), the door stayed open after the switch went off.
    world.settings.set("ai.allowRemote", True)
    world.settings.set("mcp.actions.enabled", True)
    options = HttpOptions.from_settings(world.settings, port=0)
    options = dataclasses.replace(options, token_file=token[0], clients_file=None)
    http = HttpServer(NotedMcp(world.deps, poll_seconds=0.2), options)
    await http.start()
    try:
        headers = {"authorization": f"Bearer {token[1]}"}
        async with httpx.AsyncClient(headers=headers, timeout=scaled(120)) as client:
            base = f"http://127.0.0.1:{http.port}"
            before = await client.get(base + "/openapi.json")
            world.settings.set("mcp.actions.enabled", False)
            after = await client.post(base + "/actions/search_notes", json={"query": "budget"})
            document = await client.get(base + "/openapi.json")
    finally:
        await http.stop()
    assert before.status_code == 200  # not vacuous: served while switched on
    assert (after.status_code, document.status_code) == (404, 404)


async def test_the_server_does_not_start_actions_without_consent_or_token(
    world: World, token: tuple[Path, str]
) -> None:
    with pytest.raises(ConfigError, match="ai.allowRemote"):
        async with http_server(world, token_file=token[0], actions=True, allow_remote=False):
            pass
    with pytest.raises(ConfigError, match="noted mcp token"):
        async with http_server(world, actions=True, allow_remote=True):
            pass

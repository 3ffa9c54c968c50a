"""Named client tokens: each AI app its own notebooks, tools and actor.

Two clients of one server, as a person would set them up: "reader" may read Work only, "writer"
may use every tool switched on, in Private only. Each call goes through the SDK's client with the
client's token, so what each sees is what an AI app would see. Not vacuous: the same calls with
the main token (or no client tokens at all) see both notebooks and every switched-on tool.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from mcp.shared.exceptions import MCPError
from tests.integration.mcp_support import (
    ENVELOPE,
    LIST_HEADERS,
    World,
    http_client,
    http_server,
    make_world,
    raw_stdio,
    text_of,
)
from tests.support.polling import scaled

from noted.errors import ConfigError
from noted.mcp.client_tokens import ClientTokens
from noted.mcp.embedded import EmbeddedMcpServer
from noted.mcp.options import HttpOptions
from noted.mcp.token import create, write_private
from noted.settings.tomlfile import file_lock

LIST = LIST_HEADERS


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = make_world(tmp_path / "profile")
    w.settings.set("ai.tool.create_note.enabled", True)
    yield w
    w.close()


def _clients(world: World) -> tuple[ClientTokens, str, str]:
    clients = ClientTokens.beside(world.settings.path)
    reader = clients.add("reader", notebooks=["Work"], tools=["read"])
    writer = clients.add("writer", notebooks=["Private"], tools=["all"])
    return clients, reader, writer


def _bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_each_client_sees_its_own_notebooks_and_tools_and_writes_as_itself(
    world: World, mode: str
) -> None:
    clients, reader, writer = _clients(world)
    options = {"clients_file": clients.path}
    async with http_server(world, **options) as http:
        async with http_client(str(http.url), mode, name="Claude", headers=_bearer(reader)) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert "search_notes" in names and "create_note" not in names
            found = await client.call_tool("search_notes", {"query": "budget"})
            assert [r["id"] for r in found.structured_content["results"]] == [world.work_note]
            refused = await client.call_tool("create_note", {"title": "x", "notebook_id": world.work_id})
            assert refused.is_error and "reader" in text_of(refused)
        async with http_client(str(http.url), mode, name="Cursor", headers=_bearer(writer)) as client:
            assert "create_note" in {t.name for t in (await client.list_tools()).tools}
            found = await client.call_tool("search_notes", {"query": "budget"})
            assert [r["id"] for r in found.structured_content["results"]] == [world.private_note]
            made = await client.call_tool(
                "create_note", {"title": "By writer", "notebook_id": world.private_id}
            )
            assert not made.is_error, text_of(made)
            outside = await client.call_tool("create_note", {"title": "x", "notebook_id": world.work_id})
            assert outside.is_error
    note_id = made.structured_content["id"]
    assert {r.actor for r in world.store.note_history(note_id)} == {"mcp:writer"}  # not "mcp:Cursor"


async def test_with_client_tokens_every_request_needs_one_and_revoking_needs_no_restart(world: World) -> None:
    clients, reader, _ = _clients(world)
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": ENVELOPE}}
    async with (
        http_server(world, clients_file=clients.path) as http,
        httpx.AsyncClient(timeout=scaled(120)) as raw,
    ):
        assert (
            await raw.post(str(http.url), json=body, headers=LIST)
        ).status_code == 401  # loopback, no token
        assert (
            await raw.post(str(http.url), json=body, headers={**LIST, **_bearer(reader)})
        ).status_code == 200
        assert clients.revoke("reader")
        assert (
            await raw.post(str(http.url), json=body, headers={**LIST, **_bearer(reader)})
        ).status_code == 401


async def test_the_main_token_keeps_the_global_scope_beside_client_tokens(
    world: World, tmp_path: Path
) -> None:
    clients, _, _ = _clients(world)
    main = tmp_path / "main-token"
    token = create(main)
    async with http_server(world, clients_file=clients.path, token_file=main) as http:
        async with http_client(str(http.url), "legacy", headers=_bearer(token)) as client:
            found = await client.call_tool("search_notes", {"query": "budget"})
            assert {r["id"] for r in found.structured_content["results"]} == {
                world.work_note,
                world.private_note,
            }


async def test_the_embedded_server_honours_client_tokens(world: World) -> None:
    _, reader, _ = _clients(world)
    options = HttpOptions.from_settings(world.settings, port=0)  # as the app reads them (but any port)
    server = EmbeddedMcpServer(world.deps, options=options, poll_seconds=0)
    await server.start()
    try:
        assert server.url is not None and server.state.token_required  # the status bar says so
        async with http_client(server.url, "legacy", headers=_bearer(reader)) as client:
            assert "create_note" not in {t.name for t in (await client.list_tools()).tools}
        async with httpx.AsyncClient(timeout=scaled(120)) as raw:
            body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": ENVELOPE}}
            assert (await raw.post(server.url, json=body, headers=LIST)).status_code == 401
    finally:
        await server.stop()


async def test_stdio_serves_as_the_named_client_until_it_is_revoked(world: World) -> None:
    clients, _, _ = _clients(world)
    async with raw_stdio(world, "--client", "reader") as (send, reply):
        await send(b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}')
        names = {t["name"] for t in (await reply())["result"]["tools"]}
        assert "search_notes" in names and "create_note" not in names
        clients.revoke("reader")
        await send(b'{"jsonrpc": "2.0", "id": 2, "method": "tools/list"}')
        answer = await reply()
        assert answer["id"] == 2 and "revoked" in answer["error"]["message"]
    async with raw_stdio(world, "--client", "writer") as (send, reply):
        call = {"name": "create_note", "arguments": {"title": "By writer", "notebook_id": world.private_id}}
        await send(json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call}).encode())
        made = (await reply())["result"]
        assert not made.get("isError"), made
    history = world.store.note_history(made["structuredContent"]["id"])
    assert {r.actor for r in history} == {"mcp:writer"}  # the token's name, not the app's ("raw")


async def test_a_client_added_again_under_a_revoked_name_is_not_served_by_the_old_session(
    world: World,
) -> None:
    # a stdio server started with --client reader was refused once reader was revoked, but served
    # the new "reader" (its notebooks, its actor) as soon as one was added again by that name
    clients, _, _ = _clients(world)
    async with raw_stdio(world, "--client", "reader") as (send, reply):
        call = {"name": "list_notebooks", "arguments": {}}
        request = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}
        await send(json.dumps(request).encode())
        listed = (await reply())["result"]["structuredContent"]["notebooks"]
        assert [n["id"] for n in listed] == [world.work_id]  # served as the reader it started as
        clients.revoke("reader")
        clients.add("reader", notebooks=[world.private_id], tools=["all"])
        await send(json.dumps({**request, "id": 2}).encode())
        answer = await reply()
    assert answer["id"] == 2 and "revoked" in answer["error"]["message"], answer
    async with raw_stdio(world, "--client", "reader") as (send, reply):  # not vacuous: a new session is
        await send(json.dumps({**request, "id": 3}).encode())
        listed = (await reply())["result"]["structuredContent"]["notebooks"]
    assert [n["id"] for n in listed] == [world.private_id]


async def test_an_unknown_tool_is_answered_with_the_tools_of_the_caller_only(world: World) -> None:
    # a read-only client calling "foo" was told every tool switched on, create_note among them
    clients, reader, writer = _clients(world)
    told = {}
    async with http_server(world, clients_file=clients.path) as http:
        for name, token in (("reader", reader), ("writer", writer)):
            async with http_client(str(http.url), "legacy", headers=_bearer(token)) as client:
                with pytest.raises(MCPError) as caught:
                    await client.call_tool("foo", {})
                told[name] = caught.value.error.message
    assert 'Unknown tool "foo"' in told["reader"] and "search_notes" in told["reader"]
    assert "create_note" not in told["reader"]
    assert "create_note" in told["writer"]  # not vacuous: it is on, and the writer may use it
    async with raw_stdio(world, "--client", "reader") as (send, reply):
        call = {"name": "foo", "arguments": {}}
        await send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}).encode())
        message = (await reply())["error"]["message"]
    assert "search_notes" in message and "create_note" not in message, message


def test_client_tokens_are_checked_like_the_token_file(tmp_path: Path) -> None:
    clients = ClientTokens(tmp_path / "real.json")
    clients.add("a")
    link = tmp_path / "link.json"
    link.symlink_to(clients.path)
    with pytest.raises(Exception) as caught:
        HttpOptions(port=0, clients_file=link).open_clients()
    assert "symbolic link" in str(caught.value)
    clients.path.chmod(0o644)
    with pytest.raises(Exception) as loose:
        HttpOptions(port=0, clients_file=clients.path).open_clients()
    assert "other users" in str(loose.value)


def test_a_client_whose_notebooks_are_missing_from_the_file_is_no_client_for_every_notebook(
    tmp_path: Path,
) -> None:
    # noted writes `"notebooks": null` for a client that sees every notebook; an entry edited by hand
    # to have no notebooks at all read as null, and the client saw everything. The file is now
    # refused as any broken one is (every request answered 503 until it is fixed).
    clients = ClientTokens(tmp_path / "clients.json")
    clients.add("work", notebooks=["0" * 32])
    document = json.loads(clients.path.read_text(encoding="utf-8"))
    assert clients.entries()[0].notebooks == ("0" * 32,)  # not vacuous: limited while it is sound
    del document["clients"][0]["notebooks"]
    clients.path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(ConfigError, match="its notebooks are missing"):
        ClientTokens(clients.path).entries()


def test_a_client_whose_writes_are_missing_from_the_file_is_refused_as_a_broken_file(tmp_path: Path) -> None:
    # noted writes "writes" for every client; an entry edited by hand to have none read as direct,
    # so a client in review mode wrote at once. Like missing notebooks, the file is refused.
    clients = ClientTokens(tmp_path / "clients.json")
    clients.add("bot", writes="review")
    assert clients.entries()[0].writes_wait  # not vacuous: review while the entry is sound
    document = json.loads(clients.path.read_text(encoding="utf-8"))
    del document["clients"][0]["writes"]
    clients.path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(ConfigError, match="its writes are missing"):
        ClientTokens(clients.path).entries()


async def test_a_client_whose_tools_are_missing_from_the_file_gets_no_tool(world: World) -> None:
    # noted writes "tools" for every client; an entry edited by hand to have none read as "all", so a
    # client limited to reading called the write tools switched on. Like missing notebooks or
    # writes, the file is refused: every request is answered 503 until it is fixed.
    clients = ClientTokens.beside(world.settings.path)
    reader = clients.add("reader", notebooks=[world.work_id], tools=["read"])
    document = json.loads(clients.path.read_text(encoding="utf-8"))
    del document["clients"][0]["tools"]
    async with http_server(world, clients_file=clients.path) as http:
        async with http_client(str(http.url), "2026-07-28", headers=_bearer(reader)) as client:
            refused = await client.call_tool("create_note", {"title": "By the reader", "body": "x"})
            assert refused.is_error  # not vacuous: a reader may not write while its entry is sound
            clients.path.write_text(json.dumps(document), encoding="utf-8")
            with pytest.raises(MCPError, match="client tokens file cannot be used"):
                await client.call_tool("create_note", {"title": "By the reader", "body": "x"})
    assert [n.title for n in world.store.list_notes() if n.title == "By the reader"] == []


def test_a_revoke_racing_an_add_in_another_process_stays_revoked(tmp_path: Path) -> None:
    # Each edit of mcp-clients.json wrote back the entries it had read: a revoke made while another
    # process's add was under way came undone when that add wrote, and the revoked token worked
    # again. An edit now holds the file's lock from its read to its write. Here the test is the
    # other process: it holds the lock, writes its add, and only then lets the revoke go on.
    clients = ClientTokens(tmp_path / "clients.json")
    clients.add("cursor")
    document = json.loads(clients.path.read_text(encoding="utf-8"))
    added = {**document["clients"][0], "name": "newbie", "sha256": "0" * 64}
    document["clients"].append(added)
    revoking = ClientTokens(clients.path)
    with file_lock(clients.path):
        worker = threading.Thread(target=revoking.revoke, args=("cursor",))
        worker.start()
        worker.join(scaled(2))
        assert worker.is_alive()  # it waits for the lock (one that did not was done in a millisecond)
        write_private(clients.path, json.dumps(document))
    worker.join()
    assert [e.name for e in ClientTokens(clients.path).entries()] == ["newbie"]

"""Who gets in over HTTP: revoked tokens stay out, the door opens only by command, sessions stay
with their token, and a connection that never finishes its headers is closed.

Each case is what a person does (the real ``noted`` command line, in-process through ``main``)
and what an AI app then gets (the SDK's client over HTTP, or raw ``httpx`` where the status code
is the point), on ``noted mcp serve``'s server and on the one inside the app. Not vacuous: before
the fix a revoked last token, and any request without one, got 200 and the global scope (issue 33).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.integration.mcp_support import (
    ACCEPT,
    LIST_BODY,
    LIST_HEADERS,
    Cli,
    World,
    add_client,
    bearer,
    cli_runner,
    http_client,
    http_server,
    make_world,
    noted_command,
    raw_stdio,
)
from tests.support.polling import scaled

from noted.errors import ConfigError
from noted.mcp.client_tokens import ClientTokens
from noted.mcp.embedded import EmbeddedMcpServer
from noted.mcp.options import HttpOptions
from noted.mcp.token import create

MODERN, LIST = LIST_HEADERS, LIST_BODY


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = make_world(tmp_path / "profile")
    w.settings.set("ai.tool.create_note.enabled", True)
    yield w
    w.close()


@pytest.fixture
def cli(world: World, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    return cli_runner(world, capsys, monkeypatch)


@asynccontextmanager
async def serving(world: World, where: str) -> AsyncIterator[str]:
    """The URL of ``noted mcp serve``'s server (``serve``) or of the app's (``app``)."""
    clients_file = ClientTokens.beside(world.settings.path).path
    if where == "serve":
        async with http_server(world, clients_file=clients_file) as http:
            assert http.url is not None
            yield http.url
        return
    server = EmbeddedMcpServer(
        world.deps, options=HttpOptions.from_settings(world.settings, port=0), poll_seconds=0
    )
    await server.start()
    try:
        assert server.url is not None and server.state.token_required
        yield server.url
    finally:
        await server.stop()


async def _status(url: str, headers: dict[str, str] | None = None) -> int:
    async with httpx.AsyncClient(timeout=scaled(120)) as raw:
        return (await raw.post(url, json=LIST, headers={**MODERN, **(headers or {})})).status_code


# a revoked token stays out ---------------------------------------------------------------------


@pytest.mark.parametrize("where", ["serve", "app"])
async def test_a_revoked_last_token_answers_401_at_its_next_request(
    world: World, cli: Cli, where: str
) -> None:
    """The issue's reproduction: no main token, one client token, revoked while serving."""
    token = add_client(cli, "solo", "--notebooks", "Work", "--tools", "read")
    notes_before = len(world.store.list_notes())
    async with serving(world, where) as url:
        async with http_client(url, "legacy", name="Claude", headers=bearer(token)) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert "search_notes" in names and "create_note" not in names
            code, out, _ = cli("mcp", "token", "revoke", "solo")
            assert code == 0
            with pytest.raises(Exception):  # noqa: B017 - the SDK client surfaces the 401 as it may
                await client.call_tool("create_note", {"title": "x", "notebook_id": world.private_id})
        async with http_client(url, "2026-07-28", name="Claude", headers=bearer(token)) as client:
            with pytest.raises(Exception):  # noqa: B017
                await client.call_tool("create_note", {"title": "x", "notebook_id": world.private_id})
        assert await _status(url, bearer(token)) == 401
        assert await _status(url) == 401  # and no token at all: the door stayed closed
    assert len(world.store.list_notes()) == notes_before  # nothing was written, under any name
    assert "401" in out and "next request" in out
    assert "there is none left, so every HTTP request is refused" in out
    assert "noted mcp token open" in out  # the revoke message says how to open the door


async def test_revoke_says_which_tokens_still_get_in(world: World, cli: Cli, tmp_path: Path) -> None:
    add_client(cli, "a")
    add_client(cli, "b")
    main_token = tmp_path / "main"
    create(main_token)
    world.settings.set("mcp.tokenFile", str(main_token))
    code, out, _ = cli("mcp", "token", "revoke", "a")
    assert code == 0
    assert f"the client token left (b) or the main token in {main_token}" in out


async def test_the_list_names_the_main_token_when_no_client_has_one(
    world: World, cli: Cli, tmp_path: Path
) -> None:
    # With no client token and a main token set, the list said "requests on loopback need no
    # token", while the server refused every request without the main token.
    code, out, _ = cli("mcp", "token", "list")
    assert code == 0 and "requests on loopback need no token" in out
    main_token = tmp_path / "main"
    create(main_token)
    world.settings.set("mcp.tokenFile", str(main_token))
    code, out, _ = cli("mcp", "token", "list")
    assert code == 0 and f"requests need the main token in {main_token}" in out, out


async def test_the_door_opens_only_by_command_and_says_what_it_opens(world: World, cli: Cli) -> None:
    token = add_client(cli, "solo")
    code, _, err = cli("mcp", "token", "open")
    assert code == 2 and "while client tokens exist (solo)" in err  # scoped tokens beside an open door
    assert cli("mcp", "token", "revoke", "solo")[0] == 0
    async with serving(world, "serve") as url:
        assert await _status(url) == 401
        code, out, _ = cli("mcp", "token", "open")
        assert code == 0
        assert "need no token" in out and "every notebook" in out and "every tool switched on" in out
        async with http_client(url, "legacy") as client:  # no token: the person opened the door
            assert (await client.list_tools()).tools
        assert await _status(url, bearer(token)) == 200  # a revoked token is just ignored now
        code, out, _ = cli("mcp", "token", "close")
        assert code == 0 and "every HTTP request needs a valid token" in out
        assert await _status(url) == 401


async def test_the_app_shows_a_token_needed_once_the_door_is_closed(world: World, cli: Cli) -> None:
    add_client(cli, "solo")
    cli("mcp", "token", "revoke", "solo")
    server = EmbeddedMcpServer(
        world.deps, options=HttpOptions.from_settings(world.settings, port=0), poll_seconds=0
    )
    await server.start()
    try:
        assert server.state.token_required  # the status bar must not say "no token" after a revoke
    finally:
        await server.stop()


async def test_the_banner_names_the_main_token_and_the_client_tokens(
    world: World, cli: Cli, tmp_path: Path
) -> None:
    add_client(cli, "claude", "--notebooks", "Work")
    main_token = tmp_path / "main"
    create(main_token)
    world.settings.set("mcp.tokenFile", str(main_token))
    world.settings.set("mcp.allowedNotebooks", "Work")
    process = await asyncio.create_subprocess_exec(
        *noted_command(), "--profile", str(world.profile.root), "mcp", "serve", "--port", "0",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert process.stdout is not None
    try:
        banner: list[str] = []
        while not banner or not banner[-1].startswith("  health"):
            banner.append((await asyncio.wait_for(process.stdout.readline(), scaled(180))).decode())
    finally:
        process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(process.communicate(), scaled(180))
    text = "".join(banner)
    assert f"<the token in {main_token}>" in text and "<a client token (claude" in text, text
    assert "notebooks (mcp.allowedNotebooks): Work" in text  # the setting's names, as paths


# sessions and connections ------------------------------------------------------------------------


async def test_a_session_answers_only_the_token_that_opened_it(world: World, cli: Cli) -> None:
    first, second = add_client(cli, "first"), add_client(cli, "second")
    async with serving(world, "serve") as url, httpx.AsyncClient(timeout=scaled(120)) as raw:
        info = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "a", "version": "1"},
        }
        opened = await raw.post(
            url, json={"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": info},
            headers={**ACCEPT, **bearer(first)},
        )  # fmt: skip
        session = {"mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        stolen = await raw.post(url, json=ping, headers={**ACCEPT, **session, **bearer(second)})
        assert stolen.status_code == 404  # as for a session that does not exist
        own = await raw.post(url, json=ping, headers={**ACCEPT, **session, **bearer(first)})
        assert own.status_code == 200
        async with http_client(url, "legacy", headers=bearer(second)) as client:
            assert (await client.list_tools()).tools  # the second token opens its own session


async def test_a_connection_that_never_finishes_its_headers_is_closed(world: World) -> None:
    async with http_server(world, header_timeout=0.5) as http:
        assert http.port is not None
        reader, writer = await asyncio.open_connection("127.0.0.1", http.port)
        writer.write(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: applica")  # and nothing more
        await writer.drain()
        closed = await asyncio.wait_for(reader.read(), scaled(60))  # EOF once the server gives up
        assert closed == b""
        writer.close()
        reader, writer = await asyncio.open_connection("127.0.0.1", http.port)  # one that sends nothing
        assert await asyncio.wait_for(reader.read(), scaled(60)) == b""
        writer.close()
        async with http_client(str(http.url), "legacy") as client:  # whole requests are answered as ever
            assert (await client.list_tools()).tools


async def test_a_body_that_trickles_in_is_refused_and_its_connection_closed(world: World) -> None:
    """Complete headers, then a byte at a time: each byte comes in time for an idle timeout, so
    only a rate the body must keep ends it. Before the fix the connection was held for as long as
    the client kept dribbling (a slowloris on the body), and this read never ended."""
    async with http_server(world, body_timeout=0.5) as http:
        assert http.port is not None
        reader, writer = await asyncio.open_connection("127.0.0.1", http.port)
        head = f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {10**6}\r\n"
        writer.write(f"{head}Content-Type: application/json\r\nAccept: {ACCEPT['accept']}\r\n\r\n".encode())

        async def trickle() -> None:
            while not writer.is_closing():
                writer.write(b" ")
                await writer.drain()
                await asyncio.sleep(0.05)

        dribbling = asyncio.create_task(trickle())
        answer = await asyncio.wait_for(reader.read(), scaled(60))  # up to EOF: the server closes
        dribbling.cancel()
        with contextlib.suppress(asyncio.CancelledError, ConnectionError):
            await dribbling
        writer.close()
        assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]
        assert b"-32600" in answer and b"too slowly" in answer
        async with http_client(str(http.url), "legacy") as client:  # whole requests are answered as ever
            assert (await client.list_tools()).tools


# smaller points --------------------------------------------------------------------------------


async def test_params_null_is_400_and_invalid_request_over_http_and_stdio(world: World) -> None:
    body = {"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": None}
    async with http_server(world) as http, httpx.AsyncClient(timeout=scaled(120)) as raw:
        answer = await raw.post(str(http.url), json=body, headers=MODERN)
    assert answer.status_code == 400
    assert answer.json()["id"] == 7 and answer.json()["error"]["code"] == -32600
    async with raw_stdio(world) as (send, reply):
        await send(json.dumps(body).encode())
        got = await reply()
    assert got["id"] == 7 and got["error"]["code"] == -32600


async def test_problems_with_the_clients_file_are_named_as_such(world: World, cli: Cli) -> None:
    add_client(cli, "solo")
    path = ClientTokens.beside(world.settings.path).path
    async with serving(world, "serve") as url, httpx.AsyncClient(timeout=scaled(120)) as raw:
        path.chmod(0o644)
        refused = await raw.post(url, json=LIST, headers=MODERN)
        said = refused.json()["error"]["message"]
        assert refused.status_code == 503 and said.startswith("The server's client tokens file cannot"), said
        assert "token file cannot" not in refused.json()["error"]["message"].replace("tokens file", "")
    with pytest.raises(ConfigError) as caught:
        HttpOptions(port=0, clients_file=path).open_clients()
    assert str(caught.value).startswith(f"the client tokens file {path} can be used by other users")
    path.chmod(0o600)
    path.write_text("{not json")
    path.chmod(0o600)
    code, _, err = cli("mcp", "token", "list")
    assert (
        code != 0 and "the client tokens file" in err and "token file " not in err.replace("tokens file ", "")
    )


async def test_a_client_added_by_an_older_noted_keeps_its_scope(world: World, cli: Cli) -> None:
    """A version 1 file holds titles and ``[]`` for all; it is resolved once, and never fails open."""
    clients = ClientTokens.beside(world.settings.path)
    token = add_client(cli, "old")
    document: dict[str, Any] = json.loads(clients.path.read_text())
    document["version"], document["clients"][0]["notebooks"] = 1, ["Work"]
    del document["door"]
    clients.path.write_text(json.dumps(document))
    async with serving(world, "serve") as url:
        async with http_client(url, "legacy", headers=bearer(token)) as client:
            found = await client.call_tool("search_notes", {"query": "budget"})
            assert [r["id"] for r in found.structured_content["results"]] == [world.work_note]
    rewritten = json.loads(clients.path.read_text())
    assert rewritten["version"] == 2 and rewritten["clients"][0]["notebooks"] == [world.work_id]
    assert rewritten["door"] == "closed"

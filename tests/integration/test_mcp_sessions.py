"""One token cannot crowd the others out of the HTTP server's sessions (``noted.mcp.sessions``).

The SDK's session manager refused every client's ``initialize`` once any one client had opened
10,000 sessions. Here each token holds at most ``sessions_per_token`` (2 in these tests, so a few
requests show it): past it, its own session left idle the longest is closed, and only when all of
its sessions are busy is its ``initialize`` refused (429). Not vacuous: without the quota the first
session still answers after the third opens, and the third busy client's ``initialize`` succeeds.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp.shared.exceptions import MCPError
from tests.integration.mcp_support import World, bearer, http_client, http_server, make_world, wait_for

from noted.mcp.client_tokens import ClientTokens
from noted.mcp.token import create

ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
VERSION = "2025-06-18"
INFO = {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}
LIMIT = 2


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = make_world(tmp_path / "profile", semantic=False)
    yield w
    w.close()


def _tokens(world: World) -> tuple[dict[str, Any], str, str]:
    """The server's options, a client token ("flood", reads only) and the main token."""
    main = create(world.profile.root / "token")
    clients = ClientTokens.beside(world.settings.path)
    flood = clients.add("flood", tools=["read"])
    options = {"token_file": world.profile.root / "token", "clients_file": clients.path}
    return {**options, "sessions_per_token": LIMIT}, flood, main


async def _open(raw: httpx2.AsyncClient, url: str, token: str, id_: int = 1) -> httpx2.Response:
    return await raw.post(url, json=_initialize(id_), headers={**ACCEPT, **bearer(token)})


async def _list_status(raw: httpx2.AsyncClient, url: str, token: str, session: str) -> int:
    headers = {**ACCEPT, **bearer(token), "mcp-session-id": session, "mcp-protocol-version": VERSION}
    body = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    return (await raw.post(url, json=body, headers=headers)).status_code


async def test_past_its_limit_a_token_closes_its_own_oldest_idle_session_and_others_are_unaffected(
    world: World,
) -> None:
    options, flood, main = _tokens(world)
    async with http_server(world, **options) as http, httpx2.AsyncClient() as raw:
        url = str(http.url)
        kept = await _open(raw, url, main)  # another token's session, opened first: the oldest
        assert kept.status_code == 200
        sessions = []
        for _ in range(LIMIT + 3):
            opened = await _open(raw, url, flood)
            assert opened.status_code == 200, opened.text  # a client never locks itself out
            sessions.append(opened.headers["mcp-session-id"])
        statuses = [await _list_status(raw, url, flood, s) for s in sessions]
        # the newest LIMIT answer; the older ones were closed to make way (404: initialize anew)
        assert statuses == [404] * 3 + [200] * LIMIT, statuses
        assert await _list_status(raw, url, main, kept.headers["mcp-session-id"]) == 200
        async with http_client(url, "legacy", headers=bearer(main)) as other:
            assert (await other.list_tools()).tools


async def test_a_token_whose_sessions_are_all_busy_is_refused_with_a_clear_error(world: World) -> None:
    options, flood, main = _tokens(world)
    gets: list[int] = []

    async def seen(response: httpx2.Response) -> None:
        if response.request.method == "GET":
            gets.append(response.status_code)

    async with http_server(world, **options) as http, httpx2.AsyncClient() as raw:
        url = str(http.url)
        async with AsyncExitStack() as busy:
            for _ in range(LIMIT):  # each SDK client keeps its session's notice stream (a GET) open
                await busy.enter_async_context(
                    http_client(url, "legacy", headers=bearer(flood), on_response=seen)
                )
            await wait_for(lambda: gets.count(200) == LIMIT)
            refused = await _open(raw, url, flood, id_=7)
            assert refused.status_code == 429, refused.text
            answer = refused.json()
            assert answer["id"] == 7 and answer["error"]["code"] == -32600
            assert "Too many open MCP sessions: this token holds 2" in answer["error"]["message"]
            # the SDK's client shows that message as its initialize's error
            refusal = pytest.RaisesExc(MCPError, match="Too many open MCP sessions")
            with pytest.RaisesGroup(refusal, flatten_subgroups=True):
                async with http_client(url, "legacy", headers=bearer(flood)):
                    pass
            # another token is unaffected
            async with http_client(url, "legacy", headers=bearer(main)) as other:
                assert (await other.list_tools()).tools
        # the busy clients ended their sessions on the way out: the token has room again
        async with http_client(url, "legacy", headers=bearer(flood)) as again:
            assert (await again.list_tools()).tools


async def test_one_token_cannot_take_every_listen_stream(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the server-wide limit is one above a token's, so one token alone would reach it
    monkeypatch.setattr("noted.mcp.listens.MAX_STREAMS", LIMIT + 1)
    monkeypatch.setattr("noted.mcp.listens.LISTENS_PER_TOKEN", LIMIT, raising=False)
    options, flood, main = _tokens(world)
    async with (
        http_server(world, **options) as http,
        http_client(str(http.url), "2026-07-28", headers=bearer(flood)) as flooder,
        http_client(str(http.url), "2026-07-28", headers=bearer(main)) as other,
        AsyncExitStack() as streams,
    ):
        for _ in range(LIMIT):
            await streams.enter_async_context(flooder.listen(tools_list_changed=True))
        with pytest.raises(MCPError, match="Too many notice streams open for this token"):
            await streams.enter_async_context(flooder.listen(tools_list_changed=True))
        async with other.listen(tools_list_changed=True):  # another token still listens
            pass


async def test_requests_without_a_token_share_one_quota(world: World) -> None:
    async with http_server(world, sessions_per_token=LIMIT) as http, httpx2.AsyncClient() as raw:
        url = str(http.url)
        opened = [await raw.post(url, json=_initialize(), headers=ACCEPT) for _ in range(LIMIT + 1)]
        sessions = [o.headers["mcp-session-id"] for o in opened]
        statuses = []
        for session in sessions:
            headers = {**ACCEPT, "mcp-session-id": session, "mcp-protocol-version": VERSION}
            listed = await raw.post(
                url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=headers
            )
            statuses.append(listed.status_code)
        assert statuses == [404] + [200] * LIMIT, statuses


def _initialize(id_: int = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "method": "initialize", "params": INFO}

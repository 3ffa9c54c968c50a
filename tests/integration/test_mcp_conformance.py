"""The conformance gaps an outside probe found over both transports.

Each test sends what the probe sent, raw, and checks the answer a client really gets; each failed
before its fix (the socket option was 0, invalid ids got HTTP 202 or silence, symlinks and a
non-ASCII token were accepted, duplicate headers got 200, the 413 body was not JSON-RPC, and
``/readyz`` said ok while ``/mcp`` answered 503).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from tests.integration.mcp_support import (
    World,
    accepted_nodelay,
    http_client,
    http_server,
    make_world,
    raw_stdio,
    wait_for,
)
from tests.support.polling import scaled

from noted.errors import ConfigError
from noted.mcp.embedded import EmbeddedMcpServer
from noted.mcp.options import HttpOptions
from noted.mcp.token import create

MODERN = {"mcp-protocol-version": "2026-07-28"}
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
}
LIST = {**ACCEPT, **MODERN, "mcp-method": "tools/list"}
BAD_IDS = ["true", "false", "1.5", "NaN", "-Infinity", "1e999", "9" * 5000, "null", '{"a": [1]}', "[[[[1]]]]"]
"""Raw JSON for each id the probe sent; the 5,000-digit one is past what Python will parse."""


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    w = make_world(tmp_path_factory.mktemp("mcp-conformance") / "profile")
    yield w
    w.close()


def _with_id(raw_id: str, *, envelope: bool) -> bytes:
    params = f', "params": {{"_meta": {json.dumps(ENVELOPE)}}}' if envelope else ""
    return f'{{"jsonrpc": "2.0", "id": {raw_id}, "method": "tools/list"{params}}}'.encode()


def _assert_invalid_request(answer: dict[str, Any]) -> None:
    assert answer["jsonrpc"] == "2.0" and answer["id"] is None, answer
    assert answer["error"]["code"] == -32600, answer


# 1. TCP_NODELAY ---------------------------------------------------------------------------------


async def test_accepted_connections_have_tcp_nodelay_set(shared: World) -> None:
    async with http_server(shared) as http, httpx.AsyncClient(timeout=scaled(120)) as raw:
        assert (await raw.get(f"http://127.0.0.1:{http.port}/healthz")).status_code == 200
        # the connection is kept alive, so the server still holds its socket
        await wait_for(lambda: len(accepted_nodelay(http)) == 1)
        assert all(value != 0 for value in accepted_nodelay(http))  # 0 as shipped: Nagle on


async def test_the_embedded_server_sets_tcp_nodelay_too(shared: World) -> None:
    server = EmbeddedMcpServer(shared.deps, options=HttpOptions(port=0), poll_seconds=0)
    await server.start()
    try:
        http = server._http
        assert http is not None
        async with httpx.AsyncClient(timeout=scaled(120)) as raw:
            assert (await raw.get(f"http://127.0.0.1:{http.port}/healthz")).status_code == 200
            await wait_for(lambda: len(accepted_nodelay(http)) == 1)
            assert all(value != 0 for value in accepted_nodelay(http))
    finally:
        await server.stop()


# 2. invalid ids ----------------------------------------------------------------------------------


async def test_http_answers_every_invalid_id_with_a_json_rpc_error_in_both_eras(shared: World) -> None:
    async with http_server(shared) as http, httpx.AsyncClient(timeout=scaled(120)) as raw:
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "r", "version": "1"},
            },
        }
        opened = await raw.post(str(http.url), json=init, headers=ACCEPT)
        legacy = {
            **ACCEPT,
            "mcp-session-id": opened.headers["mcp-session-id"],
            "mcp-protocol-version": "2025-06-18",
        }
        for raw_id in BAD_IDS:
            for headers, envelope in ((legacy, False), (LIST, True)):
                response = await raw.post(
                    str(http.url), content=_with_id(raw_id, envelope=envelope), headers=headers
                )
                assert response.status_code == 400, (raw_id[:20], response.status_code, response.text)
                _assert_invalid_request(response.json())
        # a good id still works on the same session
        fine = await raw.post(str(http.url), content=_with_id('"ok"', envelope=False), headers=legacy)
        assert fine.status_code == 200 and fine.json()["id"] == "ok"


async def test_http_answers_what_is_no_json_rpc_message_with_invalid_request(shared: World) -> None:
    bodies = [b"[]", b"5", b'{"no": "method"}', b'{"jsonrpc": "1.0", "id": 1, "method": "tools/list"}']
    async with http_server(shared) as http, httpx.AsyncClient(timeout=scaled(120)) as raw:
        for body in bodies:  # the SDK said -32602 (invalid params) to these
            response = await raw.post(str(http.url), content=body, headers=LIST)
            assert response.status_code == 400, (body, response.text)
            _assert_invalid_request(response.json())


async def test_stdio_answers_every_invalid_id_with_a_json_rpc_error(shared: World) -> None:
    async with raw_stdio(shared) as (send, reply):
        for raw_id in BAD_IDS:
            await send(_with_id(raw_id, envelope=False))
            _assert_invalid_request(await reply())
        await send(b'{"jsonrpc": "2.0", "id": 9007199254740993, "method": "ping"}')  # a 64-bit id is fine
        assert (await reply()) == {"jsonrpc": "2.0", "id": 9007199254740993, "result": {}}


# 3. the token file and duplicate headers ----------------------------------------------------------


def test_a_symlinked_or_non_ascii_token_file_is_refused_at_start(tmp_path: Path) -> None:
    real = tmp_path / "real"
    create(real)
    link = tmp_path / "link"
    link.symlink_to(real)
    foreign = tmp_path / "foreign"
    foreign.write_text("é" * 40 + os.urandom(32).hex() + "\n")
    os.chmod(foreign, 0o600)
    big = tmp_path / "big"
    big.write_text(os.urandom(4000).hex())
    os.chmod(big, 0o600)
    for path, reason in ((link, "symbolic link"), (foreign, "printable ASCII"), (big, "too large")):
        with pytest.raises(ConfigError) as caught:
            HttpOptions(port=0, token_file=path).open_token()
        assert reason in str(caught.value), path
        assert "chmod" not in (caught.value.hint or ""), "the mode is not the problem here"


async def test_a_symlink_swapped_in_at_run_time_stops_the_server_answering(
    shared: World, tmp_path: Path
) -> None:
    path = tmp_path / "token"
    token = create(path)
    elsewhere = tmp_path / "elsewhere"
    create(elsewhere)
    async with http_server(shared, token_file=path) as http, httpx.AsyncClient(timeout=scaled(120)) as raw:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": ENVELOPE}}
        good = {**LIST, "authorization": f"Bearer {token}"}
        assert (await raw.post(str(http.url), json=body, headers=good)).status_code == 200
        ready = f"http://127.0.0.1:{http.port}/readyz"
        assert (await raw.get(ready)).status_code == 200
        path.unlink()
        path.symlink_to(elsewhere)
        refused = await raw.post(str(http.url), json=body, headers=good)
        assert refused.status_code == 503
        _assert_invalid_request(refused.json())  # a JSON-RPC error an MCP client can show
        # 6. /readyz agrees with /mcp
        not_ready = await raw.get(ready)
        assert not_ready.status_code == 503, not_ready.text


async def test_duplicate_authorization_and_origin_headers_are_400(shared: World, tmp_path: Path) -> None:
    path = tmp_path / "token"
    token = create(path)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": ENVELOPE}})
    async with http_server(shared, token_file=path) as http, httpx.AsyncClient(timeout=scaled(120)) as raw:
        own = f"http://127.0.0.1:{http.port}"
        good = [*LIST.items(), ("authorization", f"Bearer {token}")]
        assert (await raw.post(str(http.url), content=body, headers=good)).status_code == 200  # not vacuous
        cases = {
            "Authorization": [*good, ("authorization", "Bearer " + "x" * 64)],
            "Origin": [*good, ("origin", own), ("origin", "https://evil.example")],
        }
        for name, headers in cases.items():
            response = await raw.post(str(http.url), content=body, headers=headers)
            assert response.status_code == 400, (name, response.text)
            assert name in response.json()["error"]["message"]


# 4. the 413 body ---------------------------------------------------------------------------------


async def test_a_too_large_request_gets_a_json_rpc_error_naming_the_limit(shared: World) -> None:
    async with http_server(shared, max_body=1000) as http, httpx.AsyncClient(timeout=scaled(120)) as raw:
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"x": "y" * 2000}})
        response = await raw.post(str(http.url), content=body, headers=LIST)
    assert response.status_code == 413
    answer = response.json()
    _assert_invalid_request(answer)
    assert "1,000 bytes" in answer["error"]["message"]


# tools/list from its cache -----------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_cached_tools_list_follows_every_switch(shared: World, mode: str) -> None:
    key = "ai.tool.create_note.enabled"
    async with http_server(shared) as http, http_client(str(http.url), mode) as client:
        first = await client.list_tools()
        assert await client.list_tools() == first  # the second answer came from the cache
        for on in (True, False, True):
            shared.settings.set(key, on)
            names = {t.name for t in (await client.list_tools()).tools}
            assert ("create_note" in names) is on  # not vacuous: the cache key names the tools on
    shared.settings.set(key, False)


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_cursor_this_server_never_gave_is_invalid_params(shared: World, mode: str) -> None:
    """Every tool comes in one page, with no ``nextCursor``, so any cursor is one no answer gave:
    the specification's pagination page says it SHOULD get -32602. Before the fix it got the
    first page again, which a client paging on would take for more tools (and loop on)."""
    async with http_server(shared) as http, http_client(str(http.url), mode) as client:
        first = await client.list_tools()
        assert first.next_cursor is None
        with pytest.raises(MCPError) as caught:
            await client.list_tools(cursor="eyJwYWdlIjogMn0=")
        assert caught.value.error.code == INVALID_PARAMS and "cursor" in caught.value.error.message
        assert await client.list_tools() == first  # and the first page is still served


@pytest.mark.parametrize("method", ["PUT", "PATCH"])
async def test_a_method_the_endpoint_lacks_is_405_whatever_its_body(shared: World, method: str) -> None:
    """Before the fix a PUT or PATCH carrying ``{}`` was checked as if it were a message and told
    'the message must say "jsonrpc": "2.0"' (400), sending its client after the wrong problem;
    the same request with an empty body got 405. Not vacuous: the body is what changed the answer."""
    async with http_server(shared) as http, httpx.AsyncClient(timeout=scaled(120)) as raw:
        for body in (b"", b"{}", b"[1]"):
            answer = await raw.request(method, str(http.url), content=body, headers=ACCEPT)
            assert answer.status_code == 405, (body, answer.text)
            assert answer.headers["allow"] == "GET, POST, DELETE"

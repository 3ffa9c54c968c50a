"""What the HTTP server refuses, and that it stays up: token, Origin, Host, size, malformed input.

Raw requests go through ``httpx`` so the status codes and bodies are what a client really gets; the
SDK's client then checks the server still serves. ``MCP-Protocol-Version: 2026-07-28`` sends a
request down the sessionless path; without it, the handshake-era path answers.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from tests.integration.mcp_support import World, http_client, http_server, make_world
from tests.support.polling import scaled

from noted.errors import ConfigError
from noted.mcp.http import HttpServer
from noted.mcp.options import HttpOptions
from noted.mcp.server import NotedMcp
from noted.mcp.token import create
from noted.settings.handles import MCP_TOKEN_FILE

MODERN = {"mcp-protocol-version": "2026-07-28"}
LIST = {**MODERN, "mcp-method": "tools/list"}
"""A sessionless request carries its method in a header too."""
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
}


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    w = make_world(tmp_path_factory.mktemp("mcp-guard") / "profile")
    yield w
    w.close()


@pytest.fixture
def world(shared: World) -> Iterator[World]:
    yield shared
    shared.settings.path.unlink(missing_ok=True)
    shared.settings.reload()


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "token"
    create(path)
    return path


def _request(method: str, params: dict[str, Any] | None = None, id_: int = 1) -> dict[str, Any]:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        body["params"] = params
    return body


# the bearer token ----------------------------------------------------------------------------


async def test_missing_or_wrong_token_is_401_and_the_right_one_works(world: World, token_file: Path) -> None:
    token = token_file.read_text().strip()
    async with http_server(world, token_file=token_file) as http:
        async with httpx.AsyncClient(timeout=scaled(120)) as raw:
            body = _request("tools/list", {"_meta": ENVELOPE})
            missing = await raw.post(str(http.url), json=body, headers={**ACCEPT, **MODERN})
            assert missing.status_code == 401
            assert missing.headers["www-authenticate"].startswith("Bearer")
            wrong = {**ACCEPT, **MODERN, "authorization": "Bearer " + "x" * 64}
            assert (await raw.post(str(http.url), json=body, headers=wrong)).status_code == 401
            healthy = await raw.get(f"http://127.0.0.1:{http.port}/healthz")  # no data, no token needed
            assert healthy.status_code == 200
        for mode in ("legacy", "2026-07-28"):
            async with http_client(
                str(http.url), mode, headers={"authorization": f"Bearer {token}"}
            ) as client:
                assert (await client.list_tools()).tools


async def test_a_replaced_token_applies_without_a_restart(world: World, token_file: Path) -> None:
    async with http_server(world, token_file=token_file) as http:
        old = token_file.read_text().strip()
        new = create(token_file, overwrite=True)
        async with httpx.AsyncClient(timeout=scaled(120)) as raw:
            body = _request("tools/list", {"_meta": ENVELOPE})
            for token, status in ((old, 401), (new, 200)):
                headers = {**ACCEPT, **LIST, "authorization": f"Bearer {token}"}
                assert (await raw.post(str(http.url), json=body, headers=headers)).status_code == status


async def test_a_token_set_while_serving_is_required_at_once(world: World, tmp_path: Path) -> None:
    # `noted mcp token` while a loopback server ran without one said "mcp.tokenFile now points at
    # it", and the server kept answering every caller on this machine with no token until restarted.
    # It now follows the setting as it follows a replaced file; a token file unusable is a 503.
    async with http_server(world) as http, httpx.AsyncClient(timeout=scaled(120)) as raw:
        body = _request("tools/list", {"_meta": ENVELOPE})
        before = await raw.post(str(http.url), json=body, headers={**ACCEPT, **LIST})
        token = create(tmp_path / "later-token")
        world.settings.set(MCP_TOKEN_FILE, str(tmp_path / "later-token"))
        missing = await raw.post(str(http.url), json=body, headers={**ACCEPT, **LIST})
        given = {**ACCEPT, **LIST, "authorization": f"Bearer {token}"}
        right = await raw.post(str(http.url), json=body, headers=given)
        (tmp_path / "later-token").chmod(0o644)  # made unsafe: refused, never open again
        unsafe = await raw.post(str(http.url), json=body, headers={**ACCEPT, **LIST})
        world.settings.unset(MCP_TOKEN_FILE)  # unset while serving: the token stays needed until a restart
        (tmp_path / "later-token").chmod(0o600)
        unset = await raw.post(str(http.url), json=body, headers={**ACCEPT, **LIST})
    assert before.status_code == 200  # not vacuous: open before the token was set
    assert (missing.status_code, right.status_code, unsafe.status_code, unset.status_code) == (
        401,
        200,
        503,
        401,
    )


def test_unsafe_token_files_are_refused_at_start_with_the_reason(world: World, tmp_path: Path) -> None:
    loose = tmp_path / "loose"
    create(loose)
    os.chmod(loose, 0o644)
    weak = tmp_path / "weak"
    weak.write_text("password123\n")
    os.chmod(weak, 0o600)
    repetitive = tmp_path / "repetitive"
    repetitive.write_text("ab" * 64)
    os.chmod(repetitive, 0o600)
    cases = {
        loose: "other users",
        weak: "too weak",
        repetitive: "too weak",
        tmp_path: "not a regular file",
        tmp_path / "absent": "does not exist",
    }
    for path, reason in cases.items():
        with pytest.raises(ConfigError) as caught:
            HttpOptions(port=0, token_file=path).open_token()
        assert reason in str(caught.value), path


async def test_listening_beyond_loopback_requires_a_token(world: World, token_file: Path) -> None:
    http = HttpServer(NotedMcp(world.deps), HttpOptions(host="0.0.0.0", port=0))
    with pytest.raises(ConfigError) as caught:
        await http.start()
    assert "noted mcp token" in str(caught.value)
    assert not http.running


# browsers and DNS rebinding --------------------------------------------------------------------


async def test_browser_origins_need_allowing_and_foreign_hosts_are_refused(world: World) -> None:
    async with http_server(world, allowed_origins=("https://ok.example",)) as http:
        async with httpx.AsyncClient(timeout=scaled(120)) as raw:
            body = _request("tools/list", {"_meta": ENVELOPE})
            headers = {**ACCEPT, **LIST}
            evil = await raw.post(
                str(http.url), json=body, headers={**headers, "origin": "https://evil.example"}
            )
            assert evil.status_code == 403
            ok = await raw.post(str(http.url), json=body, headers={**headers, "origin": "https://ok.example"})
            assert ok.status_code == 200
            rebound = await raw.post(
                str(http.url), json=body, headers={**headers, "host": f"evil.example:{http.port}"}
            )
            assert rebound.status_code == 421


async def test_a_sessionless_client_without_client_info_is_named_by_its_user_agent(world: World) -> None:
    world.settings.set("ai.tool.update_note.enabled", True)
    envelope = {k: v for k, v in ENVELOPE.items() if not k.endswith("clientInfo")}
    params = {"name": "update_note", "arguments": {"id": world.work_note, "append": "UA."}, "_meta": envelope}
    headers = {
        **ACCEPT,
        **MODERN,
        "mcp-method": "tools/call",
        "mcp-name": "update_note",
        "user-agent": "raw-agent/2.0",
    }
    async with http_server(world) as http, httpx.AsyncClient(timeout=scaled(120)) as raw:
        response = await raw.post(str(http.url), json=_request("tools/call", params), headers=headers)
    assert response.status_code == 200 and not response.json()["result"].get("isError"), response.text
    assert "mcp:self:raw-agent" in {r.actor for r in world.store.note_history(world.work_note)}


# size ----------------------------------------------------------------------------------------


async def test_a_body_over_16_mib_is_413_saying_what_fits(world: World) -> None:
    limit = 16 * 1024 * 1024
    padding = "x" * (limit + 1 - 100)
    body = json.dumps(
        _request("tools/call", {"name": "search_notes", "arguments": {"query": padding}})
    ).encode()
    assert len(body) > limit

    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: the limit must hold while reading
        for start in range(0, len(body), 1 << 20):
            yield body[start : start + (1 << 20)]

    async with http_server(world) as http:
        async with httpx.AsyncClient(timeout=scaled(120)) as raw:
            declared = await raw.post(str(http.url), content=body, headers={**ACCEPT, **MODERN})
            streamed = await raw.post(str(http.url), content=chunks(), headers={**ACCEPT, **MODERN})
        for response in (declared, streamed):
            assert response.status_code == 413
            assert "16 MiB" in response.json()["error"]["message"]
        async with http_client(str(http.url), "2026-07-28") as client:
            assert (await client.list_tools()).tools


# the JSON-RPC rules ----------------------------------------------------------------------------


async def test_notifications_get_202_in_both_eras(world: World) -> None:
    async with http_server(world) as http:
        async with httpx.AsyncClient(timeout=scaled(120)) as raw:
            note = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}
            modern = await raw.post(str(http.url), json=note, headers={**ACCEPT, **MODERN})
            assert modern.status_code == 202 and modern.content == b""

            init = _request(
                "initialize",
                {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"},
                },
            )
            opened = await raw.post(str(http.url), json=init, headers=ACCEPT)
            assert opened.status_code == 200
            session = {
                "mcp-session-id": opened.headers["mcp-session-id"],
                "mcp-protocol-version": "2025-06-18",
            }
            done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            legacy = await raw.post(str(http.url), json=done, headers={**ACCEPT, **session})
            assert legacy.status_code == 202 and legacy.content == b""


@pytest.mark.parametrize("headers", [MODERN, {}], ids=["2026-07-28", "legacy"])
async def test_malformed_json_is_a_parse_error(world: World, headers: dict[str, str]) -> None:
    async with http_server(world) as http:
        async with httpx.AsyncClient(timeout=scaled(120)) as raw:
            response = await raw.post(
                str(http.url), content=b'{"jsonrpc": "2.0", "id": 1,', headers={**ACCEPT, **headers}
            )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32700


async def test_a_bounded_fuzz_of_malformed_messages_leaves_the_server_answering(world: World) -> None:
    rng = random.Random(20261130)
    bodies = [_fuzzed(rng) for _ in range(200)]
    statuses: dict[int, int] = {}
    async with http_server(world) as http:
        async with httpx.AsyncClient(timeout=scaled(120)) as raw:
            session = await _open_session(raw, str(http.url))
            with anyio.fail_after(scaled(240)):
                for index, body in enumerate(bodies):
                    # odd ones down the sessionless path (routing headers as a client sends them),
                    # even ones inside an initialized handshake-era session
                    routing = _routing(body) if index % 2 else session
                    response = await raw.post(str(http.url), content=body, headers={**ACCEPT, **routing})
                    statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
                    assert response.status_code < 500, (body[:200], response.text)
        async with http_client(str(http.url), "legacy") as client:
            assert not (await client.call_tool("search_notes", {"query": "budget"})).is_error
        async with http_client(str(http.url), "2026-07-28") as client:
            assert not (await client.call_tool("search_notes", {"query": "budget"})).is_error
    # not vacuous: the fuzz got past the transport into the JSON-RPC layer, not just 400s at the door
    assert statuses.get(200, 0) >= 15, statuses


async def _open_session(raw: httpx.AsyncClient, url: str) -> dict[str, str]:
    info = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "fuzz", "version": "1"},
    }
    opened = await raw.post(url, json=_request("initialize", info), headers=ACCEPT)
    session = {"mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
    done = await raw.post(
        url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers={**ACCEPT, **session}
    )
    assert done.status_code == 202
    return session


def _routing(body: bytes) -> dict[str, str]:
    headers = dict(MODERN)
    try:
        decoded = json.loads(body)
    except (ValueError, RecursionError):
        return headers
    if isinstance(decoded, dict) and isinstance(decoded.get("method"), str) and decoded["method"].isascii():
        headers["mcp-method"] = decoded["method"]
        params = decoded.get("params")
        if isinstance(params, dict) and isinstance(params.get("name"), str) and params["name"].isascii():
            headers["mcp-name"] = params["name"]
    return headers


_METHODS = [
    "tools/call",
    "tools/list",
    "initialize",
    "ping",
    "server/discover",
    "subscriptions/listen",
    "x/y",
    "",
]


def _fuzzed(rng: random.Random) -> bytes:
    """One malformed (or merely odd) message: random bytes, cut JSON, wrong types, odd envelopes."""
    good = _request(
        "tools/call",
        {"name": "search_notes", "arguments": {"query": "budget"}, "_meta": dict(ENVELOPE)},
        id_=rng.randint(1, 9),
    )
    kind = rng.randrange(8)
    if kind == 0:
        return rng.randbytes(rng.randint(0, 300))
    text = json.dumps(good)
    if kind == 1:
        return text[: rng.randint(0, len(text) - 1)].encode()
    if kind == 2:
        return ("[" * rng.randint(1, 5000)).encode()
    if kind == 3:
        return json.dumps([good, good]).encode()
    if kind == 4:
        good["params"]["arguments"] = rng.choice([None, 5, "x", [1], {"query": 5}, {"query": "a" * 5000}])
    elif kind == 5:
        good["method"] = rng.choice(_METHODS)
        good["params"] = rng.choice(
            [None, [], "x", 3, {"_meta": {"io.modelcontextprotocol/protocolVersion": 1}}]
        )
    elif kind == 6:
        good["id"] = rng.choice([None, [], {}, 1.5, True, "", "x" * 1000])
        good["jsonrpc"] = rng.choice(["2.0", "1.0", 2, None])
    else:
        odd: object = rng.choice(
            [{}, {"jsonrpc": "2.0"}, {"id": 1}, {"result": {}, "id": 1, "jsonrpc": "2.0"}, 10**400]
        )
        return json.dumps(odd).encode()
    return json.dumps(good).encode()

"""A ``tools/call`` whose ``arguments`` is no JSON object, or whose ``name`` is no string, is told so.

The SDK answered both with ``-32602 Invalid request parameters`` and an empty ``data``, over stdio
and HTTP alike, so a client that sent its arguments as a string holding JSON (a common slip) could
not learn what to change. Each request here got that bare answer before.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.integration.mcp_support import LIST_HEADERS, World, http_server, make_world, raw_stdio
from tests.support.polling import scaled

ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
}
CASES: list[tuple[dict[str, Any], str]] = [
    ({"name": "search_notes", "arguments": '{"query": "budget"}'}, "a string (send the JSON itself"),
    ({"name": "search_notes", "arguments": ["budget"]}, "arguments must be a JSON object"),
    ({"name": 5, "arguments": {}}, "name must be the tool's name, a string"),
]


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = make_world(tmp_path / "profile", semantic=False)
    yield w
    w.close()


def _request(number: int, params: dict[str, Any], *, envelope: bool = False) -> dict[str, Any]:
    sent = {**params, "_meta": ENVELOPE} if envelope else params
    return {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": sent}


def _assert_says(answer: dict[str, Any], number: int, words: str) -> None:
    assert answer["id"] == number, answer
    assert answer["error"]["code"] == -32602, answer
    assert words in answer["error"]["message"], answer


async def test_stdio_says_what_is_wrong_with_a_calls_params(world: World) -> None:
    async with raw_stdio(world) as (send, reply):
        for number, (params, words) in enumerate(CASES, start=1):
            await send(json.dumps(_request(number, params)).encode())
            _assert_says(await reply(), number, words)
        await send(b'{"jsonrpc": "2.0", "method": "tools/call", "params": {"name": 5}}')  # a notification:
        await send(b'{"jsonrpc": "2.0", "id": 99, "method": "ping"}')  # no answer before the ping's
        assert await reply() == {"jsonrpc": "2.0", "id": 99, "result": {}}
        fine = _request(100, {"name": "search_notes", "arguments": {"query": "budget"}})
        await send(json.dumps(fine).encode())
        assert not (await reply())["result"]["isError"]


async def test_http_says_what_is_wrong_with_a_calls_params(world: World) -> None:
    async with http_server(world) as http, httpx.AsyncClient(timeout=scaled(120)) as raw:
        for number, (params, words) in enumerate(CASES, start=1):
            headers = {**LIST_HEADERS, "mcp-method": "tools/call", "mcp-name": str(params["name"])}
            body = _request(number, params, envelope=True)
            response = await raw.post(str(http.url), json=body, headers=headers)
            _assert_says(response.json(), number, words)

"""A tool call whose arguments nest arrays and objects too deeply: valid JSON, refused by name.

The SDK's JSON reader (pydantic's) stops at about 200 levels, and said so in three ways: "Parse
error: the line is not valid JSON" on stdio and "recursion limit exceeded" over legacy HTTP, both
with a null id, so an SDK client's call waited until it timed out; the sessionless path read up to
~1,000 levels with Python's reader and then answered a bare "Parse error". Now every transport
answers the same line, naming the limit, with the request's own id, writes nothing, and goes on
serving. Not vacuous: the same call nested 150 deep reaches the tool (whose answer names the
unknown field), and a plain call afterwards creates a note.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp.shared.exceptions import MCPError
from tests.integration.mcp_support import (
    ENVELOPE,
    MODES,
    World,
    actions_door,
    call_headers,
    http_client,
    http_server,
    raw_create_note,
    raw_stdio,
    rpc_refusal,
    work_titles,
    world_with,
)
from tests.support.polling import scaled

from noted.mcp.wire import MAX_DEPTH, depth_problem

DEEP = (
    f"Invalid Request: the message nests arrays and objects more than {MAX_DEPTH} levels deep, more "
    "than noted reads; nothing was done: send the arguments less deeply nested"
)
"""Written out whole, so the words themselves are checked (the door's are ``depth_problem``'s)."""
DEPTHS = (250, 5000)
"""Just past the SDK's reader, and past Python's own (which gives up near 1,000)."""


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = world_with(tmp_path / "profile", "create_note")
    yield w
    w.close()


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def _call(world: World, depth: int, id_: int | str = 7, meta: dict[str, Any] | None = None) -> bytes:
    """A ``create_note`` request whose extra argument ``x`` is ``depth`` arrays inside each other."""
    return raw_create_note(world, "deep", f', "x": {_nested(depth)}', id_=id_, meta=meta)


async def test_stdio_names_the_nesting_limit_and_serves_on(world: World) -> None:
    async with raw_stdio(world) as (send, reply):
        await send(_call(world, 150))
        shallow = await reply()  # reaches the tool: not too deep
        assert shallow["result"]["content"][0]["text"].startswith('unknown field "x"')
        for depth in DEPTHS:
            await send(_call(world, depth, id_=f"deep-{depth}"))
            assert await reply() == rpc_refusal(f"deep-{depth}", DEEP)
        await send(raw_create_note(world, "deep"))
        assert "result" in await reply()
    assert work_titles(world) == {"Quarter budget", "deep"}


@pytest.mark.parametrize("modern", [True, False], ids=["2026-07-28", "legacy"])
async def test_http_names_the_nesting_limit(world: World, modern: bool) -> None:
    headers = call_headers(modern)
    async with http_server(world) as http, httpx.AsyncClient(timeout=scaled(120)) as raw:
        for depth in DEPTHS:
            body = _call(world, depth, meta=ENVELOPE if modern else None)
            answer = await raw.post(str(http.url), content=body, headers=headers)
            assert answer.status_code == 400
            assert answer.json() == rpc_refusal(7, DEEP)
    assert work_titles(world) == {"Quarter budget"}


@pytest.mark.parametrize("mode", MODES)
async def test_the_sdk_client_hears_the_refusal_of_its_own_call(world: World, mode: str) -> None:
    """With the request's id in the answer the client's call ends at once, with the reason,
    rather than waiting for an answer that never comes; the session then serves on."""
    deep: Any = []
    for _ in range(MAX_DEPTH):
        deep = [deep]
    async with http_server(world) as http, http_client(str(http.url), mode) as client:
        with pytest.raises(MCPError, match=f"more than {MAX_DEPTH} levels deep"):
            await client.call_tool("create_note", {"title": "deep", "notebook_id": world.work_id, "x": deep})
        made = await client.call_tool("create_note", {"title": "after", "notebook_id": world.work_id})
        assert not made.is_error
    assert work_titles(world) == {"Quarter budget", "after"}


async def test_the_openapi_door_names_the_same_limit(world: World, tmp_path: Path) -> None:
    """``POST /actions/create_note`` takes the arguments as its body: the same limit, in the same words."""
    async with actions_door(world, tmp_path) as post:
        for depth in DEPTHS:
            body = f'{{"title": "deep", "notebook_id": "{world.work_id}", "x": {_nested(depth)}}}'
            answer = await post("create_note", body.encode())
            assert answer.status_code == 400
            assert answer.json()["error"] == depth_problem("the request body")
    assert work_titles(world) == {"Quarter budget"}

"""A JSON string holding an unpaired surrogate (``"\\ud800"``): valid JSON, but no text.

Python's JSON reader takes it; the SDK's does not. Over HTTP the answer was ``-32700 Parse error:
unexpected end of hex escape`` (pydantic's words) and over stdio "the line is not valid JSON", both
untrue, and both with a null id, so an SDK client's call waited for an answer until it timed out.
Now both transports answer the same one line, with the request's id, and write nothing. Not
vacuous: the same call with the surrogate paired (a real character) creates the note.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.integration.mcp_support import ACCEPT, ENVELOPE, World, http_server, raw_stdio, world_with
from tests.support.polling import scaled

from noted.mcp.token import create

LONE = "Invalid Request: a string in the message holds an unpaired surrogate (\\ud800), which JSON allows but no text can hold; send text as UTF-8 (a character beyond U+FFFF as a pair of \\u escapes)"  # noqa: E501


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = world_with(tmp_path / "profile", "create_note")
    yield w
    w.close()


def _call(world: World, title: str, id_: int | str = 7, meta: dict[str, Any] | None = None) -> bytes:
    """A ``create_note`` request whose title is ``title`` written as JSON escapes (``\\ud800``)."""
    arguments = f'{{"title": "{title}", "notebook_id": "{world.work_id}"}}'
    envelope = f', "_meta": {json.dumps(meta)}' if meta else ""
    return (
        f'{{"jsonrpc": "2.0", "id": {json.dumps(id_)}, "method": "tools/call", '
        f'"params": {{"name": "create_note", "arguments": {arguments}{envelope}}}}}'
    ).encode()


def _titles(world: World) -> set[str]:
    return {n.title for n in world.store.list_notes(folder_id=world.work_id)}


def _refusal(id_: int | str | None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "error": {"code": -32600, "message": LONE}}


async def test_stdio_names_an_unpaired_surrogate_and_writes_nothing(world: World) -> None:
    async with raw_stdio(world) as (send, reply):
        await send(_call(world, "lone \\ud800 here"))
        assert await reply() == _refusal(7)
        await send(_call(world, "\\udc00 low first", id_="x"))
        assert (await reply())["error"]["message"] == LONE.replace("ud800", "udc00")
        await send(_call(world, "paired \\ud83d\\ude00", id_=8))
        assert "result" in await reply()
    assert _titles(world) == {"Quarter budget", "paired \U0001f600"}


@pytest.mark.parametrize("modern", [True, False], ids=["2026-07-28", "legacy"])
async def test_http_names_an_unpaired_surrogate_and_writes_nothing(world: World, modern: bool) -> None:
    headers = (
        {
            **ACCEPT,
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tools/call",
            "mcp-name": "create_note",
        }
        if modern
        else ACCEPT
    )
    body = _call(world, "lone \\ud800 here", meta=ENVELOPE if modern else None)
    async with http_server(world) as http, httpx.AsyncClient(timeout=scaled(120)) as raw:
        answer = await raw.post(str(http.url), content=body, headers=headers)
    assert answer.status_code == 400
    assert answer.json() == _refusal(7)
    assert _titles(world) == {"Quarter budget"}


async def test_the_openapi_door_names_an_unpaired_surrogate_and_writes_nothing(
    world: World, tmp_path: Path
) -> None:
    """``POST /actions/create_note`` read the body with Python's JSON reader, which takes the
    surrogate: the store then failed to write it, an internal error (500)."""
    token = create(tmp_path / "token")
    headers = {"authorization": f"Bearer {token}", "content-type": "application/json"}
    body = f'{{"title": "lone \\ud800 here", "notebook_id": "{world.work_id}"}}'.encode()
    async with http_server(world, token_file=tmp_path / "token", actions=True, allow_remote=True) as http:
        async with httpx.AsyncClient(headers=headers, timeout=scaled(120)) as raw:
            answer = await raw.post(f"http://127.0.0.1:{http.port}/actions/create_note", content=body)
    assert answer.status_code == 400
    assert answer.json()["error"] == LONE.removeprefix("Invalid Request: ").replace(
        "the message", "the request body"
    )
    assert _titles(world) == {"Quarter budget"}

"""A JSON string holding an unpaired surrogate (``"\\ud800"``): valid JSON, but no text.

Python's JSON reader takes it; the SDK's does not. Over HTTP the answer was ``-32700 Parse error:
unexpected end of hex escape`` (pydantic's words) and over stdio "the line is not valid JSON", both
untrue, and both with a null id, so an SDK client's call waited for an answer until it timed out.
Now both transports answer the same one line, with the request's id, and write nothing. Not
vacuous: the same call with the surrogate paired (a real character) creates the note.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.integration.mcp_support import (
    ENVELOPE,
    World,
    actions_door,
    call_headers,
    http_server,
    raw_create_note,
    raw_stdio,
    rpc_refusal,
    work_titles,
    world_with,
)
from tests.support.polling import scaled

LONE = "Invalid Request: a string in the message holds an unpaired surrogate (\\ud800), which JSON allows but no text can hold; send text as UTF-8 (a character beyond U+FFFF as a pair of \\u escapes)"  # noqa: E501


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = world_with(tmp_path / "profile", "create_note")
    yield w
    w.close()


def _call(world: World, title: str, id_: int | str = 7, meta: dict[str, Any] | None = None) -> bytes:
    """A ``create_note`` request whose title is ``title`` written as JSON escapes (``\\ud800``)."""
    return raw_create_note(world, title, id_=id_, meta=meta)


def _refusal(id_: int | str | None) -> dict[str, Any]:
    return rpc_refusal(id_, LONE)


async def test_stdio_names_an_unpaired_surrogate_and_writes_nothing(world: World) -> None:
    async with raw_stdio(world) as (send, reply):
        await send(_call(world, "lone \\ud800 here"))
        assert await reply() == _refusal(7)
        await send(_call(world, "\\udc00 low first", id_="x"))
        assert (await reply())["error"]["message"] == LONE.replace("ud800", "udc00")
        await send(_call(world, "paired \\ud83d\\ude00", id_=8))
        assert "result" in await reply()
    assert work_titles(world) == {"Quarter budget", "paired \U0001f600"}


@pytest.mark.parametrize("modern", [True, False], ids=["2026-07-28", "legacy"])
async def test_http_names_an_unpaired_surrogate_and_writes_nothing(world: World, modern: bool) -> None:
    body = _call(world, "lone \\ud800 here", meta=ENVELOPE if modern else None)
    async with http_server(world) as http, httpx.AsyncClient(timeout=scaled(120)) as raw:
        answer = await raw.post(str(http.url), content=body, headers=call_headers(modern))
    assert answer.status_code == 400
    assert answer.json() == _refusal(7)
    assert work_titles(world) == {"Quarter budget"}


async def test_the_openapi_door_names_an_unpaired_surrogate_and_writes_nothing(
    world: World, tmp_path: Path
) -> None:
    """``POST /actions/create_note`` read the body with Python's JSON reader, which takes the
    surrogate: the store then failed to write it, an internal error (500)."""
    body = f'{{"title": "lone \\ud800 here", "notebook_id": "{world.work_id}"}}'.encode()
    async with actions_door(world, tmp_path) as post:
        answer = await post("create_note", body)
    assert answer.status_code == 400
    assert answer.json()["error"] == LONE.removeprefix("Invalid Request: ").replace(
        "the message", "the request body"
    )
    assert work_titles(world) == {"Quarter budget"}

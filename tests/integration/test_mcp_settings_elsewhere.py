"""A switch, a scope or review mode changed by another process holds from the server's next call.

``noted config set`` in another terminal writes ``config.toml``; a running server used to see it
only at its next poll of the file (a second later), so a call made in between still ran a tool
switched off, saw notebooks taken out of its scope, or wrote at once with review mode on. Here the
other process is a second ``Settings`` on the same file, and the server polls only once an hour, so
a server that waited for its poll fails every check (none is vacuous: each is checked before too).
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import mcp_types as types
import pytest
from mcp import Client
from tests.integration.mcp_support import World, writing_world
from tests.support.polling import scaled

from noted.mcp.http import HttpServer
from noted.mcp.options import HttpOptions
from noted.mcp.server import NotedMcp
from noted.mcp.token import create
from noted.settings import Settings

HOUR = 3600.0
"""The server's own poll of the config file: never, within a test."""


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = writing_world(tmp_path / "profile")
    yield w
    w.close()


def elsewhere(world: World) -> Settings:
    """The profile's settings as another process (``noted config set``) has them."""
    return Settings.load(world.profile)


@asynccontextmanager
async def client_of(world: World) -> AsyncIterator[Client]:
    """The SDK's client, in memory, on a server that polls the config file once an hour."""
    mcp = NotedMcp(world.deps, poll_seconds=HOUR)
    async with mcp.running(), Client(mcp.server, read_timeout_seconds=scaled(60)) as client:
        yield client


def titles(result: types.CallToolResult) -> set[str]:
    assert not result.is_error and result.structured_content is not None
    return {hit["title"] for hit in result.structured_content["results"]}


async def test_a_scope_narrowed_elsewhere_holds_from_the_next_call(world: World) -> None:
    async with client_of(world) as client:
        before = titles(await client.call_tool("search_notes", {"query": "budget"}))
        elsewhere(world).set("mcp.allowedNotebooks", (world.work_id,))
        after = titles(await client.call_tool("search_notes", {"query": "budget"}))
    assert before == {"Quarter budget", "Secret budget"}
    assert after == {"Quarter budget"}


async def test_a_tool_switched_off_elsewhere_is_refused_at_the_next_call(world: World) -> None:
    async with client_of(world) as client:
        before = await client.call_tool("read_note", {"id": world.private_note})
        elsewhere(world).set("ai.tool.read_note.enabled", False)
        after = await client.call_tool("read_note", {"id": world.private_note})
    assert not before.is_error
    assert after.is_error and "switched off" in str(after.content[0])
    assert "Budget budget" not in str(after.content)


async def test_review_mode_set_elsewhere_makes_the_next_write_wait(world: World) -> None:
    async with client_of(world) as client:
        before = await client.call_tool("update_note", {"id": world.work_note, "append": "\nfirst"})
        elsewhere(world).set("mcp.writes", "review")
        after = await client.call_tool("update_note", {"id": world.work_note, "append": "\nsecond"})
    assert before.structured_content is not None and before.structured_content["changed"] == ["append"]
    assert after.structured_content is not None and after.structured_content["status"] == "pending_review"
    assert "second" not in world.store.get_note(world.work_note).body


async def test_consent_withdrawn_elsewhere_closes_the_door_at_the_next_request(
    world: World, tmp_path: Path
) -> None:
    world.settings.set("ai.allowRemote", True)
    token = create(tmp_path / "main-token")
    options = HttpOptions.from_settings(world.settings, port=0, actions=True)
    options = dataclasses.replace(options, token_file=tmp_path / "main-token", clients_file=None)
    http = HttpServer(NotedMcp(world.deps, poll_seconds=HOUR), options)
    await http.start()
    try:
        headers = {"authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(headers=headers, timeout=scaled(120)) as client:
            url = f"http://127.0.0.1:{http.port}/actions/search_notes"
            before = await client.post(url, json={"query": "budget"})
            elsewhere(world).set("ai.allowRemote", False)
            after = await client.post(url, json={"query": "budget"})
    finally:
        await http.stop()
    assert before.status_code == 200
    assert after.status_code == 403 and "budget" not in after.text.lower()

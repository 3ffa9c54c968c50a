"""``mcp.allowedNotebooks`` set to a notebook's name in another process while a server runs: the
next call answers from that notebook, not from an empty scope.

A server resolves such a name to its id after it notices the change, in a thread of its own. The
call that noticed it (the config file is read again at each call) was answered before that, with
a scope of nothing: ``list_notebooks`` said there were no notebooks and ``read_note`` that the
client's own note did not exist. The poll that might notice the change first is off here
(``poll_seconds=0``), so the call itself is always the first to see it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from tests.integration.mcp_support import MODES, World, http_client, make_world, text_of

from noted.mcp.http import HttpServer
from noted.mcp.options import HttpOptions
from noted.mcp.server import NotedMcp
from noted.settings import Settings
from noted.settings.handles import MCP_ALLOWED_NOTEBOOKS


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = make_world(tmp_path / "profile", semantic=False)
    yield w
    w.close()


@asynccontextmanager
async def served(world: World) -> AsyncIterator[str]:
    http = HttpServer(NotedMcp(world.deps, poll_seconds=0), HttpOptions(port=0))
    await http.start()
    try:
        yield str(http.url)
    finally:
        await http.stop()


@pytest.mark.parametrize("mode", MODES)
async def test_the_first_call_after_a_name_is_set_elsewhere_sees_that_notebook(
    world: World, mode: str
) -> None:
    async with served(world) as url, http_client(url, mode) as client:
        before = (await client.call_tool("list_notebooks", {})).structured_content
        assert before is not None and {n["title"] for n in before["notebooks"]} == {"Work", "Private"}
        Settings.load(world.profile).set(MCP_ALLOWED_NOTEBOOKS, ("Work",))  # another process's `config set`
        listed = await client.call_tool("list_notebooks", {})
        assert not listed.is_error, text_of(listed)
        assert listed.structured_content is not None
        assert [n["id"] for n in listed.structured_content["notebooks"]] == [world.work_id]
        note = await client.call_tool("read_note", {"id": world.work_note})
        assert not note.is_error, text_of(note)
        hidden = await client.call_tool("read_note", {"id": world.private_note})
        assert hidden.is_error  # the scope holds: not everything, only the name resolved
    assert Settings.load(world.profile).get(MCP_ALLOWED_NOTEBOOKS) == (
        world.work_id,
    )  # written back as an id

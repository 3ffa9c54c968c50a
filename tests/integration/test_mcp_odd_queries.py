"""Search queries holding characters no keyboard types, sent by an MCP client as JSON allows.

A NUL (``"\\u0000"``) is valid in a JSON string, so any client can send one. FTS5 reads its query
as a C string, and a NUL inside a quoted word ended it there: before the fix every keyword search
holding one (``search_notes``, ``find_notes``) failed as an internal error, on every backend
(Joplin's keyword search runs noted's FTS5 query on the notes changed lately). Not vacuous: the
queries also hold a real word, and the note carrying it must be found.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.integration.mcp_support import World, http_client, http_server, make_world
from tests.support.backends import BACKENDS, LocalStore, open_backend
from tests.support.tools_env import make_env

from noted.models import NoteDraft

QUERIES = ("budget\x00", "quarter\x00budget", '"quarter\x00budget"', "title:quarter\x00", "budg*\x00")


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = make_world(tmp_path / "profile", semantic=False)
    yield w
    w.close()


@pytest.mark.parametrize("query", QUERIES)
async def test_a_nul_in_a_search_query_is_a_separator_not_an_internal_error(world: World, query: str) -> None:
    async with http_server(world) as http, http_client(str(http.url), "legacy") as client:
        for tool in ("search_notes", "find_notes"):
            found = await client.call_tool(tool, {"query": query})
            assert not found.is_error, (tool, found.content)
            assert found.structured_content is not None
            ids = {hit["id"] for hit in found.structured_content["results"]}
            assert world.work_note in ids, (tool, query, found.structured_content)


@pytest.fixture(params=BACKENDS)
def backend_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LocalStore]:
    with open_backend(request.param, tmp_path / "store") as store:
        yield store


async def test_every_backend_takes_a_nul_in_a_search_query(backend_store: LocalStore, tmp_path: Path) -> None:
    """The same on each backend's keyword search (Joplin's sends the query to Joplin's ``/search``)."""
    env = make_env(backend_store, tmp_path)
    folder = backend_store.create_folder("Work", actor="user")
    note = backend_store.create_note(NoteDraft("Quarter budget", "The budget.", folder.id), actor="user")
    for query in QUERIES:
        found = await env.ok("search_notes", query=query)
        assert note.id in {hit["id"] for hit in found["results"]}, (query, found)

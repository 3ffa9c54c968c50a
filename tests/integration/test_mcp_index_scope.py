"""What an AI app limited to one notebook is told of the search-by-meaning index: its notebooks only.

``index.complete`` said whether the index had followed every change of the profile, so a note saved
in a notebook outside the scope turned it false until the indexer caught up: the app learned that
something changed where it cannot look. In a scope only the changes to its own notes count now.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from tests.integration.mcp_support import World, bearer, http_client, http_server, make_world

from noted.embeddings.fake import FakeEmbedder
from noted.indexer.engine import Indexer
from noted.mcp.client_tokens import ClientTokens
from noted.models import NotePatch


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = make_world(tmp_path / "profile")
    indexer = Indexer(w.store, w.store.db, FakeEmbedder())
    indexer.prepare()
    indexer.run_until_idle()
    yield w
    w.close()


async def _index(client: Client) -> dict[str, Any]:
    result = await client.call_tool("semantic_search_notes", {"query": "budget"})
    assert not result.is_error and result.structured_content is not None
    index: dict[str, Any] = result.structured_content["index"]
    return index


async def test_a_change_outside_the_scope_leaves_its_index_complete(world: World) -> None:
    clients = ClientTokens.beside(world.settings.path)
    token = clients.add("work", notebooks=[world.work_id])
    whole = {"notes_indexed": 1, "notes_total": 1, "complete": True, "notes_changed": 0}
    async with (
        http_server(world, clients_file=clients.path) as http,
        http_client(str(http.url), "legacy", headers=bearer(token)) as client,
    ):
        before = await _index(client)
        world.store.update_note(world.private_note, NotePatch(append="\nmore"), actor="user")
        outside = await _index(client)
        world.store.update_note(world.work_note, NotePatch(append="\nmore"), actor="user")
        inside = await _index(client)  # not vacuous: a change in the scope still shows
    assert before == whole
    assert outside == whole
    assert inside == {**whole, "complete": False, "notes_changed": 1}

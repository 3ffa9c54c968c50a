"""A client limited to a notebook inside another brings back from the trash only what lies in its
notebooks: a note or notebook whose way up leads through a notebook in the trash outside its scope
is refused, and nothing is written, on every backend.

The person put "Work" in the trash with "Sub", the client's notebook, inside it. Restoring a note
of Sub (or a notebook inside Sub) restores every notebook above it too, Work included: a write
outside the client's scope. The client is the MCP SDK's client over HTTP with a client token
limited to Sub. Not vacuous: once the person restores Work, the same calls succeed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.integration.mcp_support import bearer, http_client, text_of
from tests.support.backends import BACKENDS, LocalStore, open_backend

from noted.mcp.client_tokens import ClientTokens
from noted.mcp.deps import McpDeps
from noted.mcp.http import HttpServer
from noted.mcp.options import HttpOptions
from noted.mcp.server import NotedMcp
from noted.models import NoteDraft
from noted.ops.notebooks import restore_notebook, trash_notebook
from noted.search.joplin import keyword_search_for
from noted.settings import Settings
from noted.tools import build_registry


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LocalStore]:
    with open_backend(request.param, tmp_path / "store") as opened:
        yield opened


async def test_a_restore_that_would_bring_back_a_notebook_outside_the_scope_is_refused(
    store: LocalStore, tmp_path: Path
) -> None:
    """restore_note brought Work back from the trash with the note of Sub, recorded as the client."""
    settings = Settings.load(tmp_path / "config.toml")
    for tool in ("restore_note", "restore_notebook"):
        settings.set(f"ai.tool.{tool}.enabled", True)
    deps = McpDeps(store, keyword_search_for(store), settings, build_registry(settings))
    work = store.create_folder("Work", actor="user")
    sub = store.create_folder("Sub", parent_id=work.id, actor="user")
    deep = store.create_folder("Deep", parent_id=sub.id, actor="user")
    note = store.create_note(NoteDraft("Plan", "sub text\n", sub.id), actor="user")
    trash_notebook(store, work.id, actor="user")
    clients = ClientTokens.beside(settings.path)
    token = clients.add("sub", notebooks=[sub.id])
    cursor = store.latest_cursor()
    http = HttpServer(NotedMcp(deps, poll_seconds=0.2), HttpOptions(port=0, clients_file=clients.path))
    await http.start()
    try:
        async with http_client(str(http.url), "legacy", headers=bearer(token)) as client:
            refused = [
                await client.call_tool("restore_note", {"id": note.id}),
                await client.call_tool("restore_notebook", {"id": deep.id}),
            ]
            assert store.latest_cursor() == cursor  # nothing was written
            restore_notebook(store, work.id, actor="user")
            trash_notebook(store, sub.id, actor="user")  # Sub alone: bringing it back stays inside
            done = [
                await client.call_tool("restore_note", {"id": note.id}),
                await client.call_tool("restore_notebook", {"id": deep.id}),
            ]
    finally:
        await http.stop()
    assert all(r.is_error for r in refused), [r.structured_content for r in refused]
    assert [text_of(r) for r in refused] == [
        "this note's notebook is in the trash inside one outside the notebooks you can see; the "
        "person can restore it in noted",
        "this notebook is in the trash inside one outside the notebooks you can see; the person "
        "can restore it in noted",
    ]
    assert all(not r.is_error for r in done), [text_of(r) for r in done]
    assert not store.get_note(note.id).is_trashed
    assert not any(f.is_trashed for f in store.list_folders(include_trashed=True))

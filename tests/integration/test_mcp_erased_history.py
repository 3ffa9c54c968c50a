"""A note erased in Joplin itself, whose revisions noted kept, through the MCP tools: the
``note_history`` tool (the chat's too: one registry) lists it and ``restore_note`` writes it again,
for a client without a scope and one whose scope holds the notebook the feed last saw it in. To a
client whose scope does not, both answer byte for byte as for a note that never existed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from tests.integration.mcp_support import bearer, http_client
from tests.support.joplin import JoplinServer, shared_server

from noted.mcp.client_tokens import ClientTokens
from noted.mcp.deps import McpDeps
from noted.mcp.http import HttpServer
from noted.mcp.options import HttpOptions
from noted.mcp.server import NotedMcp
from noted.models import ACTOR_USER, NoteDraft, NotePatch
from noted.search.joplin import keyword_search_for
from noted.settings import Settings
from noted.store.sqlite.review import SqliteReview
from noted.tools import all_tools, build_registry

pytestmark = pytest.mark.slow
NOWHERE = "0" * 32


async def _answer(client: Client, tool: str, note_id: str) -> str:
    """The tool's whole answer, the note's id written as ID."""
    result = await client.call_tool(tool, {"id": note_id})
    text = json.dumps([result.is_error, result.structured_content, [c.model_dump() for c in result.content]])
    return text.replace(note_id, "ID")


async def test_an_erased_note_is_listed_and_restored_over_mcp_in_scope_and_hidden_outside(
    tmp_path: Path,
) -> None:
    """Both tools said "no note with id …" for the erased note, to every client."""
    joplin: JoplinServer = shared_server(tmp_path.parent)
    joplin.wipe()
    store = joplin.store(tmp_path / "store")
    settings = Settings.load(tmp_path / "config.toml")
    for tool in all_tools():
        settings.set(f"ai.tool.{tool.name}.enabled", True)
    deps = McpDeps(
        store, keyword_search_for(store), settings, build_registry(settings), review=SqliteReview(store.db)
    )
    try:
        work = store.create_folder("Work", actor=ACTOR_USER)
        other = store.create_folder("Other", actor=ACTOR_USER)
        note = store.create_note(NoteDraft("Plan", "first text\n", work.id), actor=ACTOR_USER)
        store.update_note(note.id, NotePatch(body="second text\n"), actor=ACTOR_USER)
        joplin.api("DELETE", f"/notes/{note.id}", params={"permanent": "1"})
        clients = ClientTokens.beside(settings.path)
        tokens = {
            "all": clients.add("all"),
            "work": clients.add("work", notebooks=[work.id]),
            "other": clients.add("other", notebooks=[other.id]),
        }
        http = HttpServer(NotedMcp(deps, poll_seconds=0.2), HttpOptions(port=0, clients_file=clients.path))
        await http.start()
        try:
            answers: dict[str, dict[str, Any]] = {}
            for name, token in tokens.items():
                async with http_client(str(http.url), "legacy", headers=bearer(token)) as client:
                    if name == "other":  # not vacuous: the others reach the note by the same call
                        for called in ("note_history", "restore_note"):
                            assert await _answer(client, called, note.id) == await _answer(
                                client, called, NOWHERE
                            )
                        continue
                    result = await client.call_tool("note_history", {"id": note.id})
                    assert not result.is_error and result.structured_content is not None, result.content
                    answers[name] = result.structured_content
            async with http_client(str(http.url), "legacy", headers=bearer(tokens["work"])) as client:
                restored = await client.call_tool("restore_note", {"id": note.id})
        finally:
            await http.stop()
        for name, listed in answers.items():
            assert (listed["title"], listed["total"], listed["erased"]) == ("Plan", 2, True), name
        assert not restored.is_error and restored.structured_content is not None, restored.content
        assert restored.structured_content["notebook_id"] == work.id
        back = joplin.api("GET", f"/notes/{note.id}", params={"fields": "title,body,parent_id"})
        assert (back["title"], back["body"], back["parent_id"]) == ("Plan", "second text\n", work.id)
    finally:
        store.close()

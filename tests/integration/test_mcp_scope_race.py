"""A note the person moves out of a client's notebooks while the client's write is under way: the
write is not made there.

The scope is checked when the tool reads the note; the write comes after. A note moved to Private
between the two took the client's append there, and the answer named Private. Now a scoped write
is made on the version of the note the check read, so the store refuses it as stale, and nothing is
written. The person's move is made by the store itself right after the tool's read (the one moment
it matters), so the test is not left to timing. The client is the MCP SDK's client over HTTP.
"""

from __future__ import annotations

from pathlib import Path

from tests.integration.mcp_support import bearer, http_client, text_of

from noted.mcp.client_tokens import ClientTokens
from noted.mcp.deps import McpDeps
from noted.mcp.http import HttpServer
from noted.mcp.options import HttpOptions
from noted.mcp.server import NotedMcp
from noted.models import Note, NoteDraft, NotePatch
from noted.search.keyword import KeywordSearch
from noted.settings import Settings
from noted.store.sqlite import SqliteStore
from noted.tools import build_registry


def move_after_read(store: SqliteStore, watched: str, to: str) -> list[str]:
    """Have the person move note ``watched`` to ``to`` on ``store`` right after its next read; the
    list holds the note's id once the move was made."""
    moved: list[str] = []
    read = store.get_note

    def get_note(note_id: str) -> Note:
        note = read(note_id)
        if note_id == watched and not moved:
            moved.append(note_id)
            store.update_note(note_id, NotePatch(parent_id=to), actor="user")
        return note

    store.get_note = get_note
    return moved


async def test_a_write_on_a_note_moved_out_of_the_scope_meanwhile_is_not_made(tmp_path: Path) -> None:
    store = SqliteStore.open(tmp_path / "notes.db", tmp_path / "resources")
    try:
        work = store.create_folder("Work", actor="user")
        private = store.create_folder("Private", actor="user")
        note = store.create_note(NoteDraft("Plan", "plan text\n", work.id), actor="user")
        settings = Settings.load(tmp_path / "config.toml")
        settings.set("ai.tool.update_note.enabled", True)
        clients = ClientTokens.beside(settings.path)
        token = clients.add("work", notebooks=[work.id])
        deps = McpDeps(store, KeywordSearch(store), settings, build_registry(settings))
        http = HttpServer(NotedMcp(deps, poll_seconds=0.2), HttpOptions(port=0, clients_file=clients.path))
        await http.start()
        try:
            async with http_client(str(http.url), "legacy", headers=bearer(token)) as client:
                moved = move_after_read(store, note.id, private.id)
                raced = await client.call_tool("update_note", {"id": note.id, "append": "client text\n"})
                assert moved == [note.id]  # not vacuous: the person moved it in the middle
                after = await client.call_tool("update_note", {"id": note.id, "append": "again\n"})
        finally:
            await http.stop()
        assert raced.is_error, raced.structured_content
        assert "Private" not in text_of(raced) and "changed since" in text_of(raced)
        assert store.get_note(note.id).body == "plan text\n"
        assert after.is_error and text_of(after) == f'no note with id "{note.id}"'
    finally:
        store.close()

"""A note the person moves out of a client's notebooks while the client's write is under way: the
write is not made there.

The scope is checked when the tool reads the note; the write comes after. A note moved to Private
between the two took the client's append there, and the answer named Private. Now a scoped write
is made on the version of the note the check read, so the store refuses it as stale, and nothing is
written. The person's move is made by the store itself right after the tool's read (the one moment
it matters), so the test is not left to timing. The client is the MCP SDK's client over HTTP.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from tests.integration.mcp_support import bearer, http_client, text_of
from tests.support.backends import BACKENDS, LocalStore, open_backend
from tests.support.tools_env import make_env

from noted.mcp.client_tokens import ClientTokens
from noted.mcp.deps import McpDeps
from noted.mcp.http import HttpServer
from noted.mcp.options import HttpOptions
from noted.mcp.server import NotedMcp
from noted.models import Note, NoteDraft, NotePatch
from noted.search.joplin import keyword_search_for
from noted.search.keyword import KeywordSearch
from noted.settings import Settings
from noted.store.protocol import Store
from noted.store.sqlite import SqliteStore
from noted.tools import build_registry


def after_read(store: Store, method: str, watched: str, then: Callable[[], object]) -> list[str]:
    """Have the person make the change ``then`` right after ``store``'s next read of ``watched`` by
    ``method`` (``get_note``, ``get_folder``); the list holds that id once the change was made."""
    done: list[str] = []
    read = getattr(store, method)

    def hooked(item_id: str) -> object:
        found = read(item_id)
        if item_id == watched and not done:
            done.append(item_id)
            then()
        return found

    setattr(store, method, hooked)
    return done


def move_after_read(store: Store, watched: str, to: str) -> list[str]:
    """Have the person move note ``watched`` to ``to`` on ``store`` right after its next read; the
    list holds the note's id once the move was made."""
    return after_read(
        store, "get_note", watched, lambda: store.update_note(watched, NotePatch(parent_id=to), actor="user")
    )


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


PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
NOTE_WRITES: dict[str, Callable[[str], dict[str, Any]]] = {
    "delete_note": lambda note: {"id": note},
    "manage_tags": lambda note: {"note_id": note, "add": ["client tag"]},
    "attach_file": lambda note: {
        "note_id": note,
        "filename": "a.png",
        "mime": "image/png",
        "content_base64": PNG,
    },
}


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LocalStore]:
    with open_backend(request.param, tmp_path / "store") as opened:
        yield opened


@pytest.mark.parametrize("tool", sorted(NOTE_WRITES))
async def test_other_writes_on_a_note_moved_out_of_the_scope_meanwhile_are_not_made(
    tool: str, backend: LocalStore, tmp_path: Path
) -> None:
    """delete_note trashed the note in Private, manage_tags tagged it there, attach_file gave it a
    file there, each answering with the note as it is now; now each is refused and nothing is
    written, on every backend (Joplin has no transactions: there the note is read again just before
    the write, which is where this test moves it)."""
    store = backend
    work = store.create_folder("Work", actor="user")
    private = store.create_folder("Private", actor="user")
    note = store.create_note(NoteDraft("Plan", "plan text\n", work.id), actor="user")
    async with _work_client(store, tmp_path, work.id, tool) as client:
        moved = move_after_read(store, note.id, private.id)
        raced = await client.call_tool(tool, NOTE_WRITES[tool](note.id))
    assert moved == [note.id]  # not vacuous: the person moved it in the middle
    assert raced.is_error, raced.structured_content
    assert "Private" not in text_of(raced) and "changed since" in text_of(raced)
    after = store.get_note(note.id)  # the client wrote nothing
    assert not after.is_trashed and after.body == "plan text\n" and after.parent_id == private.id
    assert store.note_tags(note.id) == [] and store.list_resources(note_id=note.id) == []


@pytest.mark.parametrize(
    "tool", ["update_notebook", "delete_notebook", "update_note", "create_note", "create_notebook"]
)
async def test_writes_in_a_notebook_moved_out_of_the_scope_meanwhile_are_not_made(
    tool: str, tmp_path: Path
) -> None:
    """The person moves Work/Sub into Private while the client renames or trashes Sub, edits a
    note of Sub (the note's own version did not change, its notebook left the scope), or makes a
    note or notebook in Sub."""
    store = SqliteStore.open(tmp_path / "notes.db", tmp_path / "resources")
    try:
        work = store.create_folder("Work", actor="user")
        sub = store.create_folder("Sub", parent_id=work.id, actor="user")
        private = store.create_folder("Private", actor="user")
        note = store.create_note(NoteDraft("Plan", "plan text\n", sub.id), actor="user")
        args = {
            "update_notebook": {"id": sub.id, "title": "Renamed"},
            "delete_notebook": {"id": sub.id},
            "update_note": {"id": note.id, "append": "client text\n"},
            "create_note": {"title": "New", "body": "client text\n", "notebook_id": sub.id},
            "create_notebook": {"title": "New", "parent_id": sub.id},
        }[tool]
        async with _work_client(store, tmp_path, work.id, tool) as client:
            # The tool reads the notebook first, or the note (update_note): Sub moves right after.
            method, watched = ("get_note", note.id) if tool == "update_note" else ("get_folder", sub.id)
            moved = after_read(
                store,
                method,
                watched,
                lambda: store.update_folder(sub.id, parent_id=private.id, actor="user"),
            )
            cursor = store.latest_cursor() + 1
            raced = await client.call_tool(tool, args)
        assert moved == [watched]  # not vacuous: the person moved Sub in the middle
        assert raced.is_error, raced.structured_content
        assert "Private" not in text_of(raced) and "changed since" in text_of(raced)
        assert store.latest_cursor() == cursor
    finally:
        store.close()


@asynccontextmanager
async def _work_client(store: LocalStore, tmp_path: Path, work: str, tool: str) -> AsyncIterator[Client]:
    """The SDK's client over HTTP with a token limited to ``work``, ``tool`` switched on."""
    settings = Settings.load(tmp_path / "config.toml")
    settings.set(f"ai.tool.{tool}.enabled", True)
    clients = ClientTokens.beside(settings.path)
    token = clients.add("work", notebooks=[work])
    deps = McpDeps(store, keyword_search_for(store), settings, build_registry(settings))
    http = HttpServer(NotedMcp(deps, poll_seconds=0.2), HttpOptions(port=0, clients_file=clients.path))
    await http.start()
    try:
        async with http_client(str(http.url), "legacy", headers=bearer(token)) as client:
            yield client
    finally:
        await http.stop()


@pytest.mark.parametrize("tool", ["delete_attachment", "replace_attachment"])
async def test_an_attachment_a_hidden_note_links_meanwhile_is_not_written(tool: str, tmp_path: Path) -> None:
    """The person links the Work note's file from a Private note while the client deletes or
    replaces it: a file a note outside links is hidden from the client, and was written anyway."""
    store = SqliteStore.open(tmp_path / "notes.db", tmp_path / "resources")
    try:
        work = store.create_folder("Work", actor="user")
        private = store.create_folder("Private", actor="user")
        file = store.add_resource(b"plan\n", filename="plan.txt", mime="text/plain", actor="user")
        store.create_note(NoteDraft("Plan", f"[p](:/{file.id})\n", work.id), actor="user")
        secret = store.create_note(NoteDraft("Secret", "secret\n", private.id), actor="user")
        args = {"id": file.id, **({"content_base64": "eAo="} if tool == "replace_attachment" else {})}
        async with _work_client(store, tmp_path, work.id, tool) as client:
            link = NotePatch(append=f"[p](:/{file.id})\n")
            moved = after_read(
                store, "resource_notes", file.id, lambda: store.update_note(secret.id, link, actor="user")
            )
            cursor = store.latest_cursor() + 1
            raced = await client.call_tool(tool, args)
        assert moved == [file.id]  # not vacuous: the person linked it in the middle
        assert raced.is_error, raced.structured_content
        assert "Private" not in text_of(raced) and "Secret" not in text_of(raced)
        assert store.latest_cursor() == cursor
        assert store.read_resource(file.id) == b"plan\n"
    finally:
        store.close()


def whole_reads(store: Store, watched: str) -> list[str]:
    """Count ``store``'s reads of note ``watched`` whole (``get_note``, ``get_notes``): the list
    gains the method's name at each."""
    reads: list[str] = []
    one, many = store.get_note, store.get_notes

    def get_note(note_id: str) -> Note:
        reads.extend(["get_note"] if note_id == watched else [])
        return one(note_id)

    def get_notes(note_ids: Sequence[str]) -> list[Note]:
        reads.extend(["get_notes"] if watched in note_ids else [])
        return many(note_ids)

    setattr(store, "get_note", get_note)  # noqa: B010 (a Store protocol method, bound per store)
    setattr(store, "get_notes", get_notes)  # noqa: B010
    return reads


async def test_a_scoped_write_reads_the_note_whole_no_more_than_an_unscoped_one(
    backend: LocalStore, tmp_path: Path
) -> None:
    """The pin compares the note's version and place, read again in the write's batch: it read the
    body too, for nothing (a 1 MB note over Joplin's API: some 40 ms more per scoped update_note)."""
    store = backend
    work = store.create_folder("Work", actor="user")
    note = store.create_note(NoteDraft("Plan", "plan text\n", work.id), actor="user")
    env = make_env(store, tmp_path, enabled=("update_note",))
    reads = whole_reads(store, note.id)
    await env.ok("update_note", id=note.id, append="unscoped\n")
    unscoped = list(reads)
    reads.clear()
    env.scoped(work.id)
    await env.ok("update_note", id=note.id, append="scoped\n")
    assert unscoped  # not vacuous: the tool reads the note whole, once, to check and patch it
    assert reads == unscoped
    assert store.get_note(note.id).body == "plan text\nunscoped\nscoped\n"

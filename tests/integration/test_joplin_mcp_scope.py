"""An AI app limited to one notebook of a real Joplin: a file linked from elsewhere stays hidden.

A file is seen in a scope only when every note that links it is in the scope (trashed notes too:
restored, they link it again). Joplin's search, which finds the notes linking a file, leaves the
trash out, so a file that a trashed note elsewhere linked showed as if only the visible note linked it.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.integration.mcp_support import bearer, http_client, text_of
from tests.support.joplin import JoplinServer, Wire, own_server, shared_server

from noted.mcp.client_tokens import ClientTokens
from noted.mcp.deps import McpDeps
from noted.mcp.http import HttpServer
from noted.mcp.options import HttpOptions
from noted.mcp.server import NotedMcp
from noted.models import NoteDraft
from noted.search.joplin import JoplinKeywordSearch
from noted.settings import Settings
from noted.store.joplin import JoplinStore
from noted.tools import build_registry

pytestmark = pytest.mark.slow


@pytest.fixture
def store(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Iterator[JoplinStore]:
    joplin: JoplinServer = shared_server(tmp_path_factory.getbasetemp())
    s = joplin.store(tmp_path / "profile")
    yield s
    s.close()


async def test_a_file_a_trashed_note_elsewhere_links_stays_hidden(store: JoplinStore, tmp_path: Path) -> None:
    word = secrets.token_hex(4)
    work = store.create_folder(f"Work {word}", actor="user")
    secret = store.create_folder(f"Secret {word}", actor="user")
    keys = store.add_resource(b"SECRET BYTES", filename="keys.txt", mime="text/plain", actor="user")
    elsewhere = store.create_note(NoteDraft("Keys", f"[k](:/{keys.id})", secret.id), actor="user")
    visible = store.create_note(NoteDraft("Plan", f"[k](:/{keys.id})", work.id), actor="user")
    store.trash_note(elsewhere.id, actor="user")
    assert sorted(store.resource_notes(keys.id)) == sorted([elsewhere.id, visible.id])

    settings = Settings.load(tmp_path / "config.toml")
    token = ClientTokens.beside(settings.path).add("work", notebooks=[work.id])
    deps = McpDeps(store, JoplinKeywordSearch(store), settings, build_registry(settings))
    http = HttpServer(
        NotedMcp(deps, poll_seconds=0.2),
        HttpOptions(port=0, clients_file=ClientTokens.beside(settings.path).path),
    )
    await http.start()
    try:
        async with http_client(str(http.url), "legacy", headers=bearer(token)) as client:
            read = await client.call_tool("read_attachment", {"id": keys.id})
            listed = await client.call_tool("list_attachments", {"note_id": visible.id})
    finally:
        await http.stop()
    assert (
        read.is_error and text_of(read) == f'no attachment with id "{keys.id}"; list_attachments lists them'
    )
    assert listed.structured_content is not None and listed.structured_content["attachments"] == []


def test_the_order_of_a_scoped_search_does_not_depend_on_hidden_notes(store: JoplinStore) -> None:
    """Ranking weighs a word by how many notes hold it: weighed over every note, the order of two
    visible notes told which of the two words the hidden notes hold."""
    word = secrets.token_hex(4)
    one, two = f"a{word}", f"b{word}"
    work = store.create_folder(f"Work {word}", actor="user").id
    secret = store.create_folder(f"Secret {word}", actor="user").id
    store.create_note(NoteDraft("Mostly one", f"{one} {one} {one} {two}", work), actor="user")
    store.create_note(NoteDraft("Mostly two", f"{one} {two} {two} {two}", work), actor="user")
    search = JoplinKeywordSearch(store)

    def order() -> list[str]:
        results = search.search(f"{one} {two}", folder_ids=frozenset({work}))
        assert results.total == 2
        return [hit.title for hit in results.hits]

    for i in range(4):
        store.create_note(NoteDraft(f"Hidden {i}", f"{one} hidden", secret), actor="user")
    before = order()
    for i in range(8):
        store.create_note(NoteDraft(f"Hidden more {i}", f"{two} hidden", secret), actor="user")
    # Not vacuous: unscoped, the order does follow the hidden notes (the word fewer notes hold
    # weighs more), so a scoped search weighing them would flip too.
    everywhere = [h.title for h in search.search(f"{one} {two}").hits if h.title.startswith("Mostly")]
    assert everywhere == ["Mostly one", "Mostly two"]
    assert order() == before


def test_joplin_is_asked_only_for_the_notebooks_of_a_scope(tmp_path: Path) -> None:
    """Joplin answers 100 matches a request, running the whole search for each, so a scoped search
    took longer with every 100 hidden matches (1,000: 0.6 s instead of 0.05 s): the query sent to
    Joplin now names the scope's notebooks (Joplin's grammar, ``notebook:"Title"``). The request is
    checked rather than the pages Joplin answers: when Joplin's own index takes in new notes is up to
    its scheduler (a run that waited two minutes for it timed out)."""
    with own_server(tmp_path / "joplin") as joplin:
        work = str(joplin.api("POST", "/folders", {"title": "Work"})["id"])
        secret = str(joplin.api("POST", "/folders", {"title": "Secret"})["id"])
        for i in range(2):
            joplin.api("POST", "/notes", {"title": f"Visible {i}", "body": "garden", "parent_id": work})
        for i in range(3):
            joplin.api("POST", "/notes", {"title": f"Hidden {i}", "body": "garden", "parent_id": secret})
        wire = Wire()
        store = joplin.store(tmp_path / "profile", wire=wire)
        try:
            search = JoplinKeywordSearch(store)

            def asked() -> list[str]:
                return [
                    q.get("query", "")
                    for _, path, q in wire.requests
                    if path == "/search" and q.get("type") != "folder"
                ]

            assert search.search("garden", folder_ids=frozenset({work})).total == 2
            scoped = asked()
            assert scoped and all(q == 'garden notebook:"Work"' for q in scoped), scoped
            wire.clear()
            search.search("garden")
            assert asked() and all(q == "garden" for q in asked()), asked()  # unscoped: as typed
        finally:
            store.close()


NOTE_CALLS: tuple[tuple[str, dict[str, object] | None], ...] = (
    ("read_note", {}),
    ("read_notes", None),
    ("note_history", {}),
    ("note_links", {}),
    ("list_attachments", None),
    ("update_note", {"append": "more"}),
    ("delete_note", {}),
    ("restore_note", {}),
    ("manage_tags", {"add": ["x"]}),
    ("attach_file", {"filename": "a.txt", "mime": "text/plain", "content_base64": "eAo="}),
)
"""Every tool that names a note, with what else it needs (None: its argument is another)."""


def _note_args(tool: str, extra: dict[str, object] | None, note_id: str) -> dict[str, object]:
    if tool == "read_notes":
        return {"ids": [note_id]}
    if tool in ("list_attachments", "manage_tags", "attach_file"):
        return {"note_id": note_id, **(extra or {})}
    return {"id": note_id, **(extra or {})}


async def test_a_note_joplin_cannot_decrypt_outside_the_scope_answers_as_one_that_does_not_exist(
    store: JoplinStore, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    """Each tool answered "note 1a2b3c4d is encrypted and Joplin has not decrypted it yet" for a
    note of Secret, where a note that does not exist is "no note with id": so the client learned
    the note is there. Not vacuous: the main token is told it is encrypted."""
    joplin: JoplinServer = shared_server(tmp_path_factory.getbasetemp())
    word = secrets.token_hex(4)
    work = store.create_folder(f"Work {word}", actor="user")
    secret = store.create_folder(f"Secret {word}", actor="user")
    sealed = store.create_note(NoteDraft("Sealed", "sealed text", secret.id), actor="user")
    joplin.as_if_encrypted(sealed.id)
    nowhere = "0" * 32
    settings = Settings.load(tmp_path / "config.toml")
    for tool, _ in NOTE_CALLS:
        settings.set(f"ai.tool.{tool}.enabled", True)
    clients = ClientTokens.beside(settings.path)
    token = clients.add("work", notebooks=[work.id])
    main = clients.add("main")
    deps = McpDeps(store, JoplinKeywordSearch(store), settings, build_registry(settings))
    http = HttpServer(NotedMcp(deps, poll_seconds=0.2), HttpOptions(port=0, clients_file=clients.path))
    await http.start()
    differ = []
    try:
        async with (
            http_client(str(http.url), "legacy", headers=bearer(token)) as client,
            http_client(str(http.url), "legacy", headers=bearer(main)) as everything,
        ):
            for tool, extra in NOTE_CALLS:
                said = []
                for note_id in (sealed.id, nowhere):
                    result = await client.call_tool(tool, _note_args(tool, extra, note_id))
                    said.append(
                        str([result.is_error, result.structured_content, text_of(result)])
                        .replace(note_id, "ID")
                        .replace(note_id[:8], "ID8")
                    )
                if said[0] != said[1]:
                    differ.append((tool, said))
            told = await everything.call_tool("read_note", {"id": sealed.id})
    finally:
        await http.stop()
    assert differ == [], differ
    assert told.is_error and "encrypted" in text_of(told)

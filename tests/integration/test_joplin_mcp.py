"""The MCP server over a real Joplin, and what happens when Joplin stops in the middle of a session."""

from __future__ import annotations

import os
import secrets
import subprocess
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from tests.integration.mcp_support import http_client, noted_command, text_of
from tests.support.joplin import JoplinServer, free_port, shared_server, unavailable_reason
from tests.support.polling import scaled

from noted.errors import BackendError
from noted.mcp.deps import McpDeps
from noted.mcp.http import HttpServer
from noted.mcp.options import HttpOptions
from noted.mcp.server import NotedMcp
from noted.models import NoteDraft
from noted.search.joplin import JoplinKeywordSearch
from noted.settings import Settings
from noted.store.joplin import JoplinStore, JoplinUnreachableError
from noted.tools import build_registry

pytestmark = pytest.mark.slow


@pytest.fixture
def joplin(tmp_path_factory: pytest.TempPathFactory) -> JoplinServer:
    return shared_server(tmp_path_factory.getbasetemp())


@pytest.fixture
def store(joplin: JoplinServer, tmp_path: Path) -> Iterator[JoplinStore]:
    s = joplin.store(tmp_path / "profile", read_deadline=1.0)
    yield s
    s.close()


def _seed(store: JoplinStore) -> tuple[str, str]:
    """A note with a word found nowhere else in the shared Joplin; (word, note id)."""
    word = "mcp" + secrets.token_hex(4)
    folder = store.create_folder(f"MCP {word}", actor="user")
    note = store.create_note(
        NoteDraft("Quarter budget", f"# Budget\n\nThe {word} budget is 12k.", folder.id), actor="user"
    )
    return word, note.id


@asynccontextmanager
async def stdio_client(
    profile: Path, joplin: JoplinServer, extra_env: dict[str, str] | None = None
) -> AsyncIterator[Client]:
    """``noted mcp serve --stdio --joplin`` as an AI app would start it, token from the environment."""
    program, *args = noted_command()
    env = {
        **os.environ,
        "NOTED_JOPLIN_TOKEN": joplin.token,
        "NOTED_JOPLIN_URL": joplin.url,
        "NOTED_PROFILE": str(profile),
        **(extra_env or {}),
    }
    made = subprocess.run([program, *args, "init", "--joplin"], env=env, capture_output=True, text=True)
    assert made.returncode == 0, made.stderr  # the profile is made once, as a person does
    params = StdioServerParameters(
        command=program, args=[*args, "mcp", "serve", "--stdio", "--joplin"], env=env
    )
    info = types.Implementation(name="joplin-client", version="1.0")
    async with Client(params, mode="legacy", client_info=info, read_timeout_seconds=scaled(120)) as client:
        yield client


async def test_noted_mcp_serve_joplin_answers_a_search(
    joplin: JoplinServer, store: JoplinStore, tmp_path: Path
) -> None:
    word, note_id = _seed(store)
    async with stdio_client(tmp_path / "mcp-profile", joplin) as client:
        found = await client.call_tool("search_notes", {"query": word})
        assert not found.is_error, text_of(found)
        assert isinstance(found.structured_content, dict)
        hits = found.structured_content["results"]
        assert [h["id"] for h in hits] == [note_id]
        read = await client.call_tool("read_note", {"id": note_id})
        assert not read.is_error and f"The {word} budget is 12k." in text_of(read)
    # The notes stayed in Joplin: the profile holds the sidecar only.
    assert (tmp_path / "mcp-profile" / "joplin-sidecar.db").exists()
    assert not (tmp_path / "mcp-profile" / "notes.db").exists()


async def test_joplin_stopping_mid_session_is_reported_and_recovered_from(
    joplin: JoplinServer, store: JoplinStore, tmp_path: Path
) -> None:
    word, note_id = _seed(store)
    settings = Settings.load(tmp_path / "config.toml")
    deps = McpDeps(store, JoplinKeywordSearch(store), settings, build_registry(settings))
    http = HttpServer(NotedMcp(deps, poll_seconds=0.2), HttpOptions(port=0))
    await http.start()
    try:
        async with http_client(str(http.url), "legacy") as client:
            assert not (await client.call_tool("search_notes", {"query": word})).is_error

            joplin.stop()
            try:
                down = await client.call_tool("search_notes", {"query": word})
                assert down.is_error
                assert f"Joplin is not reachable at {joplin.url}" in text_of(down)
                with pytest.raises(JoplinUnreachableError, match="nothing was changed"):
                    store.create_folder("Never made", actor="user")
                with pytest.raises(BackendError, match="not reachable"):
                    store.get_note(note_id)
            finally:
                joplin.start()

            # The same server, the same store: answers again without being restarted.
            back = await client.call_tool("search_notes", {"query": word})
            assert not back.is_error, text_of(back)
            assert isinstance(back.structured_content, dict)
            assert [h["id"] for h in back.structured_content["results"]] == [note_id]
    finally:
        await http.stop()
    assert "Never made" not in {f.title for f in store.list_folders()}


async def test_noted_mcp_serve_starts_while_joplin_is_off_and_answers_once_it_is_on(tmp_path: Path) -> None:
    # Before: the server read the index's counts from Joplin on the way up, so with Joplin off it
    # exited 16 after ~20 s and the AI app that started it at login had no noted tools.
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    later = JoplinServer(tmp_path / "later-joplin", free_port())  # not started yet
    async with stdio_client(tmp_path / "mcp-profile", later) as client:
        down = await client.call_tool("list_notebooks", {})
        assert down.is_error and f"Joplin is not reachable at {later.url}" in text_of(down)
        later.start()
        try:
            back = await client.call_tool("list_notebooks", {})
            assert not back.is_error, text_of(back)
        finally:
            later.stop()

"""The MCP server over Streamable HTTP, end to end with the SDK's client, in both protocol eras.

Each test starts the real HTTP server (uvicorn on a free loopback port) over a real profile and
talks to it with ``mcp.Client``: ``legacy`` is the initialize handshake with sessions, ``2026-07-28``
the sessionless protocol with per-request envelopes.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import mcp_types as types
import pytest
from mcp.client.subscriptions import ToolsListChanged
from mcp.shared.exceptions import MCPError
from tests.integration.mcp_support import MODES, World, http_client, http_server, make_world, text_of
from tests.support.polling import scaled

from noted.mcp.http import HttpServer

pytestmark = pytest.mark.parametrize("mode", MODES)


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    w = make_world(tmp_path_factory.mktemp("mcp-http") / "profile")
    yield w
    w.close()


@pytest.fixture
def world(shared: World) -> Iterator[World]:
    """The module's profile with every setting back at its default (one store: tests only append)."""
    yield shared
    shared.settings.path.unlink(missing_ok=True)
    shared.settings.reload()


async def test_lists_only_enabled_tools_with_schemas_and_annotations(world: World, mode: str) -> None:
    async with http_server(world) as http, http_client(str(http.url), mode) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert {"search_notes", "read_note", "list_notebooks", "note_history"} <= tools.keys()
        # write tools start switched off, and editor tools need a note open in the app
        assert "create_note" not in tools and "update_note" not in tools
        assert not any(name.startswith("editor_") for name in tools)
        search = tools["search_notes"]
        assert search.input_schema["properties"]["query"]["type"] == "string"
        assert search.output_schema is not None and search.output_schema["type"] == "object"
        assert search.annotations is not None and search.annotations.read_only_hint is True
        assert search.annotations.open_world_hint is False

        world.settings.set("ai.tool.create_note.enabled", True)
        names = {t.name for t in (await client.list_tools()).tools}
        assert "create_note" in names


async def test_read_tools_answer_structured_content_and_the_same_json_as_text(
    world: World, mode: str
) -> None:
    async with http_server(world) as http, http_client(str(http.url), mode) as client:
        found = await client.call_tool("search_notes", {"query": "budget"})
        assert not found.is_error
        assert isinstance(found.structured_content, dict)
        assert json.loads(text_of(found)) == found.structured_content
        assert {r["id"] for r in found.structured_content["results"]} == {world.work_note, world.private_note}

        note = await client.call_tool("read_note", {"id": world.work_note})
        assert isinstance(note.structured_content, dict)
        assert "12k" in note.structured_content["body"]
        outline = await client.call_tool("read_note", {"id": world.work_note, "outline": True})
        assert "Travel" in json.dumps(outline.structured_content)

        notebooks = await client.call_tool("list_notebooks", {})
        assert isinstance(notebooks.structured_content, dict)
        assert {"Work", "Private"} <= {n["title"] for n in notebooks.structured_content["notebooks"]}
        history = await client.call_tool("note_history", {"id": world.work_note})
        assert not history.is_error
        both = await client.call_tool("read_notes", {"ids": [world.work_note, "0" * 32]})
        assert isinstance(both.structured_content, dict) and both.structured_content["not_found"] == [
            "0" * 32
        ]
        listed = await client.call_tool("list_notebook_notes", {"notebook_id": world.work_id})
        assert world.work_note in json.dumps(listed.structured_content)
        assert not (await client.call_tool("list_tags", {})).is_error


async def test_a_disabled_write_tool_is_refused_naming_its_setting(world: World, mode: str) -> None:
    before = world.store.latest_cursor()
    async with http_server(world) as http, http_client(str(http.url), mode) as client:
        result = await client.call_tool("create_note", {"title": "from outside"})
    assert result.is_error
    assert "ai.tool.create_note.enabled" in text_of(result)
    assert world.store.latest_cursor() == before  # nothing was written


async def test_a_write_switched_on_is_recorded_with_the_client_name(world: World, mode: str) -> None:
    world.settings.set("ai.tool.update_note.enabled", True)
    async with http_server(world) as http, http_client(str(http.url), mode, name="Claude Desktop") as client:
        result = await client.call_tool("update_note", {"id": world.work_note, "append": "Added by MCP."})
    assert not result.is_error, text_of(result)
    assert world.store.get_note(world.work_note).body.rstrip().endswith("Added by MCP.")
    actors = [r.actor for r in world.store.note_history(world.work_note)]
    assert "mcp:self:Claude Desktop" in actors


async def test_numbers_beyond_any_real_time_or_offset_are_refused_naming_the_field(
    world: World, mode: str
) -> None:
    """A base time past year 9999 and an offset of 2**63 were internal errors (OverflowError from the
    date arithmetic and from SQLite); they are bad arguments, answered as such, with nothing written."""
    world.settings.set("ai.tool.update_note.enabled", True)
    before = world.store.latest_cursor()
    calls: list[tuple[str, dict[str, Any]]] = [
        ("update_note", {"id": world.work_note, "append": "x", "base_updated_time": 253402300800000}),
        ("update_note", {"id": world.work_note, "append": "x", "base_updated_time": 10**20}),
        ("list_notebook_notes", {"notebook_id": world.work_id, "offset": 2**63}),
        ("list_notes", {"updated_since": 2**63}),
    ]
    async with http_server(world) as http, http_client(str(http.url), mode) as client:
        for name, args in calls:
            result = await client.call_tool(name, args)  # an internal error would raise MCPError
            assert result.is_error and "the maximum is" in text_of(result), (name, text_of(result))
        late = {"id": world.work_note, "append": "x", "base_updated_time": "9999-12-31T23:59:59.999-01:00"}
        result = await client.call_tool("update_note", late)  # a string's offset moves it past 9999
        assert result.is_error and 'field "base_updated_time" must be a time' in text_of(result)
    assert world.store.latest_cursor() == before


async def test_a_call_missing_several_required_fields_names_them_all_at_once(world: World, mode: str) -> None:
    """One was named per call (``missing required field "note_id"``), so a client fixing its call
    by the answer needed four tries for ``attach_file``. Not vacuous: each field is looked for."""
    world.settings.set("ai.tool.attach_file.enabled", True)
    async with http_server(world) as http, http_client(str(http.url), mode) as client:
        result = await client.call_tool("attach_file", {"mime": "text/plain"})
    assert result.is_error
    said = 'missing required fields "note_id", "filename", "content_base64"'
    assert said in text_of(result), text_of(result)


async def test_a_toggle_sends_list_changed(world: World, mode: str) -> None:
    heard: list[Any] = []
    async with http_server(world) as http:
        async with http_client(str(http.url), mode, on_message=heard.append) as client:
            if mode == "legacy":
                await _toggle_until_heard(world, heard)
            else:
                async with client.listen(tools_list_changed=True) as subscription:
                    world.settings.set("ai.tool.create_note.enabled", True)
                    with anyio.fail_after(scaled(60)):
                        event = await subscription.__anext__()
                    assert isinstance(event, ToolsListChanged)
            names = {t.name for t in (await client.list_tools()).tools}
            assert ("create_note" in names) == world.settings.tool_enabled("create_note")


async def _toggle_until_heard(world: World, heard: list[Any]) -> None:
    # The handshake-era client opens its notice stream (GET) in the background after connecting; a
    # notice sent before it is open is lost by design, so flip the switch until one arrives.
    key = "ai.tool.create_note.enabled"
    with anyio.fail_after(scaled(60)):
        while not any(isinstance(m, types.ToolListChangedNotification) for m in heard):
            world.settings.set(key, not world.settings.resolve(key).value)
            with anyio.move_on_after(1.0):
                while not heard:
                    await anyio.sleep(0.02)


async def test_scope_hides_other_notebooks(world: World, mode: str) -> None:
    world.settings.set("mcp.allowedNotebooks", "Work")
    async with http_server(world) as http, http_client(str(http.url), mode) as client:
        # The private note matches "budget" better; if scope leaked, it would come first.
        found = await client.call_tool("search_notes", {"query": "budget"})
        assert isinstance(found.structured_content, dict)
        assert [r["id"] for r in found.structured_content["results"]] == [world.work_note]
        hidden = await client.call_tool("read_note", {"id": world.private_note})
        assert hidden.is_error and "Secret" not in text_of(hidden)
        notebooks = await client.call_tool("list_notebooks", {})
        assert "Private" not in json.dumps(notebooks.structured_content)


async def test_a_bug_is_an_internal_error_with_the_stack_only_in_the_log(world: World, mode: str) -> None:
    records: list[logging.LogRecord] = []
    handler = _ListHandler(records)
    logging.getLogger("noted").addHandler(handler)
    try:
        async with http_server(world) as http, http_client(str(http.url), mode) as client:
            with pytest.raises(MCPError) as caught:
                await client.call_tool("broken_tool", {})
            assert caught.value.code == types.INTERNAL_ERROR
            assert "secret internals" not in str(caught.value.error.model_dump())
            still = await client.call_tool("search_notes", {"query": "budget"})  # the server stays up
            assert not still.is_error
    finally:
        logging.getLogger("noted").removeHandler(handler)
    assert any(r.exc_info and "secret internals" in str(r.exc_info[1]) for r in records)


async def test_an_unknown_tool_is_invalid_params(world: World, mode: str) -> None:
    async with http_server(world) as http, http_client(str(http.url), mode) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("no_such_tool", {})
        assert caught.value.code == types.INVALID_PARAMS
        assert "search_notes" in caught.value.error.message


async def test_semantic_search_says_why_when_the_index_is_missing(world: World, mode: str) -> None:
    async with http_server(world) as http, http_client(str(http.url), mode) as client:
        result = await client.call_tool("semantic_search_notes", {"query": "money for the quarter"})
        assert result.is_error
        assert "index" in text_of(result) and "search_notes" in text_of(result)
        assert not (await client.call_tool("search_notes", {"query": "budget"})).is_error
        # find_notes still answers, by keyword, and says why.
        found = await client.call_tool("find_notes", {"query": "budget"})
        assert not found.is_error and isinstance(found.structured_content, dict)
        assert {r["id"] for r in found.structured_content["results"]} == {world.work_note, world.private_note}
        assert all(r["found_by"] == ["keyword"] for r in found.structured_content["results"])
        assert "index" in found.structured_content["semantic_error"]


async def test_health_endpoints_answer_ok_without_data(world: World, mode: str) -> None:
    async with http_server(world, token_file=None) as http:
        base = _base(http)
        async with httpx.AsyncClient() as raw:
            for path in ("/healthz", "/readyz"):
                response = await raw.get(base + path)
                assert response.status_code == 200
                assert response.json() == {"ok": True}


async def test_clients_are_tracked_and_named(world: World, mode: str) -> None:
    async with http_server(world) as http:
        async with http_client(str(http.url), mode, name="Cursor") as client:
            await client.list_tools()
            names = [c.name for c in http.mcp.connected()]
            assert "Cursor" in names


def _base(http: HttpServer) -> str:
    return f"http://127.0.0.1:{http.port}"


class _ListHandler(logging.Handler):
    def __init__(self, records: list[logging.LogRecord]) -> None:
        super().__init__(logging.DEBUG)
        self.records = records

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

"""The TUI's form of the server: HTTP as a task of the caller's event loop, sharing its services."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.integration.mcp_support import World, http_client, make_world, text_of

from noted.mcp.embedded import EmbeddedMcpServer, McpState
from noted.mcp.options import HttpOptions


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = make_world(tmp_path / "profile")
    yield w
    w.close()


async def test_start_serve_track_clients_and_stop(world: World) -> None:
    states: list[McpState] = []
    server = EmbeddedMcpServer(world.deps, options=HttpOptions(port=0), on_state=states.append)
    assert not server.state.running
    await server.start()
    try:
        state = server.state
        assert state.running and state.url is not None and state.url.startswith("http://127.0.0.1:")
        assert not state.token_required
        async with http_client(state.url, "legacy", name="Zed") as client:
            # a switch flipped in the app (the shared Settings) applies to the next call at once
            world.settings.set("ai.tool.create_note.enabled", True)
            created = await client.call_tool(
                "create_note", {"title": "From the TUI's server", "notebook_id": world.work_id}
            )
            assert not created.is_error, text_of(created)
            assert [c.name for c in server.state.clients] == ["Zed"]
            assert any(s.clients for s in states)  # the status bar was told
    finally:
        await server.stop()
    assert not server.state.running and server.url is None
    assert states[-1].running is False


async def test_apply_settings_follows_mcp_enabled_and_reports_a_busy_port(world: World) -> None:
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    port = busy.getsockname()[1]
    try:
        world.settings.set("mcp.port", port)
        server = EmbeddedMcpServer(world.deps)
        await server.apply_settings()
        assert not server.running  # mcp.enabled is off by default

        world.settings.set("mcp.enabled", True)
        await server.apply_settings()
        assert not server.running
        assert server.state.error is not None and str(port) in server.state.error

        busy.close()  # the port is free again: the next try takes it
        await server.apply_settings()
        assert server.running and server.state.error is None
        assert server.url == f"http://127.0.0.1:{port}/mcp"
        world.settings.set("mcp.enabled", False)
        await server.apply_settings()
        assert not server.running
    finally:
        busy.close()

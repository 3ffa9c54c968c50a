"""Pending proposals outlive ``noted mcp serve``: real server processes, stopped and killed.

A real MCP SDK client with a ``--writes review`` token proposes writes to a ``noted mcp serve``
process over HTTP on loopback. The process is stopped (SIGTERM) and a new one started on the same
profile; a write is proposed there and that process is killed outright (SIGKILL, nothing flushed
on the way out); a third one starts. The client, in a new session each time, sees all its
proposals pending through ``proposal_status``; the person accepts one with ``noted changes accept``
and the client sees it applied. Not vacuous: the notes do not change until the accept, and the
proposal kept through the SIGKILL is the one written just before it.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from tests.integration.mcp_support import World, bearer, cli_runner, http_client, make_world, serve_process

from noted.mcp.client_tokens import ClientTokens

MODE = "2026-07-28"


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = make_world(tmp_path / "profile")
    for tool in ("update_note", "create_note"):
        w.settings.set(f"ai.tool.{tool}.enabled", True)
    yield w
    w.close()


@asynccontextmanager
async def serve(world: World, stop: signal.Signals) -> AsyncIterator[str]:
    """A ``noted mcp serve`` process on the world's profile, its URL; ended by ``stop``."""
    async with serve_process(world, stop) as served:
        yield served.url
    assert served.returncode == (0 if stop is signal.SIGTERM else -signal.SIGKILL), served.err


def _structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result
    content: dict[str, Any] = result.structured_content
    return content


async def _statuses(url: str, headers: dict[str, str]) -> dict[str, str]:
    """The client's proposals and their status, asked in a new session."""
    async with http_client(url, MODE, headers=headers) as client:
        found = _structured(await client.call_tool("proposal_status", {}))["proposals"]
    return {p["proposal"]: p["status"] for p in found}


async def test_proposals_outlive_sigterm_and_sigkill_of_the_server(
    world: World, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    headers = bearer(ClientTokens.beside(world.settings.path).add("bot", tools=["all"], writes="review"))
    cursor = world.store.latest_cursor()
    writes = [
        ("update_note", {"id": world.work_note, "append": "Hotels too."}),
        ("create_note", {"title": "Ideas", "body": "one\n", "notebook_id": world.work_id}),
        ("update_note", {"id": world.work_note, "title": "Budget, Q3"}),
    ]
    refs: list[str] = []
    async with serve(world, signal.SIGTERM) as url:
        async with http_client(url, MODE, headers=headers) as client:
            for name, args in writes[:2]:
                answer = _structured(await client.call_tool(name, args))
                assert answer["status"] == "pending_review"
                refs.append(answer["proposal"])

    async with serve(world, signal.SIGKILL) as url:
        assert await _statuses(url, headers) == dict.fromkeys(refs, "pending")
        async with http_client(url, MODE, headers=headers) as client:
            refs.append(_structured(await client.call_tool(*writes[2]))["proposal"])

    async with serve(world, signal.SIGTERM) as url:
        assert await _statuses(url, headers) == dict.fromkeys(refs, "pending")
        assert world.store.latest_cursor() == cursor  # nothing written while they wait
        cli = cli_runner(world, capsys, monkeypatch)
        code, _, err = await asyncio.to_thread(cli, "changes", "accept", refs[0])
        assert code == 0, err
        assert await _statuses(url, headers) == {refs[0]: "applied", refs[1]: "pending", refs[2]: "pending"}
    note = world.store.get_note(world.work_note)
    assert note.body.rstrip().endswith("Hotels too.") and note.title == "Quarter budget"
    assert world.store.note_history(world.work_note)[0].actor == "mcp:bot"

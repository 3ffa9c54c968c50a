"""What an AI app changed over MCP, as the person reviews it with ``noted changes``.

Through the SDK's real client over Streamable HTTP, in this process, with the person's commands run
at the prompt (``cli_runner``): the entry a client's writes make is shown, counted and reverted
whole.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.integration.mcp_support import World, cli_runner, http_client, http_server, make_world, text_of

from noted.mcp.client_tokens import ClientTokens

MODE = "2026-07-28"


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = make_world(tmp_path / "profile", semantic=False)
    for tool in ("update_note", "manage_tags", "delete_note", "restore_note"):
        w.settings.set(f"ai.tool.{tool}.enabled", True)
    yield w
    w.close()


async def _calls(world: World, calls: list[tuple[str, dict[str, Any]]], name: str = "cursor") -> None:
    """Each call made by the client token ``name`` (added here), each answered without error."""
    clients = ClientTokens.beside(world.settings.path)
    token = clients.add(name, tools=["all"]) if clients.get(name) is None else None
    headers = {"authorization": f"Bearer {token}"} if token else {}
    async with http_server(world, clients_file=clients.path) as http:
        async with http_client(str(http.url), MODE, headers=headers) as client:
            for tool, args in calls:
                result = await client.call_tool(tool, args)
                assert not result.is_error, text_of(result)


async def test_two_appends_by_a_client_are_one_entry_shown_and_reverted_whole(
    world: World, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cli = cli_runner(world, capsys, monkeypatch)
    note = world.work_note
    before = world.store.get_note(note).body
    assert cli("changes")[0] == 0  # the review has read the feed up to here
    appends = [
        ("update_note", {"id": note, "append": "sugar"}),
        ("update_note", {"id": note, "append": "salt"}),
    ]
    await _calls(world, appends)
    code, out, err = await asyncio.to_thread(cli, "--json", "changes")
    (entry,) = json.loads(out)
    assert entry["actor"] == "mcp:cursor" and entry["summary"] == "+2 −0 lines"  # not "+1": both appends
    code, out, err = cli("changes", "show", str(entry["id"]))
    assert "+sugar" in out and "+salt" in out
    code, out, err = cli("changes", "revert", str(entry["id"]))
    assert code == 0, err
    body = world.store.get_note(note).body
    assert "sugar" not in body and body == before

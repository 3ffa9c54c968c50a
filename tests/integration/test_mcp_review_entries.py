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


@pytest.fixture
def token(world: World) -> str:
    """The token of the client "cursor", added as the person does with ``noted mcp token add``."""
    return ClientTokens.beside(world.settings.path).add("cursor", tools=["all"])


async def _calls(world: World, token: str, calls: list[tuple[str, dict[str, Any]]]) -> None:
    """Each call made by the client of ``token``, each answered without error."""
    clients = ClientTokens.beside(world.settings.path)
    async with http_server(world, clients_file=clients.path) as http:
        async with http_client(str(http.url), MODE, headers={"authorization": f"Bearer {token}"}) as client:
            for tool, args in calls:
                result = await client.call_tool(tool, args)
                assert not result.is_error, text_of(result)


async def test_two_appends_by_a_client_are_one_entry_shown_and_reverted_whole(
    world: World, token: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cli = cli_runner(world, capsys, monkeypatch)
    note = world.work_note
    before = world.store.get_note(note).body
    assert cli("changes")[0] == 0  # the review has read the feed up to here
    appends = [
        ("update_note", {"id": note, "append": "sugar"}),
        ("update_note", {"id": note, "append": "salt"}),
    ]
    await _calls(world, token, appends)
    code, out, err = await asyncio.to_thread(cli, "--json", "changes")
    (entry,) = json.loads(out)
    assert entry["actor"] == "mcp:cursor" and entry["summary"] == "+2 −0 lines"  # not "+1": both appends
    code, out, err = cli("changes", "show", str(entry["id"]))
    assert "+sugar" in out and "+salt" in out
    code, out, err = cli("changes", "revert", str(entry["id"]))
    assert code == 0, err
    body = world.store.get_note(note).body
    assert "sugar" not in body and body == before


async def test_a_clients_move_and_tags_are_reverted_after_the_person_saved_the_note(
    world: World, token: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The person saves the note after the client moved and tagged it, before anyone reads the
    review: the entry still says what the client did, and revert undoes it; where the person
    moved it again, it stays there and the revert says so (exit 3)."""
    cli = cli_runner(world, capsys, monkeypatch)
    note = world.work_note
    assert cli("changes")[0] == 0
    moves: list[tuple[str, dict[str, Any]]] = [
        ("update_note", {"id": note, "notebook_id": world.private_id}),
        ("manage_tags", {"note_id": note, "add": ["later"]}),
    ]
    await _calls(world, token, moves)
    assert cli("edit", note, "--append", "mine")[0] == 0
    code, out, err = await asyncio.to_thread(cli, "--json", "changes")
    (entry,) = json.loads(out)
    assert entry["summary"] == 'moved to "Private"; tagged later'
    code, out, err = cli("changes", "revert", str(entry["id"]))
    assert code == 0, err
    shown = json.loads(cli("--json", "show", note)[1])
    assert (shown["notebook"], shown["tags"]) == ("Work", [])
    assert shown["body"].rstrip().endswith("mine")

    await _calls(world, token, moves)
    assert cli("notebook", "create", "Later")[0] == 0
    assert cli("move", note, "Later")[0] == 0
    code, out, err = await asyncio.to_thread(cli, "--json", "changes")
    (entry,) = json.loads(out)
    code, out, err = cli("changes", "revert", str(entry["id"]))
    assert code == 3, err
    assert 'it was moved again since the change: it stays in "Later"' in out
    shown = json.loads(cli("--json", "show", note)[1])
    assert (shown["notebook"], shown["tags"]) == ("Later", [])
    assert json.loads(cli("--json", "changes")[1]) == []

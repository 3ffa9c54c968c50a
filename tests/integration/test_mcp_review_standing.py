"""A proposal is carried out with the scope its client has when the person accepts it.

A client in review mode proposes writes in "Private" while its token reaches every notebook; then
the person narrows what it may do (its notebooks or tools in ``mcp-clients.json``,
``mcp.allowedNotebooks``) or revokes it, and accepts. The write must not happen: what is in force
when it is carried out decides, not what was when it was proposed. Not vacuous: the same proposals
are applied when nothing was narrowed (the first test).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.integration.mcp_support import World, bearer, cli_runner, http_client, http_server, make_world

from noted.mcp.client_tokens import ClientTokens
from noted.store.review import ProposalState
from noted.store.sqlite.review import SqliteReview

MODE = "2026-07-28"


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = make_world(tmp_path / "profile", semantic=False)
    for tool in ("create_note", "update_note"):
        w.settings.set(f"ai.tool.{tool}.enabled", True)
    w.deps = dataclasses.replace(w.deps, review=SqliteReview(w.store.db))
    yield w
    w.close()


async def _propose(world: World, clients: ClientTokens, token: str) -> list[str]:
    """An edit of the private note and a new note in Private, as proposals."""
    calls: list[tuple[str, dict[str, Any]]] = [
        ("update_note", {"id": world.private_note, "append": "Leaked."}),
        ("create_note", {"title": "Planted", "body": "x\n", "notebook_id": world.private_id}),
    ]
    async with (
        http_server(world, clients_file=clients.path) as http,
        http_client(str(http.url), MODE, headers=bearer(token)) as client,
    ):
        answers = [(await client.call_tool(name, args)).structured_content for name, args in calls]
    assert all(a is not None and a["status"] == "pending_review" for a in answers), answers
    return [str(a["proposal"]) for a in answers if a is not None]


def _untouched(world: World) -> bool:
    body = world.store.get_note(world.private_note).body
    titles = {n.title for n in world.store.list_notes(folder_id=world.private_id)}
    return "Leaked." not in body and "Planted" not in titles


def _narrow_notebooks(world: World, clients: ClientTokens) -> None:
    (bot,) = clients.entries()
    clients.replace(lambda _: (bot.with_notebooks((world.work_id,)),))  # the person edits the file


def _narrow_tools(world: World, clients: ClientTokens) -> None:
    (bot,) = clients.entries()
    clients.replace(lambda _: (dataclasses.replace(bot, tools=("read",)),))


def _narrow_setting(world: World, clients: ClientTokens) -> None:
    world.settings.set("mcp.allowedNotebooks", world.work_id)


def _revoke(world: World, clients: ClientTokens) -> None:
    assert clients.revoke("bot")


async def test_proposals_apply_when_nothing_was_narrowed(
    world: World, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    clients = ClientTokens.beside(world.settings.path)
    refs = await _propose(world, clients, clients.add("bot", writes="review"))
    code, _, err = await asyncio.to_thread(cli_runner(world, capsys, monkeypatch), "changes", "accept", *refs)
    assert code == 0, err
    assert not _untouched(world)


@pytest.mark.parametrize(
    ("narrow", "state"),
    [
        (_narrow_notebooks, ProposalState.PENDING),  # the person can widen it again: it waits
        (_narrow_setting, ProposalState.PENDING),
        (_narrow_tools, ProposalState.FAILED),  # a token's tools never widen again
        (_revoke, ProposalState.FAILED),
    ],
)
async def test_a_proposal_accepted_after_its_client_was_narrowed_writes_nothing(
    world: World,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    narrow: Callable[[World, ClientTokens], None],
    state: ProposalState,
) -> None:
    clients = ClientTokens.beside(world.settings.path)
    refs = await _propose(world, clients, clients.add("bot", writes="review"))
    narrow(world, clients)
    cursor = world.store.latest_cursor()
    code, _, err = await asyncio.to_thread(cli_runner(world, capsys, monkeypatch), "changes", "accept", *refs)
    assert code != 0 and err.strip(), err
    assert "Traceback" not in err
    assert _untouched(world) and world.store.latest_cursor() == cursor
    rows = world.deps.review
    assert rows is not None
    assert {rows.proposal(int(ref[1:])).state for ref in refs} == {state}

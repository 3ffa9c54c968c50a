"""Ids given in upper case over MCP: found, and held to the scope exactly as in lower case.

Ids are 32 hex digits kept in lower case; an AI app (or a person pasting into one) may send one in
upper case, which found nothing ("no note with id"). The SDK's client asks over HTTP with a token
limited to "Work" and with the main token. Not vacuous: each upper-case id is shown to differ from
the stored one, and each refusal in the scope is shown to be a real one by the main token's answer.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from tests.integration.mcp_support import World, bearer, http_client, http_server, make_world, text_of

from noted.mcp.client_tokens import ClientTokens
from noted.mcp.token import create


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = make_world(tmp_path / "profile")
    for tool in ("update_note", "update_notebook"):
        w.settings.set(f"ai.tool.{tool}.enabled", True)
    yield w
    w.close()


@asynccontextmanager
async def _clients(world: World, tmp_path: Path) -> AsyncIterator[tuple[Client, Client]]:
    """A client limited to Work, and one with the main token (no scope)."""
    clients = ClientTokens.beside(world.settings.path)
    work = clients.add("work", notebooks=["Work"], tools=["all"])
    main = create(tmp_path / "main-token")
    async with http_server(world, clients_file=clients.path, token_file=tmp_path / "main-token") as http:
        async with (
            http_client(str(http.url), "legacy", headers=bearer(work)) as scoped,
            http_client(str(http.url), "legacy", headers=bearer(main)) as everything,
        ):
            yield scoped, everything


async def _ok(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    assert not result.is_error, text_of(result)
    payload: dict[str, Any] = result.structured_content
    return payload


async def _refusal(client: Client, tool: str, args: dict[str, Any]) -> str:
    result = await client.call_tool(tool, args)
    assert result.is_error
    return text_of(result)


async def test_an_upper_case_id_finds_the_note_notebook_and_tag(world: World, tmp_path: Path) -> None:
    note, work = world.work_note, world.work_id
    world.store.tag_note(note, ["plans"], actor="user")
    tag = world.store.note_tags(note)[0].id
    assert note.upper() != note and work.upper() != work and tag.upper() != tag
    async with _clients(world, tmp_path) as (scoped, everything):
        for client in (everything, scoped):
            read = await _ok(client, "read_note", {"id": note.upper()})
            assert (read["id"], read["title"]) == (note, "Quarter budget")
            listed = await _ok(client, "read_notes", {"ids": [note.upper()]})
            assert [n["id"] for n in listed["notes"]] == [note]
            assert (await _ok(client, "get_notebook", {"id": work.upper()}))["id"] == work
            inside = await _ok(client, "list_notebook_notes", {"notebook_id": work.upper()})
            assert [n["id"] for n in inside["notes"]] == [note]
            assert (await _ok(client, "get_tag", {"id": tag.upper()}))["id"] == tag


async def test_an_upper_case_id_is_held_to_the_scope_as_a_lower_case_one(
    world: World, tmp_path: Path
) -> None:
    private, private_note = world.private_id, world.private_note
    async with _clients(world, tmp_path) as (scoped, everything):
        assert (await _ok(everything, "read_note", {"id": private_note}))["id"] == private_note
        for tool, args in (
            ("read_note", {"id": private_note}),
            ("note_links", {"id": private_note}),
            ("list_notebook_notes", {"notebook_id": private}),
            ("get_notebook", {"id": private}),
            ("update_note", {"id": world.work_note, "notebook_id": private}),
        ):
            upper = {key: value.upper() for key, value in args.items()}
            assert await _refusal(scoped, tool, upper) == await _refusal(scoped, tool, args), tool
        read = await _ok(scoped, "read_notes", {"ids": [private_note.upper(), world.work_note.upper()]})
        assert [n["id"] for n in read["notes"]] == [world.work_note]
    assert world.store.get_note(world.work_note).parent_id == world.work_id  # not moved out of Work


async def test_a_notebook_cannot_move_below_itself_through_an_upper_case_id(
    world: World, tmp_path: Path
) -> None:
    """The cycle check compares ids: an upper-case child id must not slip past it."""
    child = world.store.create_folder("Child", parent_id=world.work_id, actor="user").id
    async with _clients(world, tmp_path) as (_, everything):
        upper = await _refusal(
            everything, "update_notebook", {"id": world.work_id, "parent_id": child.upper()}
        )
        lower = await _refusal(everything, "update_notebook", {"id": world.work_id, "parent_id": child})
    assert upper == lower and "into itself or one of its own sub-notebooks" in lower, lower
    assert world.store.get_folder(world.work_id).parent_id == ""

"""Links seen by an AI app limited to some notebooks: they lead among the notes it can see only.

A client token limited to "Work" asks through the SDK's client over HTTP, as an AI app would. The
rule under test: whatever lies outside the scope answers exactly as what does not exist. Not
vacuous: each hidden thing is shown to be there, and found, by the main token without a scope.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from tests.integration.mcp_support import World, bearer, http_client, http_server, make_world

from noted.mcp.client_tokens import ClientTokens
from noted.mcp.token import create
from noted.models import NoteDraft

FIRST, LAST = "0" * 31 + "1", "f" * 32
"""Ids that sort first and last: resolving a title among every note takes the lowest id."""


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = make_world(tmp_path / "profile")
    yield w
    w.close()


@asynccontextmanager
async def _clients(world: World, tmp_path: Path) -> AsyncIterator[tuple[Client, Client]]:
    """A client limited to Work, and one with the main token (no scope)."""
    clients = ClientTokens.beside(world.settings.path)
    work = clients.add("work", notebooks=["Work"], tools=["read"])
    main = create(tmp_path / "main-token")
    async with http_server(world, clients_file=clients.path, token_file=tmp_path / "main-token") as http:
        async with (
            http_client(str(http.url), "legacy", headers=bearer(work)) as scoped,
            http_client(str(http.url), "legacy", headers=bearer(main)) as everything,
        ):
            yield scoped, everything


async def _links(client: Client, note_id: str) -> dict[str, Any]:
    result = await client.call_tool("note_links", {"id": note_id})
    assert not result.is_error, result.content
    links: dict[str, Any] = result.structured_content
    return links


def _leads(links: dict[str, Any]) -> dict[str, Any]:
    """Each outgoing link as written → the note it leads to, or why it leads nowhere (with the
    name the link gives put back to ``NAME``, so a hidden name and a missing one compare)."""
    return {
        link["target"]: link["note_id"]
        or re.sub(re.escape(link["target"]), "NAME", link["broken"], flags=re.I)
        for link in links["outgoing"]
    }


async def test_a_scoped_clients_links_resolve_among_the_notes_it_can_see(
    world: World, tmp_path: Path
) -> None:
    store = world.store
    store.create_note(NoteDraft("Twin", "private twin", world.private_id, id=FIRST), actor="user")
    store.create_note(NoteDraft("Twin", "work twin", world.work_id, id=LAST), actor="user")
    body = f"[[Twin]] [[Secret budget]] [[Nothing here]] [p](:/{world.private_note}) [m](:/{'0' * 32})"
    linker = store.create_note(NoteDraft("Linker", body, world.work_id), actor="user").id
    async with _clients(world, tmp_path) as (scoped, everything):
        seen, whole = _leads(await _links(scoped, linker)), _leads(await _links(everything, linker))
    # Without a scope the private twin (the lower id) and the private note are where links lead…
    assert whole["Twin"] == FIRST and whole["Secret budget"] == world.private_note
    assert whole[f":/{world.private_note}"] == world.private_note
    # …in the scope, the twin it can see, and the private note is a name nothing has.
    assert seen["Twin"] == LAST
    assert seen["Secret budget"] == seen["Nothing here"] == 'no note "NAME"'
    assert seen[f":/{world.private_note}"] == seen[f":/{'0' * 32}"] == 'no note "NAME"'


async def test_backlinks_in_a_scope_are_not_crowded_out_by_links_from_outside(
    world: World, tmp_path: Path
) -> None:
    store = world.store
    # More notes outside than the backlink search keeps, each a better match than the one inside.
    for n in range(210):
        body = "[[Quarter budget]] quarter budget, quarter budget"
        store.create_note(NoteDraft(f"Private {n}", body, world.private_id), actor="user")
    filler = " ".join(f"word{n}" for n in range(400))
    inside = store.create_note(
        NoteDraft("Inside", f"{filler} [[Quarter budget]] {filler}", world.work_id), actor="user"
    ).id
    async with _clients(world, tmp_path) as (scoped, everything):
        seen = await _links(scoped, world.work_note)
        whole = await _links(everything, world.work_note)
    assert [b["note_id"] for b in seen["backlinks"]] == [inside]
    assert len(whole["backlinks"]) > 150  # they are there, and link it

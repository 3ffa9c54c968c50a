"""Links seen by an AI app limited to some notebooks: they lead among the notes it can see only,
and a ``:/id`` link it writes never shows it an attachment kept elsewhere.

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
from tests.integration.mcp_support import World, bearer, http_client, http_server, make_world, text_of

from noted.mcp.client_tokens import ClientTokens
from noted.mcp.token import create
from noted.models import NoteDraft, NotePatch

FIRST, LAST = "0" * 31 + "1", "f" * 32
"""Ids that sort first and last: resolving a title among every note takes the lowest id."""


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = make_world(tmp_path / "profile")
    for tool in ("update_note", "replace_attachment", "delete_attachment"):
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
    assert seen[f":/{world.private_note}"] == seen[f":/{'0' * 32}"] == 'no note or attachment "NAME"'


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


def _payroll(world: World) -> str:
    """A file kept with the Private note; its id."""
    payroll = world.store.add_resource(
        b"TOP SECRET PAYROLL\n", filename="payroll.txt", mime="text/plain", actor="user"
    )
    world.store.update_note(world.private_note, NotePatch(append=f"[payroll](:/{payroll.id})"), actor="user")
    return payroll.id


MADE_UP = "0123456789abcdef" * 2


async def test_an_attachment_a_note_outside_links_answers_as_an_id_that_names_nothing(
    world: World, tmp_path: Path
) -> None:
    """A Work note links a file of a Private note, and an id that names nothing. A client could
    write that link itself (it no longer can, see below), then read the file; deleting it was
    refused as "also linked from notes outside", and note_links left the real one out but listed
    the made-up one as broken: each told that the id exists elsewhere. Now the two answer alike."""
    store = world.store
    payroll, made_up = _payroll(world), MADE_UP
    store.update_note(world.work_note, NotePatch(append=f"[x](:/{payroll}) [y](:/{made_up})"), actor="user")
    checks: tuple[tuple[str, dict[str, str]], ...] = (
        ("read_attachment", {}),
        ("get_attachment", {}),
        ("delete_attachment", {}),
        ("replace_attachment", {"content_base64": "eAo=", "mime": "text/plain"}),
    )
    async with _clients(world, tmp_path) as (scoped, everything):
        answers = {}
        for rid in (payroll, made_up):
            said = []
            for tool, extra in checks:
                result = await scoped.call_tool(tool, {"id": rid, **extra})
                assert result.is_error, (tool, result.structured_content)
                said.append(text_of(result).replace(rid, "ID"))
            links = _leads(await _links(scoped, world.work_note))
            said.append(links[f":/{rid}"])
            answers[rid] = said
        listed = await scoped.call_tool("list_attachments", {"note_id": world.work_note})
        links, whole = await _links(scoped, world.work_note), await _links(everything, world.work_note)
        history = await scoped.call_tool("note_history", {"id": world.work_note})
        read = await everything.call_tool("read_attachment", {"id": payroll})
    assert answers[payroll] == answers[made_up]
    # a :/id names a note or an attachment: the link leads to neither, whichever it was meant for
    assert answers[made_up][-1] == 'no note or attachment "NAME"'
    assert listed.structured_content["attachments"] == []
    # note_links listed the file (its title, name and size) beside the link it calls broken
    assert links["attachments"] == [] and [a["id"] for a in whole["attachments"]] == [payroll]
    assert payroll not in {a["item_id"] for a in history.structured_content["activity"]}
    # Not vacuous: the file is there, unchanged, and the main token reads it.
    assert read.structured_content["text"] == "TOP SECRET PAYROLL\n"
    assert store.read_resource(payroll) == b"TOP SECRET PAYROLL\n"


async def test_a_scoped_client_cannot_link_what_it_cannot_see(world: World, tmp_path: Path) -> None:
    """A :/id link to a note or a file outside the scope is refused as one to an id that names
    nothing, whichever write adds it: a Markdown folder would write the path of what it names
    into the note, and a file linked from here would show once the notes elsewhere let go of it.
    Not vacuous: links to what the client can see are written, and the main token may link
    anything."""
    payroll = _payroll(world)
    mine = world.store.add_resource(b"mine", filename="mine.txt", mime="text/plain", actor="user")
    visible = world.store.create_note(NoteDraft("Visible", f"[m](:/{mine.id})", world.work_id), actor="user")
    world.settings.set("ai.tool.create_note.enabled", True)
    cursor = world.store.latest_cursor()
    async with _clients(world, tmp_path) as (scoped, everything):
        said = {}
        for rid in (world.private_note, payroll, MADE_UP):
            refusals = [
                await scoped.call_tool("update_note", {"id": world.work_note, "append": f"[x](:/{rid})"}),
                await scoped.call_tool(
                    "update_note", {"id": world.work_note, "body": f"[x](:/{rid.upper()})"}
                ),
                await scoped.call_tool(
                    "create_note", {"title": "t", "notebook_id": world.work_id, "body": f"![x](:/{rid})"}
                ),
            ]
            assert all(r.is_error for r in refusals)
            said[rid] = [text_of(r).replace(rid, "ID") for r in refusals]
        assert said[world.private_note] == said[payroll] == said[MADE_UP]
        assert world.store.latest_cursor() == cursor  # nothing was written
        fine = f"[v](:/{visible.id}) [m](:/{mine.id})"
        assert not (await scoped.call_tool("update_note", {"id": world.work_note, "append": fine})).is_error
        outside = await everything.call_tool(
            "update_note", {"id": world.work_note, "append": f"[p](:/{payroll})"}
        )
        assert not outside.is_error

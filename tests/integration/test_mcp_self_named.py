"""A client without a token is known only by the name it gives itself, so that name never makes it
another client: it writes as ``mcp:self:<name>``, never as the named client's ``mcp:<name>``, and
``proposal_status`` shows a caller only its own proposals within its scope.

Through the SDK's real client over Streamable HTTP. The named client "cursor" (its token in review
mode, every notebook) proposes a change to a note in "Private". Then, at a server on the same
profile that has no client tokens (loopback, ``mcp.allowedNotebooks`` = Work), an app calling
itself "cursor" asks ``proposal_status``: once it wrote as ``mcp:cursor`` and was given the
proposal, with the title of a note it may not see. Last, "cursor" is added again with Work only:
its own proposal on a note now out of its scope is not shown either.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.integration.mcp_support import World, http_client, http_server, text_of, writing_world

from noted.mcp.client_tokens import ClientTokens

MODE = "2026-07-28"


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = writing_world(tmp_path / "profile")
    yield w
    w.close()


def _payload(result: Any) -> dict[str, Any]:
    assert not result.is_error, text_of(result)
    content: dict[str, Any] = result.structured_content
    return content


async def _proposal_by_cursor(world: World, clients: ClientTokens, token: str) -> str:
    async with http_server(world, clients_file=clients.path) as http:
        headers = {"authorization": f"Bearer {token}"}
        async with http_client(str(http.url), MODE, headers=headers, name="Cursor") as client:
            answer = await client.call_tool(
                "update_note", {"id": world.private_note, "append": "secret plan"}
            )
            ref: str = _payload(answer)["proposal"]
            seen = _payload(await client.call_tool("proposal_status", {}))["proposals"]
            assert [(p["proposal"], p["note"]) for p in seen] == [(ref, "Secret budget")]  # its own, shown
            both = _payload(await client.call_tool("proposal_status", {"ids": [ref.upper(), "p999999"]}))
            assert [p["proposal"] for p in both["proposals"]] == [ref]  # P12 is p12
            assert both["not_found"] == ["p999999"]
            return ref


async def test_an_app_calling_itself_by_a_named_clients_name_is_not_that_client(world: World) -> None:
    clients = ClientTokens.beside(world.settings.path)
    ref = await _proposal_by_cursor(world, clients, clients.add("cursor", writes="review"))

    world.settings.set("mcp.allowedNotebooks", (world.work_id,))
    async with http_server(world) as http:  # no client tokens here: loopback, no token asked
        async with http_client(str(http.url), MODE, name="cursor") as client:
            mine = _payload(await client.call_tool("proposal_status", {}))
            asked = _payload(await client.call_tool("proposal_status", {"ids": [ref]}))
            unknown = _payload(await client.call_tool("proposal_status", {"ids": ["p999999"]}))
            # One out of its scope is "not found" in the words of one that never was: a refusal
            # says nothing, and an id asked for is never passed over in silence.
            assert mine == {"proposals": [], "not_found": []}
            assert asked == {"proposals": [], "not_found": [ref]}
            assert unknown == {"proposals": [], "not_found": ["p999999"]}
            done = await client.call_tool("update_note", {"id": world.work_note, "append": "by the app"})
            assert not done.is_error, text_of(done)
    actors = {r.actor for r in world.store.note_history(world.work_note)}
    assert "mcp:self:cursor" in actors and "mcp:cursor" not in actors


async def test_proposal_status_leaves_out_a_callers_own_proposal_outside_its_scope_now(world: World) -> None:
    clients = ClientTokens.beside(world.settings.path)
    ref = await _proposal_by_cursor(world, clients, clients.add("cursor", writes="review"))
    clients.revoke("cursor")
    narrowed = clients.add("cursor", notebooks=[world.work_id], writes="review")  # the same actor
    async with http_server(world, clients_file=clients.path) as http:
        headers = {"authorization": f"Bearer {narrowed}"}
        async with http_client(str(http.url), MODE, headers=headers) as client:
            for args, missing in (({}, []), ({"ids": [ref]}, [ref])):
                answer = _payload(await client.call_tool("proposal_status", args))
                assert answer == {"proposals": [], "not_found": missing}

"""A client whose token says ``--writes review``: its writes wait as proposals for the person.

Through the SDK's real client over Streamable HTTP: five writes change nothing in the notes (the
change feed does not move); the person accepts three and rejects two with ``noted changes``; the
client sees each outcome through ``proposal_status``; the accepted ones are in the history as
``mcp:bot``. The proposals outlive the server: it is stopped and a new one, over a store opened
afresh from the profile, still has them. Not vacuous: a client without ``--writes review`` (the
same calls with the "direct" token) writes at once.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator
from tests.integration.mcp_support import (
    World,
    bearer,
    cli_runner,
    http_client,
    http_server,
    make_world,
    text_of,
)
from tests.support.polling import scaled

from noted.mcp.client_tokens import ClientTokens
from noted.mcp.token import create
from noted.models import NoteDraft
from noted.store.sqlite import SqliteStore
from noted.store.sqlite.review import SqliteReview

MODE = "2026-07-28"


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = make_world(tmp_path / "profile")
    for tool in ("create_note", "update_note", "manage_tags"):
        w.settings.set(f"ai.tool.{tool}.enabled", True)
    yield w
    w.close()


def _reviewed(world: World) -> World:
    """The world's server parts, with the profile's proposals (as ``McpDeps.of(services)`` has)."""
    world.deps = dataclasses.replace(world.deps, review=SqliteReview(world.store.db))
    return world


def _reopen(world: World) -> None:
    """What a restart of ``noted mcp serve`` does: the store and its proposals opened afresh."""
    world.store.close()
    world.store = SqliteStore.open(world.profile.db_path, world.profile.resources_dir)
    keyword = type(world.deps.keyword)(world.store)
    world.deps = dataclasses.replace(
        world.deps, store=world.store, keyword=keyword, review=SqliteReview(world.store.db)
    )


def _structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, text_of(result)
    content: dict[str, Any] = result.structured_content
    return content


async def test_five_writes_wait_three_applied_two_rejected_and_the_client_sees_each(
    world: World, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    clients = ClientTokens.beside(world.settings.path)
    token = clients.add("bot", tools=["all"], writes="review")
    headers = {"authorization": f"Bearer {token}"}
    other = world.store.create_note(NoteDraft("Trip", "Lisbon\n", world.work_id), actor="user").id
    cursor = world.store.latest_cursor()
    writes: list[tuple[str, dict[str, Any]]] = [
        ("update_note", {"id": world.work_note, "append": "Hotels too."}),
        ("update_note", {"id": other, "title": "Trip to Lisbon"}),
        ("manage_tags", {"note_id": world.work_note, "add": ["money"]}),
        ("create_note", {"title": "Ideas", "body": "one\n", "notebook_id": world.work_id}),
        ("create_note", {"title": "Spam", "body": "buy\n", "notebook_id": world.work_id}),
    ]
    _reviewed(world)
    async with http_server(world, clients_file=clients.path) as http:
        async with http_client(str(http.url), MODE, headers=headers) as client:
            answers = [_structured(await client.call_tool(name, args)) for name, args in writes]
            assert [a["status"] for a in answers] == ["pending_review"] * 5
            refs = [a["proposal"] for a in answers]
            assert world.store.latest_cursor() == cursor  # nothing was written
            read = _structured(await client.call_tool("read_note", {"id": world.work_note}))
            assert read["pending_proposals"]["yours"] == [refs[2], refs[0]]
            assert "Hotels" not in read["body"]

    _reopen(world)  # the server stops; a new one opens the profile afresh
    async with http_server(world, clients_file=clients.path) as http:
        async with http_client(str(http.url), MODE, headers=headers) as client:
            waiting = _structured(await client.call_tool("proposal_status", {}))["proposals"]
            assert {p["proposal"]: p["status"] for p in waiting} == dict.fromkeys(refs, "pending")

            cli = cli_runner(world, capsys, monkeypatch)
            # the person, at another prompt (a thread here: the client's loop runs in this one)
            code, out, err = await asyncio.to_thread(cli, "changes", "accept", refs[0], refs[1], refs[3])
            assert code == 0, err
            code, out, err = await asyncio.to_thread(
                cli, "changes", "reject", refs[2], refs[4], "--reason", "not these"
            )
            assert code == 0, err

            outcomes = _structured(await client.call_tool("proposal_status", {"ids": refs}))["proposals"]
            by_ref = {p["proposal"]: (p["status"], p["reason"]) for p in outcomes}
            assert by_ref == {
                refs[0]: ("applied", ""),
                refs[1]: ("applied", ""),
                refs[3]: ("applied", ""),
                refs[2]: ("rejected", "not these"),
                refs[4]: ("rejected", "not these"),
            }

    store = world.store
    assert store.get_note(world.work_note).body.rstrip().endswith("Hotels too.")
    assert store.note_history(world.work_note)[0].actor == "mcp:bot"
    assert store.get_note(other).title == "Trip to Lisbon"
    assert store.note_history(other)[0].actor == "mcp:bot"
    assert [t.title for t in store.note_tags(world.work_note)] == []  # rejected
    titles = {n.title for n in store.list_notes(folder_id=world.work_id)}
    assert "Ideas" in titles and "Spam" not in titles


async def test_accepting_after_the_note_moved_on_writes_nothing_and_keeps_the_proposal(
    world: World, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    clients = ClientTokens.beside(world.settings.path)
    token = clients.add("bot", tools=["all"], writes="review")
    direct = clients.add("direct", tools=["all"])
    _reviewed(world)
    async with http_server(world, clients_file=clients.path) as http:
        async with http_client(str(http.url), MODE, headers={"authorization": f"Bearer {token}"}) as client:
            ref = _structured(
                await client.call_tool("update_note", {"id": world.work_note, "body": "all new\n"})
            )
        async with http_client(str(http.url), MODE, headers={"authorization": f"Bearer {direct}"}) as client:
            # the proposal rewrites every line, this one of them: a clash
            clash = {"id": world.work_note, "replace_text": {"find": "Trains only.", "replace": "Planes."}}
            made = _structured(await client.call_tool("update_note", clash))
            assert "status" not in made and made["id"] == world.work_note  # written at once
    body = world.store.get_note(world.work_note).body
    cli = cli_runner(world, capsys, monkeypatch)
    code, _, err = await asyncio.to_thread(cli, "changes", "accept", ref["proposal"])
    assert code == 3 and "changed after" in err
    assert world.store.get_note(world.work_note).body == body  # the other client's text stays
    code, out, _ = cli("--json", "changes", "show", ref["proposal"])
    assert code == 0 and '"state": "pending"' in out and "all new" in out  # it still waits, kept
    code, out, _ = cli("changes", "reject", ref["proposal"])  # the person can turn it down
    assert code == 0 and world.store.get_note(world.work_note).body == body


async def test_accepting_after_the_person_changed_other_lines_merges_both(
    world: World, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A proposal meets the note changed since on other lines (the person appended one): accepting
    merges both, as an approved chat write is (``noted.ops.conflicts.carried``). Not vacuous: it
    was refused (exit 3, "would overwrite that"); a clash still is (the test above)."""
    clients = ClientTokens.beside(world.settings.path)
    token = clients.add("bot", tools=["all"], writes="review")
    _reviewed(world)
    body = world.store.get_note(world.work_note).body
    async with http_server(world, clients_file=clients.path) as http:
        async with http_client(str(http.url), MODE, headers=bearer(token)) as client:
            new = body.replace("Trains only.", "Trains or buses.")
            ref = _structured(await client.call_tool("update_note", {"id": world.work_note, "body": new}))
    cli = cli_runner(world, capsys, monkeypatch)
    code, _, err = cli("edit", world.work_note, "--append", "Ask finance.")
    assert code == 0, err
    code, _, err = await asyncio.to_thread(cli, "changes", "accept", ref["proposal"])
    assert code == 0, err
    assert world.store.get_note(world.work_note).body.rstrip("\n").endswith("Trains or buses.\nAsk finance.")
    assert world.store.note_history(world.work_note)[0].actor == "mcp:bot"  # written as its client
    assert SqliteReview(world.store.db).proposal(int(ref["proposal"][1:])).state.value == "applied"


async def test_mcp_writes_review_puts_the_main_token_in_review_mode(
    world: World, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The main token (``noted mcp token``) has no ``--writes`` of its own: ``mcp.writes`` review
    makes its writes wait. Not vacuous: with ``direct`` (the default, set back mid-session and read
    at each call) the same client's write lands at once."""
    token_file = tmp_path / "token"
    create(token_file)
    world.settings.set("mcp.writes", "review")
    cursor = world.store.latest_cursor()
    _reviewed(world)
    cli = cli_runner(world, capsys, monkeypatch)
    code, out, _ = cli("mcp", "token", "list")
    assert code == 0 and "mcp.writes is review" in out  # the client list does not hide it
    async with http_server(world, token_file=token_file) as http:
        headers = bearer(token_file.read_text().strip())
        async with http_client(str(http.url), MODE, headers=headers, name="desk") as client:
            answer = _structured(
                await client.call_tool("update_note", {"id": world.work_note, "append": "Wait."})
            )
            assert answer["status"] == "pending_review"
            assert world.store.latest_cursor() == cursor  # nothing was written
            code, _, err = await asyncio.to_thread(cli, "changes", "accept", answer["proposal"])
            assert code == 0, err
            (seen,) = _structured(await client.call_tool("proposal_status", {}))["proposals"]
            assert (seen["proposal"], seen["status"]) == (answer["proposal"], "applied")
            assert world.store.note_history(world.work_note)[0].actor == "mcp:self:desk"

            world.settings.set("mcp.writes", "direct")
            made = _structured(
                await client.call_tool("update_note", {"id": world.work_note, "append": "Now."})
            )
            assert "status" not in made and made["id"] == world.work_note  # written at once
    assert world.store.get_note(world.work_note).body.rstrip().endswith("Wait.\nNow.")


async def test_a_client_added_again_under_an_old_name_does_not_see_the_old_ones_proposals(
    world: World,
) -> None:
    # proposals belonged to the name: a new "bot", added after the first was revoked, was told of
    # the old bot's proposals by proposal_status and read_note, as its own
    _reviewed(world)
    clients = ClientTokens.beside(world.settings.path)
    first = clients.add("bot", tools=["all"], writes="review")
    append = {"id": world.work_note, "append": "Hotels too."}
    async with http_server(world, clients_file=clients.path) as http:
        async with http_client(str(http.url), MODE, headers=bearer(first)) as client:
            old = _structured(await client.call_tool("update_note", append))["proposal"]
            mine = _structured(await client.call_tool("proposal_status", {}))["proposals"]
            assert [p["proposal"] for p in mine] == [old]  # not vacuous: its maker sees it
        clients.revoke("bot")
        second = clients.add("bot", tools=["all"], writes="review")
        async with http_client(str(http.url), MODE, headers=bearer(second)) as client:
            assert _structured(await client.call_tool("proposal_status", {"ids": [old]}))["proposals"] == []
            note = _structured(await client.call_tool("read_note", {"id": world.work_note}))
            assert note["pending_proposals"]["yours"] == [] and note["pending_proposals"]["others"] == 1
            new = _structured(await client.call_tool("update_note", append))["proposal"]
            mine = _structured(await client.call_tool("proposal_status", {}))["proposals"]
            assert [p["proposal"] for p in mine] == [new]
    review = SqliteReview(world.store.db)
    assert {p.client for p in review.proposals()} == {"mcp:bot"}  # one name, two owners


async def test_the_openapi_door_answers_review_mode_as_its_document_says_and_mcp_sees_its_proposals(
    world: World, tmp_path: Path
) -> None:
    """Two points. The document's 200 schema for a write was the direct answer's only, so the
    ``pending_review`` answer broke it (a client checking answers would reject it). And a proposal
    made with a token through the door (``actions:bot``) was no proposal of the same token over MCP
    (``mcp:bot``): the client is the token, whichever door it came through."""
    clients = ClientTokens.beside(world.settings.path)
    token = clients.add("bot", tools=["all"], writes="review")
    world.settings.set("mcp.actions.enabled", True)
    world.settings.set("ai.allowRemote", True)
    headers = {"authorization": f"Bearer {token}"}
    _reviewed(world)
    main = tmp_path / "token"
    create(main)
    served = {"clients_file": clients.path, "token_file": main, "actions": True, "allow_remote": True}
    async with http_server(world, **served) as http:
        base = f"http://127.0.0.1:{http.port}"
        async with httpx.AsyncClient(base_url=base, headers=headers, timeout=scaled(120)) as door:
            doc = (await door.get("/openapi.json")).json()
            made = await door.post(
                "/actions/create_note", json={"title": "Ideas", "notebook_id": world.work_id}
            )
        assert made.status_code == 200 and made.json()["status"] == "pending_review", made.text
        schema = doc["paths"]["/actions/create_note"]["post"]["responses"]["200"]["content"]
        Draft202012Validator(schema["application/json"]["schema"]).validate(made.json())
        async with http_client(str(http.url), MODE, headers=headers) as client:
            seen = _structured(await client.call_tool("proposal_status", {}))["proposals"]
    assert [p["proposal"] for p in seen] == [made.json()["proposal"]]

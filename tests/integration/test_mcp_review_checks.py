"""A client in review mode is refused what a direct client is refused, in the same words, and
nothing waits for the person: no proposal that could only fail when accepted.

Through the SDK's real client over Streamable HTTP, on a profile on disk, two tokens limited to
"Work": "rev" (``--writes review``) and "direct". Not vacuous: a valid write through "rev" is still
a proposal, so the refusals are not review mode switched off.
"""

from __future__ import annotations

import base64
import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.integration.mcp_support import (
    World,
    bearer,
    cli_runner,
    http_client,
    http_server,
    make_world,
    text_of,
)

from noted.mcp.client_tokens import ClientTokens
from noted.store.review import ProposalState
from noted.store.sqlite.review import SqliteReview

MODE = "2026-07-28"
MADE_UP = "0123456789abcdef0123456789abcdef"


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = make_world(tmp_path / "profile")
    for tool in ("create_note", "update_note", "manage_tags", "delete_tag"):
        w.settings.set(f"ai.tool.{tool}.enabled", True)
    w.deps = dataclasses.replace(w.deps, review=SqliteReview(w.store.db))
    yield w
    w.close()


def _tokens(world: World) -> tuple[ClientTokens, str, str]:
    clients = ClientTokens.beside(world.settings.path)
    review = clients.add("rev", notebooks=[world.work_id], tools=["all"], writes="review")
    direct = clients.add("direct", notebooks=[world.work_id], tools=["all"])
    return clients, review, direct


async def _answers(
    world: World, clients: ClientTokens, token: str, calls: list[Any]
) -> list[tuple[bool, str]]:
    """(is it an error, its text) for each call, through the token's own client."""
    async with http_server(world, clients_file=clients.path) as http:
        async with http_client(str(http.url), MODE, headers=bearer(token)) as client:
            results = [await client.call_tool(name, args) for name, args in calls]
    return [(bool(r.is_error), text_of(r)) for r in results]


async def test_what_direct_mode_refuses_review_mode_refuses_alike_and_proposes_nothing(world: World) -> None:
    clients, review, direct = _tokens(world)
    world.store.tag_note(world.work_note, ["money"], actor="user")
    calls: list[Any] = [
        ("update_note", {"id": world.work_note, "append": "x", "body": "y"}),
        ("update_note", {"id": world.work_note}),
        ("manage_tags", {"note_id": world.work_note}),
        ("delete_tag", {"id": MADE_UP}),
        ("create_note", {"title": "r2", "notebook_id": MADE_UP}),
        ("update_note", {"id": world.work_note, "replace_text": {"find": "not there", "replace": "y"}}),
        ("update_note", {"id": world.work_note, "title": "two\nlines"}),  # refused by every store
        ("manage_tags", {"note_id": world.work_note, "add": [" "]}),
    ]
    cursor = world.store.latest_cursor()
    waiting = await _answers(world, clients, review, calls)
    assert world.deps.review is not None and world.deps.review.proposals(state=None) == []
    assert world.store.latest_cursor() == cursor  # nothing was written either
    at_once = await _answers(world, clients, direct, calls)
    assert all(error for error, _ in at_once)  # each is refused in direct mode
    assert waiting == at_once  # and in review mode, in the same words
    assert "cannot be used together" in waiting[0][1] and "nothing to change" in waiting[1][1]

    valid = [("update_note", {"id": world.work_note, "append": "Hotels too."})]
    ((error, text),) = await _answers(world, clients, review, valid)
    assert not error and "pending_review" in text  # review mode is on: a valid write waits
    assert [p.state for p in world.deps.review.proposals(state=None)] == [ProposalState.PENDING]


async def test_a_refusal_says_the_same_for_outside_the_scope_and_for_nothing(world: World) -> None:
    """The "rev" token sees "Work" only: the "Private" notebook and its note answer as made-up ids
    do, so a refusal tells nothing of what lies outside."""
    clients, review, _ = _tokens(world)
    calls: list[Any] = [
        ("create_note", {"title": "r", "notebook_id": world.private_id}),
        ("create_note", {"title": "r", "notebook_id": MADE_UP}),
        ("update_note", {"id": world.private_note, "append": "x"}),
        ("update_note", {"id": MADE_UP, "append": "x"}),
    ]
    answers = await _answers(world, clients, review, calls)
    assert all(error for error, _ in answers)
    hidden = [
        text.replace(world.private_id, MADE_UP).replace(world.private_note, MADE_UP) for _, text in answers
    ]
    assert hidden[0] == hidden[1] and hidden[2] == hidden[3]
    assert world.deps.review is not None and world.deps.review.proposals(state=None) == []


async def test_a_delete_tag_proposal_is_named_after_the_tag(
    world: World, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not "Delete a tag": the person sees which tag, and the client the title it may see (its scope
    shows titles case-folded, as ``get_tag`` does)."""
    clients, review, _ = _tokens(world)
    (money,) = world.store.tag_note(world.work_note, ["Money"], actor="user")
    async with http_server(world, clients_file=clients.path) as http:
        async with http_client(str(http.url), MODE, headers=bearer(review)) as client:
            answer = await client.call_tool("delete_tag", {"id": money.id})
            assert not answer.is_error and answer.structured_content is not None
            ref = answer.structured_content["proposal"]
            status = await client.call_tool("proposal_status", {"ids": [ref]})
    assert status.structured_content is not None
    assert [p["note"] for p in status.structured_content["proposals"]] == ["money"]
    code, out, err = cli_runner(world, capsys, monkeypatch)("changes", "--pending")
    assert code == 0, err
    assert ref in out and 'delete tag "money"' in out and "Delete a tag" not in out
    assert "\n\n\n" not in out, out  # one blank line before the count, not two (as printed before)


async def test_a_write_that_changes_nothing_tells_nothing_of_a_note_outside_the_scope(world: World) -> None:
    """A call that would change nothing is answered at once (not proposed), as in direct mode, but
    only once the tool's own checks passed: on the "Private" note (a tag it has, its own text) it
    is refused as a made-up id is, so the answer does not tell that the note has that tag or text.
    Not vacuous: the same calls on the "Work" note are answered as unchanged."""
    clients, review, direct = _tokens(world)
    for note in (world.private_note, world.work_note):
        world.store.tag_note(note, ["money"], actor="user")
    private_body = world.store.get_note(world.private_note).body
    work_body = world.store.get_note(world.work_note).body
    calls: list[Any] = [
        ("manage_tags", {"note_id": world.private_note, "add": ["money"]}),
        ("manage_tags", {"note_id": MADE_UP, "add": ["money"]}),
        ("update_note", {"id": world.private_note, "body": private_body}),
        ("update_note", {"id": MADE_UP, "body": private_body}),
        ("manage_tags", {"note_id": world.work_note, "add": ["money"]}),
        ("update_note", {"id": world.work_note, "body": work_body}),
    ]
    cursor = world.store.latest_cursor()
    answers = await _answers(world, clients, review, calls)
    hidden = [text.replace(world.private_note, MADE_UP) for _, text in answers]
    assert answers[0][0] and answers[2][0]  # refused
    assert hidden[0] == hidden[1] and hidden[2] == hidden[3]
    assert answers[4:] == (await _answers(world, clients, direct, calls[4:]))  # direct mode's answers
    assert not any(error for error, _ in answers[4:]) and "pending_review" not in answers[4][1]
    assert world.deps.review is not None and world.deps.review.proposals(state=None) == []
    assert world.store.latest_cursor() == cursor


async def test_changes_show_names_the_attachment_and_the_notes_a_proposal_changes(
    world: World, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`changes show` of a replace_attachment proposal printed its arguments, the file's base64
    whole, and a scoped rename_tag's said nothing of the notes elsewhere keeping the old title."""
    for tool in ("attach_file", "replace_attachment", "rename_tag"):
        world.settings.set(f"ai.tool.{tool}.enabled", True)
    clients, review, direct = _tokens(world)
    world.store.tag_note(world.work_note, ["shared"], actor="user")
    (shared,) = world.store.tag_note(world.private_note, ["shared"], actor="user")
    new_file = base64.b64encode(b"new bytes " * 120).decode()
    async with http_server(world, clients_file=clients.path) as http:
        async with http_client(str(http.url), MODE, headers=bearer(direct)) as client:
            old_file = base64.b64encode(b"old").decode()
            attach = {"note_id": world.work_note, "content_base64": old_file, "mime": "text/plain"}
            made = await client.call_tool(
                "attach_file", {**attach, "filename": "old.txt", "title": "Receipt"}
            )
            assert made.structured_content is not None, text_of(made)
        async with http_client(str(http.url), MODE, headers=bearer(review)) as client:
            replace = {"id": made.structured_content["id"], "content_base64": new_file, "filename": "new.txt"}
            refs = []
            for name, args in (
                ("replace_attachment", replace),
                ("rename_tag", {"id": shared.id, "title": "common"}),
            ):
                answer = await client.call_tool(name, args)
                assert answer.structured_content is not None, text_of(answer)
                refs.append(answer.structured_content["proposal"])
    cli = cli_runner(world, capsys, monkeypatch)
    code, listed, _ = cli("changes", "--pending")
    assert code == 0 and 'replace attachment "Receipt"' in listed
    code, shown, err = cli("changes", "show", refs[0])
    assert code == 0, err
    assert new_file[:40] not in shown and "1,200 bytes" in shown  # its size, never its bytes
    assert 'the file "new.txt" (text/plain, 1,200 bytes) in place of the attachment "Receipt"' in shown
    assert "(old.txt, text/plain, 3 bytes)" in shown
    code, shown, err = cli("changes", "show", refs[1])
    assert code == 0, err
    assert "in the client's notebooks" in shown and 'notes elsewhere keep "shared"' in shown
    assert '"Quarter budget"' in shown and '"Secret budget"' not in shown  # its note, not the other's


async def test_a_proposal_with_no_owner_is_no_clients_and_still_the_persons_to_review(
    world: World, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A proposal made before noted recorded the token behind it carries no owner. Its client's name
    is no proof (a token revoked and added again under the name is a stranger), so no client sees it
    in proposal_status: it fails closed. The person still finds it among the pending changes."""
    clients, review, _ = _tokens(world)
    assert world.deps.review is not None
    old = world.deps.review.propose(  # as the review schema before `owner` stored it
        client="mcp:rev",
        tool="update_note",
        note_id=world.work_note,
        title="Quarter budget",
        base_updated_time=world.store.get_note(world.work_note).updated_time,
        time=1,
        detail={"arguments": {"id": world.work_note, "append": "old words"}, "scope": []},
    )
    calls: list[Any] = [
        ("update_note", {"id": world.work_note, "append": "new words"}),
        ("proposal_status", {}),
    ]
    answers = await _answers(world, clients, review, calls)
    listed = [p["proposal"] for p in json.loads(answers[1][1])["proposals"]]
    assert listed == [json.loads(answers[0][1])["proposal"]]  # its own new one, not the old
    assert f"p{old.id}" not in listed
    code, pending, _ = cli_runner(world, capsys, monkeypatch)("changes", "--pending")
    assert code == 0 and f"p{old.id}" in pending and "mcp:rev" in pending, pending

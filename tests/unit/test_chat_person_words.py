"""A refused write is told to the person in words for them; the model keeps its instructions."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest
from tests.support.polling import scaled
from tests.support.tools_env import make_env
from tests.unit.test_chat_ask_no_change import _run
from tests.unit.test_chat_ask_refused import _notes

from noted.chat.engine import MAX_FAILED_ROUNDS
from noted.chat.events import ApprovalRequested, ToolCallFinished
from noted.chat.turns import DECLINED, PAUSED, outcome
from noted.models import NoteDraft
from noted.profile import Profile
from noted.providers import CallTool, FakeProvider, Reply
from noted.providers.fake import Turn
from noted.services import Services
from noted.store.sqlite import SqliteStore
from noted.tools.pinning import changed
from noted.tools.registry import NOT_APPROVED


async def test_a_stale_update_is_told_to_the_person_without_the_models_instructions(
    store: SqliteStore, tmp_path: Path
) -> None:
    """The chat's card and ``noted ask`` said "Not done: note … has changed since you read it …
    Call read_note again and redo your change on what it says now.": words for the model."""
    env = make_env(store, tmp_path, enabled=("update_note",))
    note = env.note(env.folder("Work"), "Plan", "v1")
    refused = await env.error("update_note", id=note, append="x", base_updated_time=1)
    for_model = refused.for_model()["error"]
    assert "Call read_note again" in for_model  # the model still gets its instruction
    _, said = outcome(refused.status, refused.for_model(), refused.for_person())
    assert said.startswith('error: note "Plan" has changed since the assistant read it'), said
    assert "nothing was written" in said
    assert "read_note" not in said and "you" not in said.split(), said


async def test_a_changed_item_a_declined_write_and_a_tool_switched_off_are_said_to_the_person(
    tmp_path: Path,
) -> None:
    """The scoped writes' refusal ("Read it again and redo your change …"), a decline ("Do not try
    it again unless they ask") and a switch ("Ask them if you need it"): the model's advice."""
    refused = changed("notebook", "Trips", "id")
    assert "Read it again" in str(refused)
    assert refused.person == 'notebook "Trips" has changed since the assistant read it; nothing was written.'
    services = Services.open(Profile(tmp_path / "profile").ensure(), welcome=False)
    try:
        services.settings.set("ai.tool.update_note.enabled", True)
        live, _ = _notes(services)
        script = [
            CallTool("update_note", {"id": live, "append": "x"}, id="c0"),
            CallTool("delete_note", {"id": live}, id="c1"),
        ]
        (declined, off) = await _finished(services, [script], answer=False)
    finally:
        services.close()
    assert declined.result == {"error": DECLINED, "status": "refused"}  # the model's, as it was
    assert outcome(declined.status, declined.result, declined.reason)[1] == f"refused: {NOT_APPROVED}"
    assert "Ask them" in off.result["error"] and "Ask them" not in off.reason, off.reason
    assert off.reason.startswith('the tool "delete_note" is switched off; it is switched on in Settings'), (
        off.reason
    )


async def test_a_call_not_run_after_failed_rounds_is_said_to_the_person(tmp_path: Path) -> None:
    """The tool line said "refused: Not run: … Answer the person in words, saying what went
    wrong.": the model's instruction, to the person."""
    services = Services.open(Profile(tmp_path / "profile").ensure(), welcome=False)
    try:
        rounds = [[CallTool("no_such_tool", {}, id=f"c{i}")] for i in range(MAX_FAILED_ROUNDS + 1)]
        finished = await _finished(services, rounds)
    finally:
        services.close()
    assert finished[-1].result["error"] == PAUSED  # the model's, as it was
    _, said = outcome(finished[-1].status, finished[-1].result, finished[-1].reason)
    assert (
        said == "refused: not run: the tool calls of the last rounds all failed, so no tools were offered"
    ), said


async def _finished(
    services: Services, rounds: Sequence[Turn], *, answer: bool = True
) -> list[ToolCallFinished]:
    """The calls' ends of a chat whose model plays ``rounds``; each question answered ``answer``."""
    fake = FakeProvider([*rounds, [Reply("Done.")]])
    engine = services.chat_engine(provider=lambda: fake)
    conversation = services.transcripts.create()
    finished: list[ToolCallFinished] = []

    async def consume() -> None:
        async for event in engine.run(conversation, "tidy up"):
            if isinstance(event, ApprovalRequested):
                event.approval.decide(answer)
            elif isinstance(event, ToolCallFinished):
                finished.append(event)

    await asyncio.wait_for(consume(), scaled(120))
    return finished


async def test_a_round_refused_whole_is_said_to_the_person_without_the_models_instructions(
    tmp_path: Path,
) -> None:
    """Each write of a round holding one that would be refused said "… nothing was written: fix
    that call and send them again" on its tool line: the model's instruction."""
    services = Services.open(Profile(tmp_path / "profile").ensure(), welcome=False)
    try:
        for tool in ("manage_tags", "update_note"):
            services.settings.set(f"ai.tool.{tool}.enabled", True)
        live, gone = _notes(services)
        calls = [
            CallTool("update_note", {"id": live, "append": "three"}, id="c0"),
            CallTool("manage_tags", {"note_id": gone, "add": ["x"]}, id="c1"),
        ]
        _, finished = await _run(services, calls)
    finally:
        services.close()
    assert "send them again" in finished[0].result["error"]  # the model keeps its instruction
    _, said = outcome(finished[0].status, finished[0].result, finished[0].reason)
    assert said.endswith("are approved all or none; nothing was written"), said
    assert "(change 2 of this round) would be refused" in said, said


@pytest.mark.parametrize("same_note", [False, True])
async def test_a_replace_that_matches_nothing_is_said_to_the_person_without_the_advice(
    tmp_path: Path, same_note: bool
) -> None:
    """A round's refusal (another note) and a batch's failure (the same note: not rehearsed ahead)
    quoted the refused call's reason as the model was told it: "… must match exactly once. Copy the
    exact text from read_note (spaces and line breaks count)." reached the person, as no rewrite of
    the model's words knew that advice."""
    services = Services.open(Profile(tmp_path / "profile").ensure(), welcome=False)
    try:
        services.settings.set("ai.tool.update_note.enabled", True)
        live, _ = _notes(services)
        other = (
            live
            if same_note
            else services.store.create_note(
                NoteDraft("Other", "two\n", parent_id=services.store.get_note(live).parent_id), actor="user"
            ).id
        )
        calls = [
            CallTool("update_note", {"id": live, "append": "three"}, id="c0"),
            CallTool(
                "update_note", {"id": other, "replace_text": {"find": "absent", "replace": "x"}}, id="c1"
            ),
        ]
        _, finished = await _run(services, calls)
    finally:
        services.close()
    assert "Copy the exact text from read_note" in finished[0].result["error"]  # the model's, kept
    _, said = outcome(finished[0].status, finished[0].result, finished[0].reason)
    refused = (
        "update note (change 2 of this round) would be refused" if not same_note else "(update note) failed"
    )
    assert refused in said, said
    assert "matches 0 times" in said and "read_note" not in said and "Copy" not in said, said

"""A refused write is told to the person in words for them; the model keeps its instructions."""

from __future__ import annotations

from pathlib import Path

from tests.support.tools_env import make_env
from tests.unit.test_chat_ask_no_change import _run
from tests.unit.test_chat_ask_refused import _notes

from noted.chat.turns import DECLINED, PAUSED, for_person, outcome
from noted.models import ToolStatus
from noted.profile import Profile
from noted.providers import CallTool
from noted.services import Services
from noted.store.sqlite import SqliteStore
from noted.tools.pinning import changed


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
    _, said = outcome(refused.status, refused.for_model())
    assert said.startswith('error: note "Plan" has changed since the assistant read it'), said
    assert "nothing was written" in said
    assert "read_note" not in said and "you" not in said.split(), said


def test_a_changed_item_and_a_declined_write_are_said_to_the_person() -> None:
    """The scoped writes' refusal ("Read it again and redo your change …") and a decline."""
    said = for_person(changed("notebook", "Trips", "id").message)
    assert said == 'notebook "Trips" has changed since the assistant read it; nothing was written.', said
    _, declined = outcome(ToolStatus.REFUSED, {"error": DECLINED})
    assert declined == "refused: not approved, so nothing was written"


def test_a_call_not_run_after_failed_rounds_is_said_to_the_person() -> None:
    """The tool line said "refused: Not run: … Answer the person in words, saying what went
    wrong.": the model's instruction, to the person."""
    _, said = outcome(ToolStatus.REFUSED, {"error": PAUSED, "status": "refused"})
    assert (
        said == "refused: not run: the tool calls of the last rounds all failed, so no tools were offered"
    ), said


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
    _, said = outcome(finished[0].status, finished[0].result)
    assert said.endswith("are approved all or none; nothing was written"), said
    assert "(change 2 of this round) would be refused" in said, said

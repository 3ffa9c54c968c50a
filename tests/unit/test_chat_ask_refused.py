"""With ``ai.writes = ask``, a write its rehearsal refuses is not put to the person.

The scripted fake model calls write tools in a chat. A call that would be refused (a note in the
trash, a notebook that is not there) gets direct mode's refusal at once and no question. When it is
one of several writes of a round, which the person approves all or none, none of them is asked
about nor run: each says which call would be refused and why, and nothing is written.

Not vacuous: before, each refused call was put to the person (the questions are counted), and a yes
to a batch holding one got nothing written but a failure.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.unit.test_chat_ask_no_change import _run

from noted.models import NoteDraft
from noted.profile import Profile
from noted.providers import CallTool
from noted.services import Services


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    s = Services.open(Profile(tmp_path / "profile").ensure(), welcome=False)
    for tool in ("manage_tags", "update_note"):
        s.settings.set(f"ai.tool.{tool}.enabled", True)
    yield s
    s.close()


def _notes(services: Services) -> tuple[str, str]:
    store = services.store
    work = store.create_folder("Work", actor="user")
    live = store.create_note(NoteDraft("Plan", "one\n", parent_id=work.id), actor="user")
    gone = store.create_note(NoteDraft("Old", "two\n", parent_id=work.id), actor="user")
    store.trash_note(gone.id, actor="user")
    return live.id, gone.id


async def test_a_call_that_would_be_refused_is_refused_without_asking(services: Services) -> None:
    _, gone = _notes(services)
    cursor = services.store.latest_cursor()
    call = CallTool("manage_tags", {"note_id": gone, "add": ["x"]}, id="c0")
    asked, [done] = await _run(services, [call])
    assert asked == []  # before: "Allow manage_tags?", then the refusal
    direct = await services.registry.call(
        call.name, {"note_id": gone, "add": ["x"]}, services.tool_context("u")
    )
    assert not direct.ok and done.status == direct.status and done.result == direct.for_model()
    assert services.store.latest_cursor() == cursor


async def test_a_batch_holding_a_refused_call_is_refused_whole_without_asking(services: Services) -> None:
    live, gone = _notes(services)
    cursor = services.store.latest_cursor()
    calls = [
        CallTool("update_note", {"id": live, "append": "three"}, id="c0"),
        CallTool("manage_tags", {"note_id": gone, "add": ["x"]}, id="c1"),
    ]
    asked, finished = await _run(services, calls)
    assert asked == []  # before: a batch of 2 to tick, whose yes wrote nothing
    assert [f.status for f in finished] == ["refused", "error"]
    told, refused = (str(f.result["error"]) for f in finished)
    assert "manage_tags (change 2 of this round) would be refused" in told and "nothing was written" in told
    assert "in the trash" in refused
    assert services.store.latest_cursor() == cursor

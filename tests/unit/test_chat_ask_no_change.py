"""With ``ai.writes = ask``, a write that would change nothing is answered at once, not asked about.

The scripted fake model calls write tools in a chat; each call that would leave everything as it is
(a tag the note has, its own text, its notebook, a notebook's or tag's own title) gets direct mode's
answer and no question; a real write of the same round is still asked about, alone or with the
others of a batch. Not vacuous: before, each of them was put to the person (the questions are
counted), and the same calls in direct mode answer alike and write nothing (the feed is checked).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.polling import scaled

from noted.chat.events import Approval, ApprovalRequested, BatchApproval, ChatEvent, ToolCallFinished
from noted.models import NoteDraft
from noted.profile import Profile
from noted.providers import CallTool, FakeProvider, Reply
from noted.services import Services

TOOLS = ("manage_tags", "update_note", "update_notebook", "rename_tag")


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    s = Services.open(Profile(tmp_path / "profile").ensure(), welcome=False)
    for tool in TOOLS:
        s.settings.set(f"ai.tool.{tool}.enabled", True)
    yield s
    s.close()


async def _run(services: Services, calls: list[CallTool]) -> tuple[list[Approval], list[ToolCallFinished]]:
    fake = FakeProvider([calls, [Reply("Done.")]])
    engine = services.chat_engine(provider=lambda: fake)
    conversation = services.transcripts.create()
    asked: list[Approval] = []
    events: list[ChatEvent] = []

    async def consume() -> None:
        async for event in engine.run(conversation, "tidy up"):
            events.append(event)
            if isinstance(event, ApprovalRequested):
                asked.append(event.approval)
                event.approval.decide(True)  # every change of a batch, ticked

    await asyncio.wait_for(consume(), scaled(120))
    return asked, [e for e in events if isinstance(e, ToolCallFinished)]


def _world(services: Services) -> dict[str, str]:
    store = services.store
    work = store.create_folder("Work", actor="user")
    note = store.create_note(NoteDraft("Plan", "one\n", parent_id=work.id, tags=("alpha",)), actor="user")
    other = store.create_note(NoteDraft("Other", "two\n", parent_id=work.id, tags=("alpha",)), actor="user")
    tag = store.find_tag("alpha")
    assert tag is not None
    return {"work": work.id, "note": note.id, "other": other.id, "alpha": tag.id}


def _unchanging(ids: dict[str, str]) -> list[CallTool]:
    return [
        CallTool("manage_tags", {"note_id": ids["note"], "add": ["Alpha"]}, id="c0"),
        CallTool("update_note", {"id": ids["note"], "body": "one\n"}, id="c1"),
        CallTool("update_note", {"id": ids["note"], "title": "Plan", "notebook_id": ids["work"]}, id="c2"),
        CallTool("update_notebook", {"id": ids["work"], "title": "Work"}, id="c3"),
        CallTool("rename_tag", {"id": ids["alpha"], "title": "alpha"}, id="c4"),
    ]


async def test_a_write_that_changes_nothing_is_answered_at_once_as_in_direct_mode(services: Services) -> None:
    ids = _world(services)
    cursor = services.store.latest_cursor()
    for call in _unchanging(ids):
        asked, finished = await _run(services, [call])
        assert asked == [], call  # before: "Allow manage_tags?" for a tag the note has
        [done] = finished
        assert done.status == "ok", (call, done)
        assert not isinstance(call.arguments, str)
        direct = await services.registry.call(call.name, call.arguments, services.tool_context("user"))
        assert direct.ok and direct.for_model() == done.result, call  # direct mode's very answer
    assert services.store.latest_cursor() == cursor  # nothing was written, by either


async def test_a_real_write_of_the_round_is_still_asked_about_alone(services: Services) -> None:
    ids = _world(services)
    calls = [*_unchanging(ids)[:2], CallTool("update_note", {"id": ids["other"], "append": "three"}, id="c9")]
    asked, finished = await _run(services, calls)
    assert [type(a) for a in asked] == [Approval]  # one question, for the one change, not a batch of 3
    assert all(f.status == "ok" for f in finished)
    assert "three" in services.store.get_note(ids["other"]).body


async def test_a_call_after_a_write_it_may_depend_on_is_still_asked_about(services: Services) -> None:
    """Removing the tag and adding it back: the second call changes nothing now, but does after the
    first, so both are put to the person (as one batch), and both run in order."""
    ids = _world(services)
    calls = [
        CallTool("manage_tags", {"note_id": ids["note"], "remove": ["alpha"]}, id="c0"),
        CallTool("manage_tags", {"note_id": ids["note"], "add": ["alpha"]}, id="c1"),
    ]
    asked, _ = await _run(services, calls)
    assert [len(a.items) for a in asked if isinstance(a, BatchApproval)] == [2]
    assert [t.title for t in services.store.note_tags(ids["note"])] == ["alpha"]

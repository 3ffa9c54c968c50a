"""One approval for a round's writes, with the scripted fake model.

The model tags three notes, moves one and edits one in a single round: the person is asked once,
unticks two changes, and only the ticked ones are written; one undo puts every note back and trashes
the note the batch made. Not vacuous: without the batch each write would ask on its own (the count
of questions is checked), and the undo is checked against the store.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.polling import scaled

from noted.chat.events import ApprovalRequested, BatchApplied, BatchApproval, ChatEvent, ToolCallFinished
from noted.models import NoteDraft, ToolStatus, assistant_actor
from noted.profile import Profile
from noted.providers import CallTool, FakeProvider, Reply
from noted.services import Services


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    s = Services.open(Profile(tmp_path / "profile").ensure(), welcome=False)
    for tool in ("manage_tags", "update_note", "create_note"):
        s.settings.set(f"ai.tool.{tool}.enabled", True)
    yield s
    s.close()


def _note(services: Services, folder_id: str, i: int) -> str:
    draft = NoteDraft(f"Note {i}", f"text {i}\n", parent_id=folder_id)
    return services.store.create_note(draft, actor="user").id


async def _run(services: Services, calls: list[CallTool], answer: Any) -> list[ChatEvent]:
    fake = FakeProvider([calls, [Reply("Done.")]])
    engine = services.chat_engine(provider=lambda: fake)
    conversation = services.transcripts.create()
    events: list[ChatEvent] = []

    async def consume() -> None:
        async for event in engine.run(conversation, "tidy up"):
            events.append(event)
            if isinstance(event, ApprovalRequested):
                answer(event.approval)

    await asyncio.wait_for(consume(), scaled(120))
    return events


async def test_one_question_ticked_changes_applied_and_one_undo_reverts_them(services: Services) -> None:
    store = services.store
    home = store.create_folder("Home", actor="user")
    work = store.create_folder("Work", actor="user")
    ids = [
        store.create_note(NoteDraft(f"Note {i}", f"text {i}\n", parent_id=home.id), actor="user").id
        for i in range(4)
    ]
    calls = [
        CallTool("manage_tags", {"note_id": ids[0], "add": ["later"]}, id="c0"),
        CallTool("manage_tags", {"note_id": ids[1], "add": ["later"]}, id="c1"),
        CallTool("manage_tags", {"note_id": ids[2], "add": ["later"]}, id="c2"),
        CallTool("update_note", {"id": ids[3], "notebook_id": work.id}, id="c3"),
        CallTool("update_note", {"id": ids[0], "append": "more"}, id="c4"),
        CallTool("create_note", {"title": "Summary", "body": "all\n", "notebook_id": work.id}, id="c5"),
    ]
    asked: list[BatchApproval] = []

    def answer(approval: Any) -> None:
        assert isinstance(approval, BatchApproval)
        asked.append(approval)
        approval.choose(i for i in range(len(approval.items)) if i not in (1, 2))  # Space on two

    events = await _run(services, calls, answer)
    assert len(asked) == 1 and len(asked[0].items) == 6  # one question for six writes
    (applied,) = [e for e in events if isinstance(e, BatchApplied)]
    assert applied.applied == 4
    tags = store.note_tag_titles(ids)
    assert tags.get(ids[0]) == ("later",) and ids[1] not in tags and ids[2] not in tags
    assert store.get_note(ids[3]).parent_id == work.id
    assert store.get_note(ids[0]).body.rstrip().endswith("more")
    made = [n for n in store.list_notes(folder_id=work.id) if n.title == "Summary"]
    assert len(made) == 1 and store.note_history(made[0].id)[0].actor.startswith(assistant_actor(""))

    engine = services.chat_engine(provider=lambda: FakeProvider([]))
    undone = engine.undo_batch(applied)
    assert undone.kept == () and undone.restored == 4  # two notes put back, one trashed, a tag deleted
    assert store.find_tag("later") is None  # the batch made it, and no note carries it now
    assert store.note_tag_titles(ids) == {}
    assert store.get_note(ids[3]).parent_id == home.id
    assert store.get_note(ids[0]).body == "text 0\n"
    assert store.get_note(made[0].id).is_trashed


async def test_no_to_the_batch_writes_nothing(services: Services) -> None:
    store = services.store
    home = store.create_folder("Home", actor="user")
    ids = [
        store.create_note(NoteDraft(f"Note {i}", "x\n", parent_id=home.id), actor="user").id for i in range(2)
    ]
    cursor = store.latest_cursor()
    calls = [CallTool("manage_tags", {"note_id": i, "add": ["later"]}, id=f"c{n}") for n, i in enumerate(ids)]
    events = await _run(services, calls, lambda approval: approval.decide(False))
    assert not [e for e in events if isinstance(e, BatchApplied)]
    assert store.latest_cursor() == cursor


async def test_a_change_that_fails_half_way_writes_none_of_the_batch(services: Services) -> None:
    """The third change names a note deleted while the person was deciding: the two before it ran
    first, and applied one after another they would stay written; as one unit nothing is kept."""
    store = services.store
    home = store.create_folder("Home", actor="user")
    ids = [_note(services, home.id, i) for i in range(3)]
    calls = [
        CallTool("manage_tags", {"note_id": ids[0], "add": ["later"]}, id="c0"),
        CallTool("update_note", {"id": ids[1], "append": "more"}, id="c1"),
        CallTool("update_note", {"id": ids[2], "append": "gone"}, id="c2"),
    ]

    def answer(approval: Any) -> None:
        store.trash_note(ids[2], actor="user")  # deleted for good meanwhile, in another window
        store.empty_trash(actor="user")
        approval.choose(range(len(approval.items)))

    cursor = store.latest_cursor()
    events = await _run(services, calls, answer)
    (outcome,) = [e for e in events if isinstance(e, BatchApplied)]
    assert outcome.applied == 0 and "change 3 (update note) failed" in outcome.message
    assert outcome.message.startswith("Nothing of this batch of 3 changes was written")
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert [e.status for e in finished] == [ToolStatus.ERROR] * 3
    assert store.note_tag_titles(ids[:2]) == {}
    assert store.get_note(ids[1]).body == "text 1\n"
    assert [c.actor for c in store.changes_since(cursor).changes] == ["user", "user"]  # the deletion only

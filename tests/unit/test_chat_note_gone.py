"""The open note changed by another process while the person is asked about the assistant's edits
of it: that edit is refused with one clear line and the rest of the answer stands.

Not vacuous: before, a note deleted while the card waited ended the whole answer in
``Failed("no note with id …")`` (the engine read the note for the undo before the commit, which
handles a deleted note), so the model's reply after the edits was never asked for.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from tests.support.polling import scaled

from noted.chat.events import ApprovalRequested, ChatEvent, Done, EditsApplied, EditsRefused, Failed
from noted.models import NoteDraft, NotePatch
from noted.ops.notes import move_note, trash_note, update_note
from noted.ops.session import EditorSession
from noted.ops.trash import empty_trash
from noted.profile import Profile
from noted.providers import CallTool, FakeProvider, Reply
from noted.services import Services

LIVENESS = scaled(120)  # seconds: only turns a hang into a failure, never a speed check


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    s = Services.open(Profile(tmp_path / "profile").ensure(), welcome=False)
    s.settings.set("ai.tool.edit_current.enabled", True)
    yield s
    s.close()


def _erase(services: Services, note_id: str) -> None:
    trash_note(services.store, note_id, actor="user")
    empty_trash(services.store, actor="user")


def _move(services: Services, note_id: str) -> None:
    other = services.store.create_folder("Elsewhere", actor="user")
    move_note(services.store, note_id, other.id, actor="user")


def _edit_same_line(services: Services, note_id: str) -> None:
    update_note(services.store, note_id, NotePatch(body="# S\n- milk!\n"), actor="user")


def _answer(services: Services, meanwhile: Callable[[Services, str], None]) -> tuple[str, list[ChatEvent]]:
    folder = services.store.create_folder("Home", actor="user")
    note = services.store.create_note(NoteDraft("S", "# S\n- milk\n", parent_id=folder.id), actor="user")
    fake = FakeProvider(
        [[CallTool("editor_replace", {"anchor": "- milk", "text": "- oat milk"}, id="e")], [Reply("Done.")]]
    )
    engine = services.chat_engine(provider=lambda: fake)
    conversation = services.transcripts.create(note_id=note.id)
    events: list[ChatEvent] = []

    async def consume() -> None:
        session = EditorSession.open(services.store, note.id)
        async for event in engine.run(conversation, "oat milk", editor=session):
            events.append(event)
            if isinstance(event, ApprovalRequested):
                await asyncio.to_thread(meanwhile, services, note.id)
                event.approval.decide(True)

    asyncio.run(asyncio.wait_for(consume(), LIVENESS))
    return note.id, events


def test_a_note_deleted_while_its_edit_waits_refuses_that_edit_and_the_answer_goes_on(
    services: Services,
) -> None:
    _, events = _answer(services, _erase)
    assert not [e for e in events if isinstance(e, Failed)], events
    (refused,) = [e for e in events if isinstance(e, EditsRefused)]
    # The person reads this line (the chat's card, `noted ask`): it said "while you were editing it",
    # the model's words, as if the person had been the one editing.
    assert refused.message == (
        "Not saved: the note was deleted while the assistant was editing it, so none of the 1 edit "
        "of this turn was written."
    ), refused.message
    assert isinstance(events[-1], Done) and events[-1].text == "Done."


def test_the_model_is_told_in_its_own_words_that_the_note_it_edited_is_gone(tmp_path: Path) -> None:
    """The model's line says what it can do now; the person's says who was editing."""
    s = Services.open(Profile(tmp_path / "p").ensure(), welcome=False)
    try:
        folder = s.store.create_folder("Home", actor="user")
        note = s.store.create_note(NoteDraft("S", "# S\n- milk\n", parent_id=folder.id), actor="user")
        for meanwhile, how in ((trash_note, "moved to the trash"), (None, "deleted")):
            session = EditorSession.open(s.store, note.id)
            session.replace_range(0, 1, "#", "edit")
            session.replace_range(0, 3, "# T", "edit")
            if meanwhile is not None:
                meanwhile(s.store, note.id, actor="user")
            else:
                empty_trash(s.store, actor="user")
            done = session.commit(s.store, "assistant:1")
            assert done.message == (
                f"Not saved: the note was {how} while the assistant was editing it, so none of the "
                "2 edits of this turn was written."
            )
            assert done.to_model.startswith(
                f"Not saved: the note was {how} while you were editing it, so none of the 2 edits "
                "of this turn was written."
            ), done.to_model
    finally:
        s.close()


@pytest.mark.parametrize("meanwhile", [_move, _edit_same_line], ids=["moved", "edited"])
def test_a_note_moved_or_edited_while_its_edit_waits_keeps_the_other_side(
    services: Services, meanwhile: Callable[[Services, str], None]
) -> None:
    note_id, events = _answer(services, meanwhile)
    assert not [e for e in events if isinstance(e, Failed)], events
    assert isinstance(events[-1], Done)
    body = services.store.get_note(note_id).body
    if meanwhile is _edit_same_line:  # the person's change stays; the model's is refused, not merged
        (refused,) = [e for e in events if isinstance(e, EditsRefused)]
        assert refused.message.startswith("Not saved"), refused.message
        assert body == "# S\n- milk!\n"
    else:  # a move leaves the text as it was: the edit lands on it
        assert [e for e in events if isinstance(e, EditsApplied)], events
        assert body == "# S\n- oat milk\n"

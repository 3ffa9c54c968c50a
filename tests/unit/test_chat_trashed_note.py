"""The assistant asked to edit a note that is in the trash: refused up front, for the reason that
is true, the same way ``noted edit`` refuses it (restore it first).

Not vacuous: before, ``noted ask --note`` ran the model, asked about the edit, and with ``--yes``
exited 0 saying the note "was moved to the trash while you were editing it"; the engine asked the
person to approve an edit that could never be saved.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.polling import scaled

from noted.chat.events import ApprovalRequested, ChatEvent, EditsProposed, EditsRefused
from noted.models import NoteDraft
from noted.ops.session import EditorSession
from noted.profile import Profile
from noted.providers import CallTool, FakeProvider, Reply
from noted.services import Services

LIVENESS = scaled(120)  # seconds: only turns a hang into a failure, never a speed check


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    s = Services.open(Profile(tmp_path / "profile").ensure(), welcome=False)
    yield s
    s.close()


def trashed_note(services: Services) -> str:
    folder = services.store.create_folder("Home", actor="user")
    note = services.store.create_note(NoteDraft("Tr", "x\n", parent_id=folder.id), actor="user")
    services.store.trash_note(note.id, actor="user")
    return note.id


async def test_the_engine_refuses_edits_of_a_note_in_the_trash_without_asking(services: Services) -> None:
    """The app's chat on a note in the trash takes this path too (``EditorSession.open``)."""
    note = trashed_note(services)
    services.settings.set("ai.tool.edit_current.enabled", True)
    fake = FakeProvider([[CallTool("editor_append", {"text": "- y"}, id="e")], [Reply("Understood.")]])
    engine = services.chat_engine(provider=lambda: fake)
    conversation = services.transcripts.create(note_id=note)
    events: list[ChatEvent] = []

    async def consume() -> None:
        session = EditorSession.open(services.store, note)
        async for event in engine.run(conversation, "buy y", editor=session):
            events.append(event)
            if isinstance(event, ApprovalRequested):
                event.approval.decide(True)  # would save it, were it asked

    await asyncio.wait_for(consume(), LIVENESS)
    assert not [e for e in events if isinstance(e, ApprovalRequested | EditsProposed)]
    (refused,) = [e for e in events if isinstance(e, EditsRefused)]
    assert "in the trash" in refused.message and f"noted restore {note[:8]}" in refused.message
    assert "while you were editing" not in refused.message
    assert services.store.get_note(note).body == "x\n"


def test_the_session_says_the_note_is_in_the_trash_not_that_it_was_moved_there(services: Services) -> None:
    note = trashed_note(services)
    session = EditorSession.open(services.store, note)
    session.replace_range(0, 0, "y", "insert")
    outcome = session.commit(services.store, "assistant:c")
    assert outcome.lost and "in the trash (restore it with" in outcome.message

"""A write the person approves in the chat is applied to the note as it was when they were asked.

The note's file is edited in the person's editor (a real file in a real git repository) or the note
is saved elsewhere while the approval card waits; the yes must not write the model's text over that
edit: a change beside the model's is merged, one on the same lines refuses the write (nothing
written, the model told to read again). Not vacuous: before the fix the approved body replaced the
file whole, and the person's line was gone from it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.vaults import git
from tests.unit.test_chat_engine import engine_for, of, results_sent, run

from noted.chat.events import ApprovalRequested, ChatEvent
from noted.models import NotePatch, assistant_actor
from noted.profile import Profile
from noted.providers.fake import CallTool, Reply
from noted.services import Services

BODY = "# Plan\n\nline one\n\nline two\n"


@pytest.fixture(params=["sqlite", "vault"])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Services, Callable[[str], None]]]:
    """Services on a note "Plan", and how the person edits its text outside the chat."""
    if request.param == "vault":
        vault = tmp_path / "vault"
        (vault / "Work").mkdir(parents=True)
        file = vault / "Work" / "Plan.md"
        file.write_text(BODY)
        git(vault, "init", "-q")
        git(vault, "add", "-A")
        git(vault, "commit", "-qm", "notes")
        services = Services.open(Profile(tmp_path / "p").ensure(), vault=str(vault))

        def edit(text: str) -> None:
            file.write_text(text)  # the person's editor
            services.store.follower.scan()  # type: ignore[attr-defined]  # as the watcher would

    else:
        services = Services.open(Profile(tmp_path / "p").ensure(), welcome=False)
        folder = services.store.create_folder("Work", actor="user")
        from noted.models import NoteDraft

        services.store.create_note(NoteDraft("Plan", BODY, folder.id), actor="user")

        def edit(text: str) -> None:
            (note,) = services.store.list_notes()
            services.store.update_note(note.id, NotePatch(body=text), actor="user")

    services.settings.set("ai.tool.update_note.enabled", True)
    yield services, edit
    services.close()


async def _approve_after(
    services: Services, edit: Callable[[str], None], person: str, model: str
) -> dict[str, Any]:
    (note,) = services.store.list_notes()
    engine, fake = engine_for(
        services, [CallTool("update_note", {"id": note.id, "body": model}, id="w")], [Reply("ok")]
    )
    conversation = services.transcripts.create(note_id=note.id)

    def on_event(event: ChatEvent) -> None:
        if isinstance(event, ApprovalRequested):  # the card waits; the person edits, then says yes
            edit(person)
            event.approval.decide(True)

    events = await run(engine, conversation, "Edit line one", on_event=on_event)
    assert len(of(events, ApprovalRequested)) == 1
    return {
        "note": note.id,
        "sent": results_sent(fake.requests[1])["w"],
        "actor": assistant_actor(conversation.id),
    }


async def test_an_edit_beside_the_models_is_merged(world: tuple[Services, Callable[[str], None]]) -> None:
    services, edit = world
    person = BODY + "\nthe person's line\n"
    done = await _approve_after(services, edit, person, BODY.replace("line one", "line one, by the model"))

    assert not done["sent"]["_is_error"], done["sent"]
    body = services.store.get_note(done["note"]).body
    assert "the person's line" in body and "line one, by the model" in body
    assert services.store.note_history(done["note"])[0].actor == done["actor"]  # attributed, undoable


async def test_an_edit_of_the_same_lines_refuses_the_write(
    world: tuple[Services, Callable[[str], None]],
) -> None:
    services, edit = world
    person = BODY.replace("line one", "line one, by the person")
    done = await _approve_after(services, edit, person, BODY.replace("line one", "line one, by the model"))

    assert done["sent"]["_is_error"] and "changed" in done["sent"]["error"]
    assert services.store.get_note(done["note"]).body == person  # nothing written over it
    assert not [r for r in services.store.note_history(done["note"]) if r.actor == done["actor"]]


async def test_a_batch_approved_after_a_clashing_edit_writes_nothing(
    world: tuple[Services, Callable[[str], None]],
) -> None:
    """Several writes come as one card and are applied all or none: the stale one refuses them all."""
    services, edit = world
    services.settings.set("ai.tool.create_note.enabled", True)
    (note,) = services.store.list_notes()
    model = BODY.replace("line one", "line one, by the model")
    calls = [
        CallTool("update_note", {"id": note.id, "body": model}, id="w"),
        CallTool("create_note", {"title": "Follow-up", "notebook_title": "Work"}, id="c"),
    ]
    engine, fake = engine_for(services, calls, [Reply("ok")])
    person = BODY.replace("line one", "line one, by the person")

    def on_event(event: ChatEvent) -> None:
        if isinstance(event, ApprovalRequested):
            edit(person)
            event.approval.decide(True)

    await run(engine, services.transcripts.create(note_id=note.id), "Edit and follow up", on_event=on_event)

    sent = results_sent(fake.requests[1])
    assert sent["w"]["_is_error"] and sent["c"]["_is_error"]
    assert services.store.get_note(note.id).body == person
    assert [n.title for n in services.store.list_notes()] == ["Plan"]

"""A write the person approves in the chat is applied to the note as it was when they were asked.

The note's file is edited in the person's editor (a real file in a real git repository) or the note
is saved elsewhere while the approval card waits; the yes must not write the model's text over that
edit: a change beside the model's is merged, one on the same lines refuses the write (nothing
written, the model told to read again). Not vacuous: before the fix the approved body replaced the
file whole, and the person's line was gone from it. The same holds for the edits of the open note
(``editor_replace`` and its kin): before, any change made outside the app's editor refused them,
even one on other lines.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.vaults import committed
from tests.unit.test_chat_engine import engine_for, of, results_sent, run

from noted.chat.events import ApprovalRequested, ChatEvent, EditsApplied, EditsRefused
from noted.models import NotePatch, assistant_actor
from noted.ops.session import EditorSession
from noted.profile import Profile
from noted.providers.fake import CallTool, Reply
from noted.services import Services

BODY = "# Plan\n\nline one\n\nline two\n"


@pytest.fixture(params=["sqlite", "vault", "vault-unwatched"])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Services, Callable[[str], None]]]:
    """Services on a note "Plan", and how the person edits its text outside the chat. A Markdown
    folder without a watcher (``noted ask``, a folder it cannot watch) has not seen the edit when
    the yes comes: before, the yes read the mirror's old copy and every edit refused the write."""
    if request.param.startswith("vault"):
        vault = tmp_path / "vault"
        file = committed(vault, {"Work/Plan.md": BODY})
        services = Services.open(Profile(tmp_path / "p").ensure(), vault=str(vault))
        watched = request.param == "vault"

        def edit(text: str) -> None:
            file.write_text(text)  # the person's editor
            if watched:
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


async def _edit_open_note_after(
    services: Services, edit: Callable[[str], object], person: str
) -> tuple[list[ChatEvent], dict[str, Any], str]:
    """The model replaces line one of the open note; while the card waits, the person edits."""
    services.settings.set("ai.tool.edit_current.enabled", True)
    (note,) = services.store.list_notes()
    session = EditorSession.open(services.store, note.id)
    engine, fake = engine_for(
        services,
        [CallTool("editor_replace", {"anchor": "line one", "text": "line one, by the model"}, id="e")],
        [Reply("ok")],
    )
    conversation = services.transcripts.create(note_id=note.id)

    def on_event(event: ChatEvent) -> None:
        if isinstance(event, ApprovalRequested):
            edit(person)
            event.approval.decide(True)

    events = await run(engine, conversation, "Edit line one", editor=session, on_event=on_event)
    return events, results_sent(fake.requests[1])["e"], assistant_actor(conversation.id)


async def test_an_outside_edit_beside_the_open_notes_edit_is_merged(
    world: tuple[Services, Callable[[str], None]],
) -> None:
    services, edit = world
    events, sent, actor = await _edit_open_note_after(services, edit, BODY + "a new last line\n")

    assert not of(events, EditsRefused) and len(of(events, EditsApplied)) == 1, sent
    assert not sent["_is_error"]
    (note,) = services.store.list_notes()
    body = services.store.get_note(note.id).body
    assert "line one, by the model" in body and body.endswith("a new last line\n")
    assert services.store.note_history(note.id)[0].actor == actor  # attributed, undoable


async def test_an_outside_edit_of_the_same_line_refuses_the_open_notes_edit(
    world: tuple[Services, Callable[[str], None]],
) -> None:
    services, edit = world
    person = BODY.replace("line one", "line one, by the person")
    events, sent, actor = await _edit_open_note_after(services, edit, person)

    assert not of(events, EditsApplied) and len(of(events, EditsRefused)) == 1
    assert sent["_is_error"] and "editor_read_note" in sent["error"]  # told to read it again
    (note,) = services.store.list_notes()
    assert services.store.get_note(note.id).body == person
    assert not [r for r in services.store.note_history(note.id) if r.actor == actor]


async def test_a_file_changed_before_noted_saw_it_is_merged_too(tmp_path: Path) -> None:
    """No watcher ran (``noted ask``): the write itself finds the file changed, and still merges."""
    vault = tmp_path / "vault"
    file = committed(vault, {"Work/Plan.md": BODY})
    services = Services.open(Profile(tmp_path / "p").ensure(), vault=str(vault))
    try:
        events, sent, _ = await _edit_open_note_after(services, file.write_text, BODY + "a new last line\n")
        assert len(of(events, EditsApplied)) == 1 and not sent["_is_error"], sent
        text = file.read_text()
        assert "line one, by the model" in text and text.endswith("a new last line\n")
    finally:
        services.close()

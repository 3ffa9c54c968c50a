"""Undoing a chat's batch (Ctrl+Z on its card, ``ChatEngine.undo_batch``), with the scripted fake model.

A round's approved writes are undone at once: notes, notebooks, tags and files, each put back or
taken away, unless the person changed it after the batch: then it is left as they made it and
named in what the undo says (the app's card, and the transcript of the chat). A change no undo can
take back (a tool without an undo) is marked on the card before the person says yes, and named after
the undo; a replaced or deleted attachment comes back from the version the store kept.

Not vacuous: each test checks the store after the undo. Before these rules, the undo compared only
``updated_time`` (tagging does not touch it, so the person's tags were overwritten), trashed the
notes it made even with the person's text in them, named nothing, and left notebooks, tags and
files as the batch had made them while the card said all was undone.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.polling import scaled

from noted.chat.engine import ChatEngine
from noted.chat.events import ApprovalRequested, BatchApplied, BatchApproval
from noted.chat.transcripts import Conversation, Notice
from noted.chat.turns import FINAL
from noted.errors import NotFoundError
from noted.models import NoteDraft, NotePatch
from noted.ops import notebooks
from noted.ops import notes as ops
from noted.ops.attachments import attach_to_note, replace_attachment
from noted.profile import Profile
from noted.providers import CallTool, FakeProvider, Reply
from noted.services import Services

WRITES = (
    "manage_tags", "update_note", "create_note", "update_notebook", "attach_file", "create_notebook",
    "delete_notebook", "restore_notebook", "create_tag", "rename_tag", "delete_tag", "replace_attachment",
    "delete_attachment",
)  # fmt: skip


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    s = Services.open(Profile(tmp_path / "profile").ensure(), welcome=False)
    for tool in WRITES:
        s.settings.set(f"ai.tool.{tool}.enabled", True)
    yield s
    s.close()


def _file(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


async def _batch(services: Services, calls: list[CallTool]) -> tuple[ChatEngine, Conversation, BatchApplied]:
    """Run one round of ``calls``, every change ticked; the engine, the chat and what was applied."""
    fake = FakeProvider([calls, [Reply("Done.")]])
    engine = services.chat_engine(provider=lambda: fake)
    conversation = services.transcripts.create()
    asked: list[BatchApproval] = []

    async def consume() -> list[Any]:
        events = []
        async for event in engine.run(conversation, "tidy up"):
            events.append(event)
            if isinstance(event, ApprovalRequested):
                assert isinstance(event.approval, BatchApproval)
                asked.append(event.approval)
                event.approval.choose(range(len(event.approval.items)))
        return events

    events = await asyncio.wait_for(consume(), scaled(120))
    (applied,) = [e for e in events if isinstance(e, BatchApplied)]
    assert len(asked) == 1 and applied.applied == len(calls), applied.message
    return engine, conversation, applied


async def test_what_the_person_changed_after_the_batch_is_left_and_named(services: Services) -> None:
    """The sweep's case: one approved round tags note A, moves note B, makes "Made", renames the
    notebook and attaches a file to A; then the person tags A (``noted tag``) and writes in "Made"
    (``noted edit --append``). The undo used to take both tags off A and trash "Made" with the
    person's text in it, and to say nothing."""
    store = services.store
    home = store.create_folder("BHome", actor="user")
    work = store.create_folder("BWork", actor="user")
    a = store.create_note(NoteDraft("A", "a text\n", parent_id=home.id), actor="user")
    b = store.create_note(NoteDraft("B", "b text\n", parent_id=home.id), actor="user")
    store.tag_note(b.id, ["keep"], actor="user")
    engine, conversation, applied = await _batch(
        services,
        [
            CallTool("manage_tags", {"note_id": a.id, "add": ["later"]}, id="c0"),
            CallTool("update_note", {"id": b.id, "notebook_id": work.id}, id="c1"),
            CallTool("create_note", {"title": "Made", "body": "made\n", "notebook_id": work.id}, id="c2"),
            CallTool("update_notebook", {"id": home.id, "title": "RenamedHome"}, id="c3"),
            CallTool(
                "attach_file",
                {"note_id": a.id, "filename": "x.txt", "mime": "text/plain", "content_base64": _file("hi")},
                id="c4",
            ),
        ],
    )
    (made,) = [n for n in store.list_notes(folder_id=work.id) if n.title == "Made"]
    ops.edit_tags(store, a.id, ["humantag"], (), actor="user")  # as `noted tag A humantag`
    ops.update_note(store, made.id, NotePatch(append="CLI HUMAN"), actor="user")

    undone = engine.undo_batch(applied, conversation.id)

    assert store.note_tag_titles([a.id]) == {a.id: ("humantag", "later")}  # the person's tags stay
    kept = store.get_note(made.id)
    assert not kept.is_trashed and kept.body == "made\nCLI HUMAN"
    assert set(undone.kept) == {'note "A"', 'note "Made"'}
    assert 'note "A"' in undone.message and 'note "Made"' in undone.message
    # What the person did not touch is put back: B's notebook, and the notebook's title.
    assert store.get_note(b.id).parent_id == home.id and store.note_tag_titles([b.id]) == {b.id: ("keep",)}
    assert store.get_folder(home.id).title == "BHome"
    # The chat's transcript says it too, as the single-edit undo does.
    notices = [m for m in services.transcripts.transcript(conversation.id) if isinstance(m, Notice)]
    assert notices[-1].kind == "undone-batch" and notices[-1].message == undone.message


async def test_notebooks_tags_files_and_to_dos_are_put_back_too(services: Services) -> None:
    """The writes that are not to a note's text used to be left as the batch made them."""
    store = services.store
    home = store.create_folder("Home", actor="user")
    old = store.create_folder("Old", actor="user")
    task = store.create_note(NoteDraft("Task", "do it\n", parent_id=home.id, is_todo=True), actor="user")
    tagged = store.create_note(NoteDraft("Tagged", "t\n", parent_id=home.id), actor="user")
    inside = store.create_note(NoteDraft("Inside", "i\n", parent_id=old.id), actor="user")
    store.tag_note(tagged.id, ["old", "gone"], actor="user")
    tags = {t.title: t.id for t in store.list_tags()}
    engine, _, applied = await _batch(
        services,
        [
            CallTool("update_note", {"id": task.id, "todo_completed": True}, id="c0"),
            CallTool(
                "attach_file",
                {"note_id": task.id, "filename": "f.txt", "mime": "text/plain", "content_base64": _file("f")},
                id="c1",
            ),
            CallTool("create_notebook", {"title": "Projects"}, id="c2"),
            CallTool("create_tag", {"title": "fresh"}, id="c3"),
            CallTool("rename_tag", {"id": tags["old"], "title": "older"}, id="c4"),
            CallTool("delete_tag", {"id": tags["gone"]}, id="c5"),
            CallTool("delete_notebook", {"id": old.id}, id="c6"),
            CallTool("update_notebook", {"id": home.id, "title": "House"}, id="c7"),
        ],
    )
    (file,) = store.list_resources(note_id=task.id)
    assert applied.final == ()

    undone = engine.undo_batch(applied)

    assert undone.kept == () and undone.final == ()
    assert undone.message == "Undone: all the batch changed is back as it was."
    back = store.get_note(task.id)
    assert back.todo_completed == 0 and back.body == "do it\n"
    with pytest.raises(NotFoundError):
        store.get_resource(file.id)  # nothing links it any more
    assert [f.title for f in store.list_folders()] == ["Home", "Old"]  # "Projects" in the trash
    assert store.find_tag("fresh") is None
    assert store.get_tag(tags["old"]).title == "old"  # the same tag, renamed back
    assert sorted(store.note_tag_titles([tagged.id])[tagged.id]) == ["gone", "old"]
    assert not store.get_note(inside.id).is_trashed  # came back with its notebook


async def test_a_notebook_renamed_by_the_person_since_keeps_their_title(services: Services) -> None:
    store = services.store
    home = store.create_folder("Home", actor="user")
    note = store.create_note(NoteDraft("N", "n\n", parent_id=home.id), actor="user")
    engine, _, applied = await _batch(
        services,
        [
            CallTool("update_notebook", {"id": home.id, "title": "House"}, id="c0"),
            CallTool("manage_tags", {"note_id": note.id, "add": ["later"]}, id="c1"),
        ],
    )
    notebooks.update_notebook(store, home.id, title="My house", actor="user")

    undone = engine.undo_batch(applied)

    assert store.get_folder(home.id).title == "My house"
    assert undone.kept == ('notebook "My house"',) and undone.restored == 2  # the tag: off, and deleted
    assert store.note_tag_titles([note.id]) == {}


async def test_a_notebook_the_batch_restored_goes_back_to_the_trash_unless_used_since(
    services: Services,
) -> None:
    store = services.store
    quiet = store.create_folder("Quiet", actor="user")
    busy = store.create_folder("Busy", actor="user")
    notes = [
        store.create_note(NoteDraft(f.title, "x\n", parent_id=f.id), actor="user") for f in (quiet, busy)
    ]
    for folder in (quiet, busy):
        store.trash_folder(folder.id, actor="user")
    engine, _, applied = await _batch(
        services,
        [
            CallTool("restore_notebook", {"id": quiet.id}, id="c0"),
            CallTool("restore_notebook", {"id": busy.id}, id="c1"),
        ],
    )
    ops.update_note(store, notes[1].id, NotePatch(append="mine"), actor="user")  # written in since

    undone = engine.undo_batch(applied)

    assert store.get_folder(quiet.id).is_trashed and store.get_note(notes[0].id).is_trashed
    assert not store.get_folder(busy.id).is_trashed and store.get_note(notes[1].id).body == "x\nmine"
    assert undone.kept == ('notebook "Busy"',)


async def test_a_replaced_and_a_deleted_attachment_come_back_with_the_undo(services: Services) -> None:
    """Replacing or deleting an attachment kept no copy of the old file: the card marked both
    "(cannot be undone)" and the undo named them. The store keeps the version now, and the undo
    puts it back (the deleted one under its id, so the note's link works again)."""
    store = services.store
    home = store.create_folder("Home", actor="user")
    note = store.create_note(NoteDraft("N", "n\n", parent_id=home.id), actor="user")
    kept = attach_to_note(store, note, b"old", filename="a.txt", mime="text/plain", title="", actor="user")
    gone = attach_to_note(store, note, b"bye", filename="b.txt", mime="text/plain", title="", actor="user")
    calls = [
        CallTool("manage_tags", {"note_id": note.id, "add": ["later"]}, id="c0"),
        CallTool("replace_attachment", {"id": kept.id, "content_base64": _file("new")}, id="c1"),
        CallTool("delete_attachment", {"id": gone.id}, id="c2"),
    ]
    engine, _, applied = await _batch(services, calls)
    assert applied.final == ()
    assert store.read_resource(kept.id) == b"new"

    undone = engine.undo_batch(applied)

    assert store.note_tag_titles([note.id]) == {}
    assert store.read_resource(kept.id) == b"old" and store.get_resource(kept.id).filename == "a.txt"
    assert store.read_resource(gone.id) == b"bye" and store.get_resource(gone.id).title == "b.txt"
    assert undone.kept == () and undone.final == () and "all the batch changed is back" in undone.message


async def test_an_attachment_replaced_again_since_the_batch_is_left_and_named(services: Services) -> None:
    store = services.store
    home = store.create_folder("Home", actor="user")
    note = store.create_note(NoteDraft("N", "n\n", parent_id=home.id), actor="user")
    kept = attach_to_note(store, note, b"old", filename="a.txt", mime="text/plain", title="", actor="user")
    calls = [
        CallTool("manage_tags", {"note_id": note.id, "add": ["later"]}, id="c0"),
        CallTool("replace_attachment", {"id": kept.id, "content_base64": _file("new")}, id="c1"),
    ]
    engine, _, applied = await _batch(services, calls)
    replace_attachment(store, kept.id, b"the person's", actor="user")

    undone = engine.undo_batch(applied)

    assert store.read_resource(kept.id) == b"the person's"
    assert undone.kept == ('file "a.txt"',) and "a.txt" in undone.message


async def test_a_write_tool_without_an_undo_is_marked_before_and_named_after(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The marking stays for a write tool that declares no undo (none does today: one is made so)."""
    store = services.store
    home = store.create_folder("Home", actor="user")
    note = store.create_note(NoteDraft("N", "n\n", parent_id=home.id), actor="user")
    resource = attach_to_note(
        store, note, b"old", filename="a.txt", mime="text/plain", title="", actor="user"
    )
    tool = services.registry.get("replace_attachment")
    assert tool is not None
    monkeypatch.setitem(services.registry._tools, tool.name, dataclasses.replace(tool, undo=None))
    calls = [
        CallTool("manage_tags", {"note_id": note.id, "add": ["later"]}, id="c0"),
        CallTool("replace_attachment", {"id": resource.id, "content_base64": _file("new")}, id="c1"),
    ]
    fake = FakeProvider([calls, [Reply("Done.")]])
    engine = services.chat_engine(provider=lambda: fake)
    items: list[str] = []
    applied: list[BatchApplied] = []
    async for event in engine.run(services.transcripts.create(), "tidy up"):
        if isinstance(event, ApprovalRequested) and isinstance(event.approval, BatchApproval):
            items += event.approval.items
            event.approval.choose(range(len(items)))
        elif isinstance(event, BatchApplied):
            applied.append(event)

    assert not items[0].endswith(FINAL) and items[1].endswith(FINAL)
    assert len(applied[0].final) == 1 and applied[0].final[0].startswith("replace attachment ")

    undone = engine.undo_batch(applied[0])

    assert store.note_tag_titles([note.id]) == {}
    assert store.read_resource(resource.id) == b"new"  # not claimed: it is named
    assert undone.final == applied[0].final
    assert "Not undone" in undone.message and "replace attachment " in undone.message

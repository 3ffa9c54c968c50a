"""The Joplin store against a real Joplin: writes through noted, checked through Joplin's own CLI.

Each test makes its own notebooks in the run's shared Joplin and looks only at them.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.joplin import JoplinServer, shared_server, wait_until

from noted.errors import ConflictError, InvalidInputError
from noted.models import ChangeType, ItemType, NoteDraft, NotePatch
from noted.search.joplin import JoplinKeywordSearch
from noted.settings import Settings
from noted.store.joplin import ACTOR_JOPLIN, JoplinStore
from noted.store.protocol import Store
from noted.tools import ToolContext, build_registry

pytestmark = pytest.mark.slow


@pytest.fixture
def joplin(tmp_path_factory: pytest.TempPathFactory) -> JoplinServer:
    return shared_server(tmp_path_factory.getbasetemp())


@pytest.fixture
def store(joplin: JoplinServer, tmp_path: Path) -> Iterator[JoplinStore]:
    s = joplin.store(tmp_path / "profile")
    yield s
    s.close()


def _name(title: str) -> str:
    return f"{title} {secrets.token_hex(3)}"


def test_satisfies_the_store_protocol(store: JoplinStore) -> None:
    assert isinstance(store, Store)


def test_an_update_reads_the_note_once_and_returns_it_as_joplin_saved_it(
    store: JoplinStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = store.create_folder(_name("Reads"), actor="user")
    other = store.create_folder(_name("Moved"), actor="user")
    note = store.create_note(NoteDraft("Plan", "first", folder.id, tags=("t",)), actor="user")
    reads: list[str] = []
    get = store.client.get

    def counted(path: str, params: dict[str, str | int] | None = None) -> object:
        checked = (params or {}).get("fields") == "updated_time"  # asked again last before the PUT
        reads.append(f"{path} (checked)" if checked else path)
        return get(path, params)

    monkeypatch.setattr(store.client, "get", counted)
    patches = (
        NotePatch(title="Plan 2", append="second"),
        NotePatch(parent_id=other.id),
        NotePatch(is_todo=True, todo_due=1_900_000_000_000),
    )
    for patch in patches:
        reads.clear()
        updated = store.update_note(note.id, patch, actor="user")
        # Read once before the write (its base and place), its time asked again last before the
        # write (``note_update.unmoved``); Joplin's answer is the note saved.
        assert reads.count(f"/notes/{note.id}") == 1, reads
        assert reads[-1] == f"/notes/{note.id} (checked)", reads
        assert updated == store.get_note(note.id)
    now = store.get_note(note.id)
    assert (now.title, now.body, now.parent_id, now.is_todo) == ("Plan 2", "first\nsecond", other.id, True)
    # The place the feed keeps for each write is the note's: moved, still tagged.
    change = store.item_changes([note.id], limit=1)[0]
    assert change.place is not None and (change.place.parent_id, change.place.tags) == (other.id, ("t",))


def test_create_update_trash_restore_as_joplin_sees_them(joplin: JoplinServer, store: JoplinStore) -> None:
    garden, shed = _name("Garden"), _name("Shed")
    folder = store.create_folder(garden, actor="user")
    sub = store.create_folder(shed, parent_id=folder.id, actor="user")
    kept = store.create_note(
        NoteDraft("Tomatoes", "# Plan\n\nWater daily.", sub.id, tags=("veg",)), actor="user"
    )
    gone = store.create_note(NoteDraft("Weeds", "Pull them.", folder.id), actor="user")

    updated = store.update_note(
        kept.id,
        NotePatch(title="Tomatoes 2026", append="Stake in May."),
        actor="user",
        base_updated_time=kept.updated_time,
    )
    assert updated.body == "# Plan\n\nWater daily.\nStake in May."
    store.trash_note(kept.id, actor="user")
    assert [m.id for m in store.list_notes(trashed=True) if m.id == kept.id] == [kept.id]
    assert store.restore_note(kept.id, actor="user").deleted_time == 0
    store.trash_note(gone.id, actor="user")
    store.update_folder(sub.id, title=shed + " renamed", actor="user")

    # noted's own view
    assert {m.id for m in store.list_notes(folder_id=sub.id)} == {kept.id}
    assert [t.title for t in store.note_tags(kept.id)] == ["veg"]
    assert store.folder_note_counts().get(folder.id, 0) == 0  # its only note is in the trash

    # Joplin's view, through its own command line
    as_joplin = joplin.cat(kept.id)
    assert as_joplin["title"] == "Tomatoes 2026"
    assert as_joplin["body"] == "# Plan\n\nWater daily.\nStake in May."
    assert as_joplin["parent_id"] == sub.id
    assert as_joplin["deleted_time"] == "0"
    assert joplin.cat(gone.id)["deleted_time"] != "0"
    titles = {nb["title"]: nb for nb in joplin.notebooks()}
    assert titles[shed + " renamed"]["parent_id"] == folder.id


def test_a_stale_update_is_refused_and_changes_nothing(joplin: JoplinServer, store: JoplinStore) -> None:
    folder = store.create_folder(_name("Desk"), actor="user")
    note = store.create_note(NoteDraft("Draft", "first", folder.id), actor="user")
    # Someone edits it in Joplin meanwhile (straight through the API, not through noted).
    joplin.api("PUT", f"/notes/{note.id}", {"body": "edited in Joplin"})
    with pytest.raises(ConflictError) as refused:
        store.update_note(note.id, NotePatch(body="mine"), actor="user", base_updated_time=note.updated_time)
    assert refused.value.current_updated_time == store.get_note(note.id).updated_time
    assert store.get_note(note.id).body == "edited in Joplin"


async def test_actors_are_recorded_and_shown_in_history_and_the_feed(
    joplin: JoplinServer, store: JoplinStore
) -> None:
    cursor = store.latest_cursor()
    folder = store.create_folder(_name("Inbox"), actor="user")
    note = store.create_note(NoteDraft("Plan", "v1 by claude", folder.id), actor="mcp:claude")
    joplin.api("PUT", f"/notes/{note.id}", {"body": "v2 typed in Joplin"})
    store.update_note(note.id, NotePatch(body="v3 by the assistant"), actor="assistant:chat-7")

    history = store.note_history(note.id)
    assert [(r.actor, r.body) for r in history] == [
        ("assistant:chat-7", "v3 by the assistant"),
        (ACTOR_JOPLIN, "v2 typed in Joplin"),
        ("mcp:claude", "v1 by claude"),
    ]
    # The feed carries the actor of each change; Joplin reports each note's newest change (it
    # records it just after answering, so wait for it).
    wait_until(
        lambda: _last_actor(store, cursor, note.id) == "assistant:chat-7", what="the update in the feed"
    )
    assert _last_actor(store, cursor, folder.id) == "user"

    # The note_history tool shows the actors too.
    settings = Settings.load(Path(store.db.path).parent / "config.toml")
    ctx = ToolContext(store=store, settings=settings, keyword=JoplinKeywordSearch(store), actor="mcp:claude")
    result = await build_registry(settings).call("note_history", {"id": note.id}, ctx)
    assert result.ok and result.payload is not None
    assert [r["actor"] for r in result.payload["revisions"]] == [
        "assistant:chat-7",
        ACTOR_JOPLIN,
        "mcp:claude",
    ]

    restored = store.restore_revision(history[1].id, actor="user")
    assert restored.body == "v2 typed in Joplin"


def test_an_edit_made_in_joplin_is_in_the_feed_as_joplins(joplin: JoplinServer, store: JoplinStore) -> None:
    start = store.latest_cursor()
    folder = store.create_folder(_name("Feed"), actor="user")
    note = store.create_note(NoteDraft("Seen", "x", folder.id), actor="user")
    wait_until(lambda: _feed_has(store, start, note.id), what="noted's own change in the feed")
    assert next(c for c in store.changes_since(start).changes if c.item_id == note.id).actor == "user"
    cursor = store.latest_cursor()
    # A change Joplin records within a second of noted's write is taken for noted's; wait that out.
    time.sleep(1.2)
    joplin.api("PUT", f"/notes/{note.id}", {"title": "Seen in Joplin"})
    wait_until(lambda: _feed_has(store, cursor, note.id), what="Joplin's change in the feed")
    change = next(c for c in store.changes_since(cursor).changes if c.item_id == note.id)
    assert change.actor == ACTOR_JOPLIN
    # Search's count of notes changed since indexed reads the same feed, Joplin's edit included.
    assert store.notes_changed_since(cursor, 100) == ({note.id}, False)
    assert store.notes_changed_since(start, 100)[0] == {note.id}


def test_an_edit_made_in_joplin_between_two_of_noteds_stays_in_the_notes_changes(
    joplin: JoplinServer, store: JoplinStore
) -> None:
    folder = store.create_folder(_name("Between"), actor="user")
    note = store.create_note(NoteDraft("Plan", "v1", folder.id), actor="user")
    time.sleep(1.2)  # out of the second in which a change is taken for noted's write
    start = _joplin_cursor(joplin)
    joplin.api("PUT", f"/notes/{note.id}", {"body": "v2 typed in Joplin"})
    # Joplin has recorded the edit, and drops it when noted's next write of the note is recorded:
    # noted must read it before writing, or it is gone.
    wait_until(lambda: _joplin_change(joplin, start, note.id) is not None, what="Joplin's record of its edit")
    theirs = _joplin_change(joplin, start, note.id) or 0
    store.update_note(note.id, NotePatch(body="v3"), actor="assistant:chat-1")
    # And Joplin's record of noted's write is there too, so it is seen (and not counted twice).
    wait_until(lambda: _joplin_change(joplin, theirs, note.id) is not None, what="Joplin's record of noted's")
    got = [(c.item_type, c.change_type, c.actor) for c in store.item_changes([note.id, folder.id])]
    assert got == [
        (ItemType.NOTE, ChangeType.UPDATE, "assistant:chat-1"),
        (ItemType.NOTE, ChangeType.UPDATE, ACTOR_JOPLIN),
        (ItemType.NOTE, ChangeType.CREATE, "user"),
        (ItemType.FOLDER, ChangeType.CREATE, "user"),
    ]


def test_notes_trashed_with_their_notebook_are_the_callers_changes(
    joplin: JoplinServer, store: JoplinStore
) -> None:
    top = store.create_folder(_name("Trashed"), actor="user")
    sub = store.create_folder("Sub", parent_id=top.id, actor="user")
    notes = [
        store.create_note(NoteDraft(f"n{i}", "", f.id), actor="user").id for i, f in enumerate((top, sub))
    ]
    start = _joplin_cursor(joplin)
    store.trash_folder(top.id, actor="app")
    # Joplin reports each note it trashed along; noted must take those reports for the app's change.
    for note_id in notes:
        wait_until(lambda n=note_id: _joplin_change(joplin, start, n) is not None, what="Joplin's record")
    for note_id in notes:
        got = [(c.change_type, c.actor) for c in store.item_changes([note_id])]
        assert got == [(ChangeType.UPDATE, "app"), (ChangeType.CREATE, "user")]


def _joplin_cursor(joplin: JoplinServer) -> int:
    return int(joplin.api("GET", "/events")["cursor"])


def _joplin_change(joplin: JoplinServer, cursor: int, note_id: str) -> int | None:
    """The id of the newest change of ``note_id`` after ``cursor`` in Joplin's own /events."""
    answer = joplin.api("GET", "/events", params={"cursor": cursor})
    ids = [int(e["id"]) for e in answer["items"] if e["item_id"] == note_id]
    return max(ids) if ids else None


def _last_actor(store: JoplinStore, cursor: int, item_id: str) -> str | None:
    changes = [c for c in store.changes_since(cursor).changes if c.item_id == item_id]
    return changes[-1].actor if changes else None


def _feed_has(store: JoplinStore, cursor: int, item_id: str) -> bool:
    return any(c.item_id == item_id for c in store.changes_since(cursor).changes)


def test_notebooks_tags_and_attachments(store: JoplinStore) -> None:
    top = store.create_folder(_name("Top"), actor="user")
    child = store.create_folder("Child", parent_id=top.id, actor="user")
    with pytest.raises(InvalidInputError, match="into itself"):
        store.update_folder(top.id, parent_id=child.id, actor="user")
    note = store.create_note(NoteDraft("Receipt", "", child.id), actor="user")

    tag = _name("Tax")
    assert [t.title for t in store.tag_note(note.id, [tag, tag.upper()], actor="user")] == [tag]
    found = store.find_tag(tag.upper())
    assert found is not None and found.note_count == 1
    assert [m.id for m in store.list_notes(tag_id=found.id)] == [note.id]
    renamed = store.rename_tag(found.id, tag + " 2026", actor="user")
    assert renamed.title == tag + " 2026"
    assert store.untag_note(note.id, [tag + " 2026"], actor="user") == []

    resource = store.add_resource(
        b"%PDF-1.4 fake", filename="receipt.pdf", mime="application/pdf", actor="user"
    )
    assert (resource.filename, resource.mime, resource.size) == ("receipt.pdf", "application/pdf", 13)
    store.update_note(note.id, NotePatch(body=f"[receipt](:/{resource.id})"), actor="user")
    assert store.resource_notes(resource.id) == [note.id]
    assert [r.id for r in store.list_resources(note_id=note.id)] == [resource.id]
    replaced = store.replace_resource(resource.id, b"new bytes", filename="receipt-v2.pdf", actor="user")
    assert store.read_resource(resource.id) == b"new bytes" and replaced.filename == "receipt-v2.pdf"
    assert store.resource_path(resource.id).read_bytes() == b"new bytes"

    store.trash_folder(top.id, actor="user")
    assert store.get_note(note.id).is_trashed and store.get_folder(child.id).is_trashed
    assert top.id not in {f.id for f in store.list_folders()}
    assert top.id in {f.id for f in store.list_folders(include_trashed=True)}
    store.restore_folder(top.id, actor="user")
    assert not store.get_note(note.id).is_trashed and not store.get_folder(child.id).is_trashed

"""The embedded store: folders, notes, tags, attachments, trash, change feed, revisions."""

from __future__ import annotations

import pytest

from noted.errors import ConflictError, InvalidInputError, NotFoundError
from noted.models import ChangeType, ItemType, NoteDraft, NotePatch, Place
from noted.store import revisions as revisions_module
from noted.store.protocol import NoteOrder, Store
from noted.store.sqlite import SqliteStore


def _note(store: SqliteStore, title: str = "T", body: str = "", **kw: object) -> str:
    folder = kw.pop("folder", None) or store.create_folder("Inbox", actor="user").id
    return store.create_note(NoteDraft(title, body, parent_id=str(folder), **kw), actor="user").id  # type: ignore[arg-type]


def test_satisfies_protocol(store: SqliteStore) -> None:
    assert isinstance(store, Store)


def test_nested_folders_and_counts(store: SqliteStore) -> None:
    top = store.create_folder("Top", actor="user")
    mid = store.create_folder("Mid", parent_id=top.id, actor="user")
    low = store.create_folder("Low", parent_id=mid.id, actor="user")
    store.create_note(NoteDraft("a", parent_id=low.id), actor="user")
    store.create_note(NoteDraft("b", parent_id=low.id), actor="user")
    assert store.get_folder(low.id).parent_id == mid.id
    assert store.folder_note_counts() == {low.id: 2}
    assert [f.title for f in store.list_folders()] == ["Low", "Mid", "Top"]


def test_folder_cannot_move_into_its_own_subtree(store: SqliteStore) -> None:
    top = store.create_folder("Top", actor="user")
    child = store.create_folder("Child", parent_id=top.id, actor="user")
    with pytest.raises(InvalidInputError, match="into itself"):
        store.update_folder(top.id, parent_id=child.id, actor="user")
    with pytest.raises(InvalidInputError, match="into itself"):
        store.update_folder(top.id, parent_id=top.id, actor="user")
    assert store.get_folder(top.id).parent_id == ""


def test_note_fields_round_trip(store: SqliteStore) -> None:
    folder = store.create_folder("F", actor="user")
    note = store.create_note(
        NoteDraft(
            "Buy milk",
            "- [ ] milk",
            parent_id=folder.id,
            is_todo=True,
            todo_due=1_800_000_000_000,
            source_url="https://example.org/x",
            user_created_time=1_500_000_000_000,
        ),
        actor="user",
    )
    got = store.get_note(note.id)
    assert got == note
    assert got.is_todo and got.todo_due == 1_800_000_000_000 and got.todo_completed == 0
    assert got.user_created_time == 1_500_000_000_000 and got.created_time > got.user_created_time
    assert got.source_url == "https://example.org/x" and not got.is_conflict and not got.is_trashed


def test_note_needs_a_live_notebook(store: SqliteStore) -> None:
    with pytest.raises(InvalidInputError, match="needs a notebook"):
        store.create_note(NoteDraft("x"), actor="user")
    with pytest.raises(NotFoundError):
        store.create_note(NoteDraft("x", parent_id="nope"), actor="user")
    folder = store.create_folder("F", actor="user")
    store.trash_folder(folder.id, actor="user")
    with pytest.raises(InvalidInputError, match="in the trash"):
        store.create_note(NoteDraft("x", parent_id=folder.id), actor="user")
    assert store.list_notes() == []


def test_bad_titles_refused(store: SqliteStore) -> None:
    with pytest.raises(InvalidInputError, match="one line"):
        store.create_folder("a\nb", actor="user")
    with pytest.raises(InvalidInputError, match="needs a title"):
        store.create_folder("  ", actor="user")


@pytest.mark.parametrize("title", ["\ufeff", "\u200b\u200d", " \u2060 "])
def test_a_notebook_or_tag_titled_only_with_invisible_characters_is_refused(
    store: SqliteStore, title: str
) -> None:
    """``manage_tags add ["\ufeff"]`` made a tag every list showed as nothing, and no one could name it
    again; a title that shows nothing needs a title, as a blank one does."""
    note = _note(store)
    before = store.latest_cursor()
    with pytest.raises(InvalidInputError, match="needs a title"):
        store.create_folder(title, actor="user")
    with pytest.raises(InvalidInputError, match="needs a title"):
        store.tag_note(note, [title], actor="user")
    assert store.latest_cursor() == before


@pytest.mark.parametrize("title", ["a\x1b]52;c;ZXZpbA==\x07b", "nul\x00", "c1\x9b2J", "del\x7f"])
def test_a_title_with_a_control_character_is_refused_on_every_kind_of_item(
    store: SqliteStore, title: str
) -> None:
    """A title an AI app wrote over MCP with ESC]52 in it set the clipboard of whoever listed it on
    a terminal that shows it as it is; noted shows such a title safely now, and no longer stores one."""
    note = _note(store)
    folder = store.get_note(note).parent_id
    before = store.latest_cursor()
    for write in (
        lambda: store.create_folder(title, actor="user"),
        lambda: _note(store, title, folder=folder),
        lambda: store.update_note(note, NotePatch(title=title), actor="user"),
        lambda: store.create_tag(title, actor="user"),
    ):
        with pytest.raises(InvalidInputError, match=r"must not hold control characters \(it holds U\+00"):
            write()
    assert store.latest_cursor() == before
    assert (
        store.get_note(_note(store, "tab\there", folder=folder)).title == "tab here"
    )  # a tab is only a space


def test_update_append_prepend_and_times(store: SqliteStore) -> None:
    note_id = _note(store, body="middle")
    before = store.get_note(note_id)
    after = store.update_note(note_id, NotePatch(prepend="first", append="last"), actor="user")
    assert after.body == "first\nmiddle\nlast"
    assert after.updated_time > before.updated_time
    assert after.user_updated_time == after.updated_time
    assert after.created_time == before.created_time


def test_stale_update_refused_and_nothing_written(store: SqliteStore) -> None:
    note_id = _note(store, body="v1")
    base = store.get_note(note_id).updated_time
    store.update_note(note_id, NotePatch(body="v2"), actor="user", base_updated_time=base)
    with pytest.raises(ConflictError, match="changed since it was read") as info:
        store.update_note(note_id, NotePatch(body="v3"), actor="mcp:x", base_updated_time=base)
    assert store.get_note(note_id).body == "v2"
    assert info.value.current_updated_time == store.get_note(note_id).updated_time


def test_updates_in_one_millisecond_still_get_new_times(store: SqliteStore) -> None:
    # A base time must identify one state: two saves in the same millisecond must differ.
    note_id = _note(store)
    times = [store.update_note(note_id, NotePatch(body=str(i)), actor="user").updated_time for i in range(20)]
    assert times == sorted(set(times))


def test_list_notes_orders_and_filters(store: SqliteStore) -> None:
    folder = store.create_folder("F", actor="user").id
    a = store.create_note(
        NoteDraft("b-title", parent_id=folder, user_created_time=3, user_updated_time=3), actor="user"
    )
    b = store.create_note(
        NoteDraft("a-title", parent_id=folder, is_todo=True, user_created_time=5, user_updated_time=5),
        actor="user",
    )
    store.update_note(a.id, NotePatch(body="newer"), actor="user")
    assert [n.id for n in store.list_notes(order=NoteOrder.UPDATED)] == [a.id, b.id]
    assert [n.id for n in store.list_notes(order=NoteOrder.TITLE)] == [b.id, a.id]
    assert [n.id for n in store.list_notes(order=NoteOrder.CREATED)] == [b.id, a.id]
    assert [n.id for n in store.list_notes(todo_only=True)] == [b.id]
    assert [n.body_length for n in store.list_notes(order=NoteOrder.UPDATED)] == [5, 0]
    assert len(store.list_notes(limit=1, offset=1)) == 1


def test_get_notes_keeps_order_and_skips_unknown(store: SqliteStore) -> None:
    a, b = _note(store, "a"), _note(store, "b")
    assert [n.id for n in store.get_notes([b, "missing", a])] == [b, a]


def test_trash_and_restore_note(store: SqliteStore) -> None:
    note_id = _note(store)
    store.trash_note(note_id, actor="user")
    assert store.get_note(note_id).is_trashed
    assert store.list_notes() == [] and [n.id for n in store.list_notes(trashed=True)] == [note_id]
    restored = store.restore_note(note_id, actor="user")
    assert not restored.is_trashed and [n.id for n in store.list_notes()] == [note_id]


def test_trash_folder_takes_notes_and_subfolders_and_restore_brings_them_back(store: SqliteStore) -> None:
    top = store.create_folder("Top", actor="user")
    sub = store.create_folder("Sub", parent_id=top.id, actor="user")
    in_sub = _note(store, "in sub", folder=sub.id)
    already = _note(store, "trashed before", folder=sub.id)
    store.trash_note(already, actor="user")
    store.trash_folder(top.id, actor="user")
    assert store.get_folder(sub.id).is_trashed and store.get_note(in_sub).is_trashed
    assert store.list_folders() == []
    store.restore_folder(top.id, actor="user")
    assert not store.get_folder(sub.id).is_trashed and not store.get_note(in_sub).is_trashed
    # A note trashed on its own earlier stays in the trash.
    assert store.get_note(already).is_trashed


def test_restore_note_restores_its_trashed_notebook(store: SqliteStore) -> None:
    top = store.create_folder("Top", actor="user")
    note_id = _note(store, folder=top.id)
    store.trash_folder(top.id, actor="user")
    store.restore_note(note_id, actor="user")
    assert store.get_note(note_id).parent_id == top.id
    assert not store.get_folder(top.id).is_trashed


def test_empty_trash_is_the_only_permanent_delete(store: SqliteStore) -> None:
    keep = _note(store, "keep")
    gone = _note(store, "gone", tags=("t",))
    store.trash_note(gone, actor="user")
    assert store.empty_trash(actor="user") == 1
    with pytest.raises(NotFoundError):
        store.get_note(gone)
    assert store.get_note(keep)
    assert store.find_tag("t") is not None and store.find_tag("t").note_count == 0  # type: ignore[union-attr]
    deletes = [c for c in store.changes_since(0).changes if c.change_type is ChangeType.DELETE]
    assert [(c.item_type, c.item_id) for c in deletes] == [(ItemType.NOTE, gone)]


def test_tags(store: SqliteStore) -> None:
    note_id = _note(store)
    tags = store.tag_note(note_id, ["Work", "urgent"], actor="user")
    assert [t.title for t in tags] == ["urgent", "Work"]
    # Tags match case-insensitively and are not duplicated.
    store.tag_note(note_id, ["work"], actor="user")
    assert len(store.list_tags()) == 2
    assert store.find_tag("WORK").note_count == 1  # type: ignore[union-attr]
    assert [t.title for t in store.untag_note(note_id, ["URGENT", "unknown"], actor="user")] == ["Work"]
    assert [t.title for t in store.list_tags(with_notes_only=True)] == ["Work"]
    uncounted = store.list_tags(counted=False)  # the same tags, A to Z, none counted
    assert [(t.id, t.title, t.note_count) for t in uncounted] == [
        (t.id, t.title, 0) for t in store.list_tags()
    ]
    tag = store.find_tag("Work")
    assert tag is not None
    assert store.rename_tag(tag.id, "Job", actor="user").title == "Job"
    with pytest.raises(InvalidInputError, match="exists already"):
        store.rename_tag(store.create_tag("Other", actor="user").id, "job", actor="user")
    store.delete_tag(tag.id, actor="user")
    assert store.note_tags(note_id) == []
    assert [n.id for n in store.list_notes(tag_id=tag.id)] == []


def test_tags_and_notebooks_match_regardless_of_case_in_every_script(store: SqliteStore) -> None:
    """SQLite's NOCASE and LIKE fold the 26 ASCII letters only: "Ünï" and "ünï" were two tags,
    and ``tag:ÜNÏ`` or ``notebook:ÉTÉ`` found nothing."""
    from noted.search.keyword import KeywordSearch

    summer = store.create_folder("Été", actor="user")
    note_id = store.create_note(NoteDraft("Beach", "sand", summer.id), actor="user").id
    first = store.tag_note(note_id, ["Ünï"], actor="user")
    assert store.tag_note(note_id, ["ünï", "ÜNÏ"], actor="user") == first
    assert store.create_tag("üNï", actor="user").id == first[0].id
    assert [t.title for t in store.list_tags()] == ["Ünï"]
    assert store.find_tag("ÜNÏ") == store.find_tag("Ünï")
    with pytest.raises(InvalidInputError, match="exists already"):
        store.rename_tag(store.create_tag("Other", actor="user").id, "ÜNÏ", actor="user")
    search = KeywordSearch(store)
    for query in ("tag:ÜNÏ", "tag:ün*", "notebook:ÉTÉ", "notebook:été sand"):
        assert [h.note_id for h in search.search(query).hits] == [note_id], query
    assert store.untag_note(note_id, ["üNÏ"], actor="user") == []


def test_resources_link_by_body(store: SqliteStore) -> None:
    note_id = _note(store, body="none yet")
    res = store.add_resource(b"\x89PNG fake", filename="dir/../shot.png", mime="image/png", actor="user")
    assert res.filename == "shot.png" and res.size == 9 and res.file_extension == "png"
    assert store.resource_path(res.id).read_bytes() == b"\x89PNG fake"
    store.update_note(note_id, NotePatch(append=f"![shot](:/{res.id})"), actor="user")
    assert [r.id for r in store.list_resources(note_id=note_id)] == [res.id]
    assert store.resource_notes(res.id) == [note_id]
    store.update_note(note_id, NotePatch(body="link removed"), actor="user")
    assert store.resource_notes(res.id) == []
    store.delete_resource(res.id, actor="user")
    with pytest.raises(NotFoundError):
        store.get_resource(res.id)
    assert list(store.resources_dir.iterdir()) == []


def test_change_feed_records_every_write_with_its_actor(store: SqliteStore) -> None:
    start = store.latest_cursor()
    note_id = _note(store)
    store.update_note(note_id, NotePatch(body="x"), actor="mcp:claude")
    store.tag_note(note_id, ["t"], actor="assistant:c1")
    store.trash_note(note_id, actor="user")
    page = store.changes_since(start)
    got = [(c.item_type, c.change_type, c.actor) for c in page.changes]
    assert got == [
        (ItemType.FOLDER, ChangeType.CREATE, "user"),
        (ItemType.NOTE, ChangeType.CREATE, "user"),
        (ItemType.NOTE, ChangeType.UPDATE, "mcp:claude"),
        (ItemType.TAG, ChangeType.CREATE, "assistant:c1"),
        (ItemType.NOTE_TAG, ChangeType.CREATE, "assistant:c1"),
        (ItemType.NOTE, ChangeType.UPDATE, "user"),
    ]
    assert page.cursor == store.latest_cursor() and not page.has_more


def test_a_feed_row_about_a_note_keeps_the_place_it_left_the_note_in(store: SqliteStore) -> None:
    """Where the note is, whether trashed and its tags just after each change, whoever wrote next."""
    start = store.latest_cursor()
    note_id = _note(store)
    parent = store.get_note(note_id).parent_id
    other = store.create_folder("Other", actor="user")
    store.update_note(note_id, NotePatch(parent_id=other.id), actor="mcp:claude")
    store.tag_note(note_id, ["b", "A"], actor="mcp:claude")
    store.trash_note(note_id, actor="user")
    places = [(c.item_type, c.place) for c in store.changes_since(start).changes]
    assert places == [
        (ItemType.FOLDER, None),
        (ItemType.NOTE, Place(parent, 0, ())),
        (ItemType.FOLDER, None),
        (ItemType.NOTE, Place(other.id, 0, ())),
        (ItemType.TAG, None),
        (ItemType.NOTE_TAG, Place(other.id, 0, ("b",))),
        (ItemType.TAG, None),
        (ItemType.NOTE_TAG, Place(other.id, 0, ("A", "b"))),
        (ItemType.NOTE, Place(other.id, store.get_note(note_id).deleted_time, ("A", "b"))),
    ]


def test_change_feed_pages(store: SqliteStore) -> None:
    for i in range(5):
        store.create_folder(f"f{i}", actor="user")
    first = store.changes_since(0, limit=2)
    assert len(first.changes) == 2 and first.has_more
    second = store.changes_since(first.cursor, limit=10)
    assert [c.id for c in second.changes] == [3, 4, 5] and not second.has_more
    assert store.changes_since(second.cursor).changes == ()


def test_the_notes_changed_since_a_cursor_are_the_feeds_note_rows_within_the_limit(
    store: SqliteStore,
) -> None:
    folder = store.create_folder("F", actor="user")
    a = store.create_note(NoteDraft("A", "a", folder.id), actor="user").id
    start = store.latest_cursor()
    b = store.create_note(NoteDraft("B", "b", folder.id), actor="user").id
    store.update_note(a, NotePatch(body="a2"), actor="user")
    store.update_note(a, NotePatch(body="a3"), actor="user")
    store.tag_note(b, ["t"], actor="user")  # a tag and a tag link: not rows of a note
    feed = store.changes_since(start).changes
    assert store.notes_changed_since(start, 100) == ({a, b}, False)
    # As many rows as the limit are read, tags and all; the rest are said to follow.
    assert store.notes_changed_since(start, 2) == ({a, b}, True)
    assert store.notes_changed_since(start, 1) == ({b}, True)
    assert store.notes_changed_since(feed[-1].id, 5) == (set(), False)


def test_revisions_collapse_only_a_burst_of_one_editing_session(store: SqliteStore) -> None:
    note_id = _note(store, body="v0")
    store.update_note(note_id, NotePatch(body="v1"), actor="user", session="s1")
    store.update_note(note_id, NotePatch(body="v2"), actor="user", session="s1")
    store.update_note(note_id, NotePatch(body="v3"), actor="user")  # another command: its own
    store.update_note(note_id, NotePatch(body="v4"), actor="user", session="s1")  # s1's was not last
    store.update_note(note_id, NotePatch(body="v5"), actor="user", session="s2")
    store.update_note(note_id, NotePatch(body="v6"), actor="assistant:c1", session="s2")
    history = store.note_history(note_id)
    assert [(r.actor, r.body, r.edits) for r in history] == [
        ("assistant:c1", "v6", 1),
        ("user", "v5", 1),
        ("user", "v4", 1),
        ("user", "v3", 1),
        ("user", "v2", 2),
        ("user", "v0", 1),
    ]


def test_saves_without_a_session_are_each_a_revision(store: SqliteStore) -> None:
    # Before: saves by one actor within ten minutes were one revision, whoever made them.
    note_id = _note(store, body="v0")
    for body in ("v1", "v2"):
        store.update_note(note_id, NotePatch(body=body), actor="user")
    assert [r.body for r in store.note_history(note_id)] == ["v2", "v1", "v0"]


def test_a_session_starts_a_new_revision_after_the_burst_window(
    store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    note_id = _note(store, body="v0")
    store.update_note(note_id, NotePatch(body="v1"), actor="user", session="s1")
    monkeypatch.setattr(revisions_module, "BURST_MS", 0)
    store.update_note(note_id, NotePatch(body="v2"), actor="user", session="s1")
    assert len(store.note_history(note_id)) == 3


def test_restore_revision_undoes_an_assistant_edit(store: SqliteStore) -> None:
    note_id = _note(store, title="Plan", body="mine")
    store.update_note(note_id, NotePatch(title="Plan!", body="assistant's"), actor="assistant:c9")
    before_assistant = store.note_history(note_id)[1]
    note = store.restore_revision(before_assistant.id, actor="user")
    assert (note.title, note.body) == ("Plan", "mine")
    assert store.note_history(note_id)[0].actor == "user"
    with pytest.raises(NotFoundError):
        store.restore_revision(9999, actor="user")


def test_metadata_only_update_adds_no_revision(store: SqliteStore) -> None:
    note_id = _note(store, body="b")
    store.update_note(note_id, NotePatch(todo_completed=123, is_todo=True), actor="mcp:x")
    assert [r.actor for r in store.note_history(note_id)] == ["user"]


def test_meta_values(store: SqliteStore) -> None:
    assert store.get_meta("k") is None
    store.set_meta("k", "1")
    store.set_meta("k", "2")
    assert store.get_meta("k") == "2"


def test_reopen_keeps_everything(tmp_path: object) -> None:
    from pathlib import Path

    root = Path(str(tmp_path))
    first = SqliteStore.open(root / "n.db", root / "r")
    note_id = _note(first, body="persisted")
    first.close()
    second = SqliteStore.open(root / "n.db", root / "r")
    assert second.get_note(note_id).body == "persisted"
    second.close()


def test_batch_is_one_transaction_and_a_failed_step_is_undone_alone(store: SqliteStore) -> None:
    folder = store.create_folder("F", actor="import")
    with store.batch():
        store.create_note(NoteDraft("one", parent_id=folder.id), actor="import")
        with pytest.raises(NotFoundError):
            store.create_note(NoteDraft("bad", parent_id="missing"), actor="import")
        store.create_note(NoteDraft("two", parent_id=folder.id), actor="import")
    assert sorted(n.title for n in store.list_notes()) == ["one", "two"]


def test_batch_rolls_back_everything_on_error(store: SqliteStore) -> None:
    folder = store.create_folder("F", actor="import")
    with pytest.raises(RuntimeError), store.batch():
        store.create_note(NoteDraft("one", parent_id=folder.id), actor="import")
        raise RuntimeError("import aborted")
    assert store.list_notes() == []

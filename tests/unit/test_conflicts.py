"""``noted.ops.conflicts`` on the embedded store: each choice keeps both sides, a third change
is refused rather than overwritten, and a copy whose notebook went still finds a home."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.backends import open_backend

from noted.errors import ConflictError
from noted.models import ACTOR_USER, NoteDraft, NotePatch
from noted.ops.conflicts import CONFLICTS, Choice, Conflict, resolve, split_titled
from noted.ops.diffs import first_changed_line
from noted.store.protocol import Store
from noted.store.sqlite import SqliteStore


def _conflict(store: Store) -> Conflict:
    folder = store.create_folder("Work", actor=ACTOR_USER)
    base = store.create_note(
        NoteDraft(title="Plan", body="one\ntwo\n", parent_id=folder.id), actor=ACTOR_USER
    )
    store.update_note(base.id, NotePatch(body="one\ntwo\ntheirs\n"), actor="mcp:x")
    return Conflict.read(store, base, "Plan", "mine\none\ntwo\n")


def test_diffs_show_each_side_against_the_version_opened(store: SqliteStore) -> None:
    theirs, mine = _conflict(store).diffs()
    assert "+theirs" in theirs and "mine" not in theirs
    assert "+mine" in mine and "theirs" not in mine


def test_keep_both_makes_a_linked_copy_beside_the_note(store: SqliteStore) -> None:
    conflict = _conflict(store)
    resolved = resolve(store, conflict, Choice.KEEP_BOTH, actor=ACTOR_USER)
    assert resolved.copy is not None and resolved.copy.parent_id == conflict.base.parent_id
    assert resolved.copy.title.startswith("Plan (conflict copy ")
    assert (
        resolved.copy.body.endswith("\n\nmine\none\ntwo\n")
        and f"(:/{conflict.base.id})" in resolved.copy.body
    )
    assert store.get_note(conflict.base.id).body == "one\ntwo\ntheirs\n"
    assert "was changed elsewhere" in resolved.copy.body.splitlines()[0]


def test_a_copy_whose_notebook_is_in_the_trash_goes_to_conflicts(store: SqliteStore) -> None:
    conflict = _conflict(store)
    store.trash_folder(conflict.base.parent_id, actor=ACTOR_USER)
    resolved = resolve(store, conflict, Choice.KEEP_BOTH, actor=ACTOR_USER)
    assert resolved.copy is not None
    assert store.get_folder(resolved.copy.parent_id).title == CONFLICTS


def test_take_theirs_and_overwrite_keep_the_other_side_as_a_revision(store: SqliteStore) -> None:
    conflict = _conflict(store)
    theirs = resolve(store, conflict, Choice.THEIRS, actor=ACTOR_USER)
    bodies = [r.body for r in store.note_history(conflict.base.id)]
    assert theirs.note.body == "one\ntwo\ntheirs\n" and bodies[:2] == [
        "one\ntwo\ntheirs\n",
        "mine\none\ntwo\n",
    ]
    again = Conflict.read(store, conflict.base, "Plan", "mine again\n")
    mine = resolve(store, again, Choice.OVERWRITE, actor=ACTOR_USER)
    assert mine.note.body == "mine again\n"
    assert [r.body for r in store.note_history(conflict.base.id)][:2] == [
        "mine again\n",
        "one\ntwo\ntheirs\n",
    ]


def test_a_third_change_meanwhile_is_refused_not_overwritten(store: SqliteStore) -> None:
    conflict = _conflict(store)
    store.update_note(conflict.base.id, NotePatch(append="third"), actor="mcp:y")
    for choice in (Choice.OVERWRITE, Choice.THEIRS):
        with pytest.raises(ConflictError):
            resolve(store, conflict, choice, actor=ACTOR_USER)
    assert store.get_note(conflict.base.id).body.endswith("third")


def test_a_conflict_whose_sides_agree_is_settled(store: SqliteStore) -> None:
    conflict = _conflict(store)
    assert not conflict.settled
    same = Conflict.read(store, conflict.base, "Plan", "one\ntwo\ntheirs\n")  # merged by hand
    assert same.settled


def test_clash_markers_stand_on_lines_of_their_own_when_no_side_ends_with_a_newline(
    store: SqliteStore,
) -> None:
    folder = store.create_folder("Work", actor=ACTOR_USER)
    base = store.create_note(NoteDraft(title="Plan", body="one\ntwo", parent_id=folder.id), actor=ACTOR_USER)
    store.update_note(base.id, NotePatch(body="one\nTWO"), actor="mcp:x")
    text, clashes = Conflict.read(store, base, "Plan", "one\n2").merge_text(("base", "now", "mine"))
    assert clashes == 1
    assert text == "# Plan\none\n<<<<<<< now\nTWO\n||||||| base\ntwo\n=======\n2\n>>>>>>> mine\n"
    clean, clashes = Conflict.read(store, base, "Plan", "zero\none\ntwo").merge_text()
    assert (clean, clashes) == ("# Plan\nzero\none\nTWO", 0)  # no newline added at the end either


def test_a_merge_saves_the_persons_text_first_then_the_merge(store: SqliteStore) -> None:
    conflict = _conflict(store)
    text, clashes = conflict.merge_text()
    assert clashes == 0 and text == "# Plan\nmine\none\ntwo\ntheirs\n"  # both changes, no clash
    merged = split_titled(text)
    assert merged == ("Plan", "mine\none\ntwo\ntheirs\n")
    done = resolve(store, conflict, Choice.MERGE, actor=ACTOR_USER, mine_actor="mcp:bot", merged=merged)
    assert done.note.body == "mine\none\ntwo\ntheirs\n"
    history = [(r.actor, r.body) for r in store.note_history(conflict.base.id)]
    # The person's side is kept as a revision of its own, by the actor it came from.
    assert history[:3] == [
        (ACTOR_USER, "mine\none\ntwo\ntheirs\n"),
        ("mcp:bot", "mine\none\ntwo\n"),
        ("mcp:x", "one\ntwo\ntheirs\n"),
    ]
    with pytest.raises(ValueError):
        resolve(store, conflict, Choice.MERGE, actor=ACTOR_USER)  # a merge needs its text


def test_first_changed_line_is_where_the_new_text_begins_to_differ() -> None:
    assert first_changed_line("a\nb\nc\n", "a\nb\nc\n") is None
    assert first_changed_line("a\nb\nc\n", "a\nB\nc\n") == 1
    assert first_changed_line("a\nb\n", "a\nb\n\nadded\n") == 2
    assert first_changed_line("a\nb\nc\n", "a\nc\n") == 1  # a line gone: where it was


@pytest.mark.parametrize("name", ["sqlite", "vault"])
def test_a_copy_whose_notebook_went_takes_a_conflicts_notebook_of_another_case(
    name: str, tmp_path: Path
) -> None:
    """A top-level "conflicts" is the conflicts notebook, as a top-level "inbox" is the Inbox
    (``noted.ops.notes.top_level_notebook``): the copy goes there rather than into a second one
    beside it, which the sibling-name rule refuses everywhere else. It made "Conflicts" before."""
    with open_backend(name, tmp_path / "store") as store:
        theirs = store.create_folder(CONFLICTS.lower(), actor=ACTOR_USER)
        conflict = _conflict(store)
        store.trash_folder(conflict.base.parent_id, actor=ACTOR_USER)
        conflict = Conflict.read(store, conflict.base, conflict.title, conflict.body)  # trashed with it
        resolved = resolve(store, conflict, Choice.KEEP_BOTH, actor=ACTOR_USER)
        assert resolved.copy is not None and resolved.copy.parent_id == theirs.id
        # It said "in its notebook": the copy is not there, but in the conflicts notebook.
        assert resolved.message.endswith(', in the notebook "conflicts"; the note stays in the trash.')
        tops = [f.title for f in store.list_folders() if f.parent_id == ""]
        assert sorted(tops, key=str.casefold) == ["conflicts"]

"""Editor tools: edits of one turn go to a working copy and are written once, or not at all."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.tools_env import ACTOR, Env, make_env

from noted.errors import InvalidInputError
from noted.models import ChangeType, ItemType, NotePatch, ToolStatus
from noted.ops.session import CommitStatus, EditorSession
from noted.store.sqlite import SqliteStore
from noted.tools import ToolResult
from noted.tools.editor import amend

BODY = "# Plan\n- milk\n- eggs\n\n# Notes\nsee you at the market\n"


@pytest.fixture
def env(store: SqliteStore, tmp_path: Path) -> Env:
    return make_env(store, tmp_path, enabled=("editor_append",))  # the shared edit_current switch


def _open(env: Env, body: str = BODY, selection: tuple[int, int] | None = None) -> tuple[str, EditorSession]:
    note = env.note(env.folder("F"), "Shopping", body)
    session = EditorSession.open(env.store, note, selection=selection)
    env.ctx.editor = session
    return note, session


def _note_writes(env: Env, cursor: int) -> list[tuple[ItemType, ChangeType, str]]:
    return [(c.item_type, c.change_type, c.actor) for c in env.store.changes_since(cursor).changes]


async def test_editor_read_note_shows_the_working_copy_selection_and_pages(env: Env) -> None:
    note, session = _open(env, selection=(9, 13))
    got = await env.ok("editor_read_note")
    assert got["id"] == note and got["title"] == "Shopping" and got["body"] == BODY
    assert got["selection"] == {"start": 9, "end": 13, "text": "milk"} and got["pending_edits"] == 0
    await env.ok("editor_append", text="- bread")
    again = await env.ok("editor_read_note", max_chars=10)
    assert again["body"] == BODY[:10] and again["has_more"] and "editor_read_note" in again["truncated"]
    assert again["pending_edits"] == 1 and again["body_length"] == len(BODY) + len("- bread")
    outline = await env.ok("editor_read_note", outline=True)
    assert [line.split("\t")[0] for line in outline["outline"].split("\n")] == ["1", "2"]
    section = await env.ok("editor_read_note", section="Notes")
    assert section["body"].startswith("# Notes") and section["body"].endswith("- bread")
    both = await env.error("editor_read_note", outline=True, section="1")
    assert both.field == "section"


async def test_each_edit_tool_changes_the_working_copy_only_until_commit(env: Env) -> None:
    note, session = _open(env)
    cursor = env.store.latest_cursor()
    await env.ok("editor_append", text="- bread")
    await env.ok("editor_insert_before", anchor="# Notes", text="# Budget\n20 euros\n\n")
    await env.ok("editor_insert_after", anchor="- milk", text=" (oat)")
    replaced = await env.ok("editor_replace", anchor="20 euros", text="25 euros")  # sees an earlier edit
    assert (
        replaced["status"] == "pending"
        and replaced["pending_edits"] == 4
        and "25 euros" in replaced["excerpt"]
    )
    assert env.store.get_note(note).body == BODY  # nothing written yet
    assert env.store.latest_cursor() == cursor
    expected = "# Plan\n- milk (oat)\n- eggs\n\n# Budget\n25 euros\n\n# Notes\nsee you at the market\n- bread"
    assert session.text == expected
    outcome = session.commit(env.store, ACTOR)
    assert outcome.status is CommitStatus.SAVED and outcome.edits == 4 and outcome.written
    assert env.store.get_note(note).body == expected
    assert _note_writes(env, cursor) == [(ItemType.NOTE, ChangeType.UPDATE, ACTOR)]  # written once
    assert env.store.note_history(note)[0].actor == ACTOR
    assert session.base_updated_time == env.store.get_note(note).updated_time
    await env.ok("editor_append", text="- jam")  # a second turn is based on the saved version
    assert session.commit(env.store, ACTOR).status is CommitStatus.SAVED
    assert env.store.get_note(note).body.endswith("- bread\n- jam")


async def test_anchors_must_match_exactly_once(env: Env) -> None:
    _, session = _open(env, body="apple\npear\napple pie\n")
    twice = await env.error("editor_replace", anchor="apple", text="x")
    assert twice.field == "anchor" and "matches twice (on lines 1, 3)" in (twice.message or "")
    none = await env.error("editor_insert_after", anchor="banana", text="x")
    assert none.field == "anchor" and "not found" in (none.message or "")
    assert (await env.error("editor_insert_before", anchor="", text="x")).field == "anchor"
    await env.ok("editor_replace", anchor="apple pie", text="")
    assert session.text == "apple\npear\n\n" and session.commit(env.store, ACTOR).written


async def test_a_note_changed_underneath_writes_nothing_and_every_edit_result_says_so(env: Env) -> None:
    note, session = _open(env)
    results = [
        await env.call("editor_append", text="- bread"),
        await env.call("editor_replace", anchor="- eggs", text="- 6 eggs"),
        await env.call("editor_replace", anchor="nowhere", text="x"),  # failed on its own
        await env.call("editor_read_note"),
        await env.call("search_notes", query="milk"),
    ]
    env.store.update_note(note, NotePatch(body="the person rewrote it"), actor="user")
    cursor = env.store.latest_cursor()
    outcome = session.commit(env.store, ACTOR)
    assert outcome.status is CommitStatus.CONFLICT and outcome.lost and outcome.edits == 2
    assert env.store.get_note(note).body == "the person rewrote it" and env.store.latest_cursor() == cursor
    amended = [amend(outcome, r) for r in results]
    assert [r.status for r in amended] == ["conflict", "conflict", "error", "ok", "ok"]
    for r in amended[:2]:
        assert "none of the 2 edits" in (r.message or "") and "editor_read_note" in (r.message or "")
        assert r.for_model() == {"error": r.message, "status": "conflict"}
    assert amended[2] is results[2] and amended[3] is results[3]
    assert session.text == "the person rewrote it"  # the next read shows the note as it is now
    assert (await env.ok("editor_read_note"))["body"] == "the person rewrote it"
    await env.ok("editor_append", text="again")
    assert session.commit(env.store, ACTOR).written
    assert env.store.get_note(note).body == "the person rewrote it\nagain"


async def test_catch_up_carries_the_edits_onto_the_persons_save_unless_they_clash(env: Env) -> None:
    # The app saves the editor's text before an accepted change is written (catch_up): the edits
    # land on it, where commit alone would refuse them as a change made elsewhere.
    note, session = _open(env)
    await env.ok("editor_append", text="- bread")
    assert not session.catch_up(env.store)  # nothing saved meanwhile: nothing to do
    env.store.update_note(note, NotePatch(body="# Plan for Sunday" + BODY[6:]), actor="user")
    assert session.catch_up(env.store)
    assert session.commit(env.store, ACTOR).written
    assert env.store.get_note(note).body == "# Plan for Sunday" + BODY[6:] + "- bread"
    await env.ok("editor_replace", anchor="- milk", text="- oat milk")
    env.store.update_note(
        note, NotePatch(body=env.store.get_note(note).body.replace("milk", "tea")), actor="user"
    )
    assert not session.catch_up(env.store)  # the same line changed on both sides: a clash
    assert session.commit(env.store, ACTOR).status is CommitStatus.CONFLICT
    assert "- tea" in env.store.get_note(note).body


async def test_catch_up_merges_changes_on_neighbouring_lines_and_words_a_clash_for_each_reader(
    env: Env,
) -> None:
    # Before: a change of the line next to an edit (or of the last line, beside an append to a
    # text without a last newline) was a clash, refused as a change "by someone else".
    note, session = _open(env, "line1\nline2\nline3\nline4")
    await env.ok("editor_replace", anchor="line2", text="line2 (model)")
    await env.ok("editor_append", text="- probe item")
    env.store.update_note(note, NotePatch(body="line1\nline2\nline3 U3\nline4 U4"), actor="user")
    assert session.catch_up(env.store) and session.commit(env.store, ACTOR).written
    assert env.store.get_note(note).body == "line1\nline2 (model)\nline3 U3\nline4 U4\n- probe item"
    result = await env.ok("editor_append", text="- mine")
    env.store.update_note(note, NotePatch(body=env.store.get_note(note).body + "\n- yours"), actor="user")
    assert not session.catch_up(env.store)  # both added a line at the same place: a clash
    outcome = session.commit(env.store, ACTOR)
    assert outcome.status is CommitStatus.CONFLICT and outcome.message.startswith("Not saved: you changed")
    told = amend(outcome, ToolResult("editor_append", ToolStatus.OK, result)).message or ""
    assert "the person changed the same lines" in told and "editor_read_note" in told
    await env.ok("editor_append", text="- again")  # the clash is not remembered past its turn
    env.store.update_note(note, NotePatch(body=env.store.get_note(note).body + "\n- theirs"), actor="user")
    assert "changed by someone else" in session.commit(env.store, ACTOR).message


async def test_a_trashed_or_erased_note_is_a_conflict(env: Env) -> None:
    note, session = _open(env)
    await env.ok("editor_append", text="x")
    env.store.trash_note(note, actor="user")
    trashed = session.commit(env.store, ACTOR)
    assert trashed.status is CommitStatus.CONFLICT and "trash" in trashed.message
    assert env.store.get_note(note).body == BODY
    await env.ok("editor_append", text="y")
    env.store.empty_trash(actor="user")
    erased = session.commit(env.store, ACTOR)
    assert erased.status is CommitStatus.CONFLICT and "deleted" in erased.message


async def test_a_refused_write_is_reported_as_failed_and_the_copy_reverts(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    note, session = _open(env)
    result = await env.call("editor_append", text="x")

    def refuse(*args: object, **kwargs: object) -> None:
        raise InvalidInputError("a note body may have at most 50,000,000 characters")

    monkeypatch.setattr(env.store, "update_note", refuse)
    outcome = session.commit(env.store, ACTOR)
    assert outcome.status is CommitStatus.FAILED and "50,000,000" in outcome.message
    assert amend(outcome, result).status == "error" and session.text == BODY


def test_nothing_to_save_writes_nothing(env: Env) -> None:
    note, session = _open(env)
    cursor = env.store.latest_cursor()
    session.replace_range(0, 1, "#", "same text")
    outcome = session.commit(env.store, ACTOR)
    assert outcome.status is CommitStatus.UNCHANGED and env.store.latest_cursor() == cursor
    ok = ToolResult("editor_append", ToolStatus.OK, payload={})
    assert amend(outcome, ok) is ok


async def test_replace_selection_follows_the_selection_through_edits(env: Env) -> None:
    _, session = _open(env, selection=(9, 13))  # "milk"
    assert session.selected_text == "milk"
    await env.ok("editor_insert_before", anchor="# Plan", text="intro\n")  # before: shifts it
    assert session.selected_text == "milk"
    await env.ok("editor_append", text="after")  # after: leaves it
    got = await env.ok("editor_replace_selection", text="oat milk")
    assert "oat milk" in got["excerpt"] and session.selected_text == "oat milk"
    await env.ok("editor_replace", anchor="- oat milk\n- eggs", text="- nothing")  # cuts into it: cleared
    assert session.selection is None
    refused = await env.call("editor_replace_selection", text="x")
    assert refused.status == "refused" and "selection" in (refused.message or "")
    assert session.commit(env.store, ACTOR).written


def test_selection_must_lie_inside_the_text_and_empty_means_none(env: Env) -> None:
    _, session = _open(env)
    with pytest.raises(ValueError, match="outside"):
        session.select((5, 1000))
    session.select((3, 3))
    assert session.selection is None
    session.select((0, 6))
    session.discard()
    assert session.selection is None and not session.dirty

"""``noted changes``: listing, showing, accepting and reverting what other actors changed, with
the documented exit codes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tests.support.cli import Cli, env_with_src
from tests.support.polling import scaled

from noted.models import ACTOR_USER, NoteDraft, NotePatch, mcp_actor, now_ms
from noted.store.review import STUCK_MS
from noted.store.sqlite.review import SqliteReview

BOT = mcp_actor("claude")


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(tmp_path / "profile", capsys)


def _changed_by_a_client(cli: Cli) -> str:
    """A note the person wrote, then an outside AI app rewrote; its id."""
    cli.ok("changes")  # the review has read the feed up to here
    store = cli.store()
    try:
        folder = store.create_folder("Work", actor=ACTOR_USER)
        note = store.create_note(NoteDraft("Plan", "one\ntwo\n", parent_id=folder.id), actor=ACTOR_USER)
        store.update_note(note.id, NotePatch(body="one\n2\nthree\n"), actor=BOT)
        store.tag_note(note.id, ["ai"], actor=BOT)
        return note.id
    finally:
        store.close()


def test_list_show_and_accept(cli: Cli) -> None:
    assert "Nothing to review." in cli.ok("changes").out
    note_id = _changed_by_a_client(cli)
    listed = cli.ok("changes").out
    assert '"Plan" (Work)' in listed and BOT in listed and "+2 −1 lines; tagged ai" in listed
    (entry,) = cli.json("changes")
    assert (entry["note_id"], entry["actor"], entry["notebook"]) == (note_id, BOT, "Work")
    assert cli.json("changes", "--actor", "mcp") == [entry]
    assert cli.json("changes", "--actor", "assistant") == []
    assert cli.json("changes", "--since", "day+1") == []

    shown = cli.ok("changes", "show", str(entry["id"])).out
    assert "-two" in shown and "+three" in shown

    assert cli.ok("changes", "accept", str(entry["id"])).out.startswith("Marked 1 change reviewed")
    assert cli.json("changes") == []
    again = cli("changes", "accept", str(entry["id"]))
    assert again.code == 1 and "accepted already" in again.err


def test_revert_and_revert_after_an_edit_of_the_same_lines_keeps_both(cli: Cli, tmp_path: Path) -> None:
    note_id = _changed_by_a_client(cli)
    (entry,) = cli.json("changes")
    (tmp_path / "mine.md").write_text("one\n2\nthree, mine\n")  # a line the change wrote
    cli.ok("edit", note_id, "--body-file", str(tmp_path / "mine.md"))
    result = cli("changes", "revert", str(entry["id"]))
    assert result.code == 3, result.err  # both sides kept
    assert "kept both" in result.out
    assert cli.json("show", note_id)["body"] == "one\n2\nthree, mine\n"
    copies = [n for n in cli.json("notes") if n["title"].startswith("Plan (conflict")]
    assert len(copies) == 1
    assert cli.json("changes") == []


def test_revert_after_an_edit_on_other_lines_merges_them_exit_0(cli: Cli) -> None:
    """The task's reproduction: a client changed line b, the person appended, the revert puts b
    back and keeps the append, as accepting a proposal merges (it was exit 3 and a copy)."""
    cli.ok("changes")
    store = cli.store()
    try:
        folder = store.create_folder("Work", actor=ACTOR_USER)
        note = store.create_note(NoteDraft("Plan", "a\nb\nc\n", parent_id=folder.id), actor=ACTOR_USER)
        store.update_note(note.id, NotePatch(body="a\nB by bot\nc\n"), actor=BOT)
    finally:
        store.close()
    (entry,) = cli.json("changes")
    cli.ok("edit", note.id, "--append", "mine")
    result = cli("changes", "revert", str(entry["id"]))
    assert result.code == 0, result.out + result.err
    assert result.out.strip() == f'Reverted change {entry["id"]} of "Plan".'
    assert cli.json("show", note.id)["body"] == "a\nb\nc\nmine\n"
    assert [n["title"] for n in cli.json("notes") if n["title"].startswith("Plan")] == ["Plan"]
    assert cli.json("changes") == []


def test_revert_restores_the_text_before(cli: Cli) -> None:
    note_id = _changed_by_a_client(cli)
    (entry,) = cli.json("changes")
    assert cli("changes", "revert", str(entry["id"])).code == 0
    shown = cli.json("show", note_id)
    assert shown["body"] == "one\ntwo\n" and shown["tags"] == []


def test_every_key_of_an_entrys_json_detail_is_documented(cli: Cli) -> None:
    """A script reads ``detail``: each key it meets in a note's entry is named in the README's
    paragraph on ``noted changes --json`` (not vacuous: ``text_back``, left by a text put back
    by hand, was not, and a script saw ``edited`` vanish with no word on why)."""
    note_id = _changed_by_a_client(cli)
    store = cli.store()
    try:
        elsewhere = store.create_folder("Elsewhere", actor=ACTOR_USER).id
        store.update_note(note_id, NotePatch(parent_id=elsewhere), actor=BOT)
    finally:
        store.close()
    (before,) = cli.json("changes")
    cli.ok("edit", note_id, "--body-file", str(_file(cli, "one\ntwo\n")))  # the text put back by hand
    (after,) = cli.json("changes")
    assert after["detail"].get("text_back") is True and "edited" not in after["detail"]
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    paragraph = readme[readme.index("`--json` gives each entry's") :].split("\n\n")[0]
    keys = set(before["detail"]) | set(after["detail"])
    assert {k for k in keys if f"`{k}`" not in paragraph} == set()


def _file(cli: Cli, text: str) -> Path:
    path = cli.profile.parent / "body.md"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("args", "code", "fragment"),
    [
        (["changes", "accept", "abc"], 2, '"abc" is not a change id'),
        (["changes", "accept", "999999"], 1, "no change 999999"),
        (["changes", "--since", "yesterday"], 2, "yesterday"),
    ],
)
def test_bad_input_is_one_line_and_marks_nothing(cli: Cli, args: list[str], code: int, fragment: str) -> None:
    _changed_by_a_client(cli)
    (entry,) = cli.json("changes")
    result = cli(*args[:2], *([str(entry["id"])] if args[1] == "accept" else []), *args[2:])
    assert result.code == code, (result.out, result.err)
    assert result.err.count("\n") == 1 and fragment in result.err
    assert cli.json("changes") == [entry]  # a refused call marks nothing, even the good id beside it


def test_reverting_a_note_a_client_made_and_the_person_edited_keeps_it_exit_3(cli: Cli) -> None:
    cli.ok("changes")
    store = cli.store()
    try:
        folder = store.create_folder("Work", actor=ACTOR_USER)
        made = store.create_note(NoteDraft("Made", "by the app\n", parent_id=folder.id), actor=BOT).id
    finally:
        store.close()
    cli.ok("edit", made, "--append", "mine")
    (entry,) = cli.json("changes")
    result = cli("changes", "revert", str(entry["id"]))
    assert result.code == 3, (result.out, result.err)
    assert "changed since" in result.out and "it stays" in result.out
    shown = cli.json("show", made)
    assert shown["deleted_time"] == 0 and shown["body"] == "by the app\nmine\n"
    assert cli.json("changes") == []


def _proposed_note(cli: Cli) -> str:
    """A client's create_note that waits for the person (as ``--writes review`` leaves it); ``pN``."""
    cli.ok("config", "set", "ai.tool.create_note.enabled", "true")
    store = cli.store()
    try:
        folder = store.create_folder("Work", actor=ACTOR_USER)
        arguments = {"title": "Idea", "notebook_id": folder.id}
        row = SqliteReview(store.db).propose(
            client=BOT, tool="create_note", note_id="", title="Idea", base_updated_time=0,
            time=now_ms(), detail={"arguments": arguments, "scope": []},
        )  # fmt: skip
        return f"p{row.id}"
    finally:
        store.close()


def _ideas(cli: Cli) -> int:
    return len([n for n in cli.json("notes") if n["title"] == "Idea"])


def test_two_accepts_of_one_proposal_at_once_write_it_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two real ``noted changes accept pN`` started together: one applies it, the other is told
    it was accepted already (exit 1); never two notes."""
    cli = Cli(tmp_path / "profile", capsys)
    ref = _proposed_note(cli)
    command = [sys.executable, "-m", "noted", "--profile", str(cli.profile), "changes", "accept", ref]
    runs = [
        subprocess.Popen(
            command, env=env_with_src(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    ended = sorted((run.wait(timeout=scaled(300)), run.communicate()[1]) for run in runs)
    assert _ideas(cli) == 1
    assert [code for code, _ in ended] == [0, 1]
    assert "accepted already" in ended[1][1]


def test_a_proposal_being_applied_elsewhere_is_listed_and_a_second_accept_is_refused(cli: Cli) -> None:
    ref = _proposed_note(cli)
    store = cli.store()
    try:  # another process claimed it and is writing it now
        now = now_ms()
        assert SqliteReview(store.db).claim(int(ref[1:]), time=now, stuck_before=now - STUCK_MS)
    finally:
        store.close()
    listed = cli.ok("changes").out
    assert ref in listed and "(accepted: being applied)" in listed
    assert listed.rstrip().endswith(
        "1 proposal waiting: `noted changes show ID`, `accept ID…`, `reject pN…`."
    )
    for args in (["accept", ref, ref], ["reject", ref]):
        result = cli("changes", *args)
        assert result.code == 1 and result.err.startswith(f"noted: {ref} was accepted already"), result.err
    assert _ideas(cli) == 0


def test_an_id_given_twice_is_reverted_once(cli: Cli) -> None:
    """All or nothing: the second mention of an id is the same change, not one reverted already."""
    note_id = _changed_by_a_client(cli)
    (entry,) = cli.json("changes")
    result = cli("changes", "revert", str(entry["id"]), str(entry["id"]))
    assert result.code == 0, result.err
    assert result.out.count("Reverted change") == 1
    assert cli.json("show", note_id)["body"] == "one\ntwo\n"


def test_reverting_an_applied_proposal_reverts_the_change_it_made(cli: Cli) -> None:
    ref = _proposed_note(cli)
    waiting = cli("changes", "revert", ref)
    assert waiting.code == 2 and f"{ref} changed nothing yet: reject it" in waiting.err
    cli.ok("changes", "accept", ref)
    (made,) = [n for n in cli.json("notes") if n["title"] == "Idea"]
    (entry,) = cli.json("changes")
    result = cli("changes", "revert", ref)
    assert result.code == 0, result.err
    assert f"{ref} was applied as change {entry['id']}." in result.out and "Reverted change" in result.out
    assert cli.json("show", made["id"])["deleted_time"] != 0 and cli.json("changes") == []


def test_a_notebooks_trashing_is_one_change_with_its_notes_under_it(cli: Cli) -> None:
    """The notes an AI app's trashing of a notebook took along are listed under it (text and
    ``--json``), counted as part of it, and reverting it (with them named too, in any order)
    reverts them once; a note the person trashed before stays in the trash, unlisted."""
    cli.ok("changes")
    store = cli.store()
    try:
        work = store.create_folder("Work", actor=ACTOR_USER)
        a, b, mine = (
            store.create_note(NoteDraft(t, f"{t}\n", parent_id=work.id), actor=ACTOR_USER).id
            for t in ("Alpha", "Beta", "Mine")
        )
        store.trash_note(mine, actor=ACTOR_USER)
        store.trash_folder(work.id, actor=BOT)
    finally:
        store.close()
    (entry,) = cli.json("changes")  # one change, its notes in it
    assert entry["kind"] == "notebook" and entry["summary"] == "moved to the trash"
    under = {e["note_id"]: e["id"] for e in entry["with_it"]}
    assert set(under) == {a, b} and all(e["summary"] == "trashed" for e in entry["with_it"])
    listed = cli.ok("changes").out
    assert f'↳ {under[a]}  "Alpha": trashed' in listed
    assert "1 change to review (and 2 that went with it: ↳)" in listed

    result = cli("changes", "revert", str(under[b]), str(entry["id"]))
    assert result.code == 0, result.err
    assert f'Reverted change {entry["id"]} of notebook "Work" (and 2 that went with it).' in result.out
    assert "Reverted change" in result.out and result.out.count("Reverted change") == 1
    assert cli.json("changes") == []
    assert cli.json("show", a)["deleted_time"] == 0 and cli.json("show", b)["deleted_time"] == 0
    assert cli.json("show", mine)["deleted_time"] != 0

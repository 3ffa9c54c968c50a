"""``noted ask --json`` after a stop while the open note's edits waited for a yes: the report
must not call the held edit done (the pane and the saved chat already say "not saved").

A real ``noted ask`` child on a terminal (a pty), the real openai SDK, a loopback server.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path

from tests.integration.test_cli_ask import (  # noqa: F401 (fixtures)
    BODY,
    Child,
    ask,
    profile,
    text_reply,
    tool_reply,
    wire,
)
from tests.support.wire_server import WireServer

from noted.ops.notes import trash_note
from noted.ops.trash import empty_trash
from noted.store.sqlite import SqliteStore


def test_a_stop_at_the_edit_prompt_reports_the_held_edit_not_saved(profile: Path, wire: WireServer) -> None:  # noqa: F811
    # Before: "tool_calls" said the edit was "ok" and "changes" was empty, though nothing was written.
    wire.push(tool_reply("e", "editor_replace", {"anchor": "- milk", "text": "- oat milk"}))
    child = Child(
        profile, wire, "--json", "--note", "Shopping", "Oat milk", NOTED_AI_TOOL_EDIT_CURRENT_ENABLED="1"
    )
    child.wait_for_err("[y/N] ")
    child.proc.send_signal(signal.SIGINT)
    code, out, err = child.finish()
    assert code == 130, err
    report = json.loads(out)
    ((call,),) = [report["tool_calls"]]
    assert (report["outcome"], call["name"]) == ("stopped", "editor_replace")
    assert call["status"] == "refused" and "Not saved" in call["result"]["message"], call
    store = SqliteStore.open(profile / "notes.db", profile / "resources")
    try:
        assert [store.get_note(n.id).body for n in store.list_notes()] == [
            BODY
        ]  # not vacuous: nothing was written
    finally:
        store.close()


def test_a_note_deleted_at_the_edit_prompt_refuses_the_edit_and_the_answer_goes_on(
    profile: Path,  # noqa: F811
    wire: WireServer,  # noqa: F811
) -> None:
    # Before: "noted: no note with id …" and exit 1; the model's answer after the edit never came.
    wire.push(tool_reply("e", "editor_replace", {"anchor": "- milk", "text": "- oat milk"}))
    wire.push(text_reply("Understood."))
    child = Child(profile, wire, "--note", "Shopping", "Oat milk", NOTED_AI_TOOL_EDIT_CURRENT_ENABLED="1")
    child.wait_for_err("[y/N] ")
    store = SqliteStore.open(profile / "notes.db", profile / "resources")
    try:  # another shell: `noted trash Shopping && noted empty-trash --yes`
        (note,) = store.list_notes()
        trash_note(store, note.id, actor="user")
        empty_trash(store, actor="user")
    finally:
        store.close()
    child.type("y\n")
    code, out, err = child.finish()
    # 1, refused (README's exit codes): the edit the person said yes to was not written. It was 0,
    # so a script took the run for done.
    assert code == 1, err
    assert "· Not saved: the note was deleted while the assistant was editing it" in err, err
    assert "no note with id" not in err, err
    assert out.strip() == "Understood."


def test_json_calls_a_declined_edit_of_the_note_refused(profile: Path, wire: WireServer) -> None:  # noqa: F811
    # Before: the edit's call said "status": "ok", "outcome": "done" though nothing was written
    # ("changes" said so, and the chat pane and the saved chat marked the call refused).
    wire.push(
        tool_reply("e", "editor_replace", {"anchor": "- milk", "text": "- oat milk"}),
        text_reply("Asked."),
    )
    done = ask(
        profile, wire, "--json", "--note", "Shopping", "Oat milk", NOTED_AI_TOOL_EDIT_CURRENT_ENABLED="1"
    )

    assert done.returncode == 4, done.stderr
    report = json.loads(done.stdout)
    (call,) = report["tool_calls"]
    assert report["changes"][0]["saved"] is False
    assert (call["status"], call["outcome"]) == ("refused", "refused"), call
    assert "declined" in call["result"]["message"], call
    assert [a["title"] for a in report["approvals"]] == ["Apply 1 edit to “Shopping”?"]  # was "1 edit(s)"

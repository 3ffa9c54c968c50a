"""``noted edit`` meeting a change made meanwhile keeps both sides; separate edits keep their revisions.

The concurrent writer is always another real ``noted`` process, started from inside the editor
script (``$EDITOR``) or while standard input is still open (``--body-file -``), so the change lands
between the edit's read and its save exactly as it would from a second shell.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from tests.support.cli import Cli, env_with_src, run_noted
from tests.support.polling import scaled

from noted.cli.commands_edit import EXIT_CONFLICT

# Changes the note through another process while "editing", then types a line in the file.
CONCURRENT = """
import os, pathlib, subprocess, sys
path = pathlib.Path(sys.argv[-1])
subprocess.run(
    [sys.executable, "-m", "noted", "--profile", os.environ["NOTED_TEST_PROFILE"], "edit",
     os.environ["NOTED_TEST_NOTE"], "--append", "Changed meanwhile"],
    check=True,
)
path.write_text(path.read_text(encoding="utf-8") + "typed in the editor\\n", encoding="utf-8")
"""


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    monkeypatch.delenv("VISUAL", raising=False)
    return Cli(tmp_path / "profile", capsys)


def _concurrent_editor(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, note: str, source: str = CONCURRENT
) -> None:
    script = tmp_path / "editor.py"
    script.write_text(source, encoding="utf-8")
    monkeypatch.setenv("EDITOR", f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}")
    for key, value in env_with_src(NOTED_TEST_PROFILE=str(cli.profile), NOTED_TEST_NOTE=note).items():
        monkeypatch.setenv(key, value)


def _titles(cli: Cli) -> list[str]:
    return sorted(n["title"] for n in cli.json("notes") if n["title"].startswith("Shared"))


def test_three_separate_edits_are_three_restorable_revisions(cli: Cli) -> None:
    # The case reported: before, the three saves by "user" within ten minutes were one
    # revision ("3 edits") and v1, v1+v2 could be neither shown nor restored.
    note = cli.ok("create", "Hist test", "--body", "v1").out.strip()
    cli.ok("edit", note, "--append", "v2")
    cli.ok("edit", note, "--append", "v3")
    revisions = cli.json("history", note)
    assert all({"id", "time", "actor"} <= set(r) for r in revisions)
    bodies = [cli.json("history", note, "--show", str(r["id"]))["body"] for r in revisions]
    assert bodies == ["v1\nv2\nv3\n", "v1\nv2\n", "v1"]  # each append ends its line
    oldest = revisions[-1]["id"]
    assert cli.json("history", note, "--restore", str(oldest))["body"] == "v1"
    assert cli.json("show", note)["body"] == "v1"
    assert len(cli.json("history", note)) == 4  # the restore is a revision too: v1+v2+v3 stays


def test_separate_processes_never_share_a_revision(cli: Cli) -> None:
    note = cli.ok("create", "Two shells", "--body", "a").out.strip()
    for text in ("b", "c"):
        done = run_noted(cli.profile, "edit", note, "--append", text)
        assert done.returncode == 0, done.stderr
    assert [r["edits"] for r in cli.json("history", note)] == [1, 1, 1]


def test_editor_meeting_a_change_keeps_both(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: exit 1 and the text only in a temporary file; now a conflict copy beside the note.
    note = cli.ok("create", "Shared", "--body", "base\n").out.strip()
    _concurrent_editor(cli, tmp_path, monkeypatch, note)
    result = cli("edit", note)
    assert result.code == EXIT_CONFLICT
    assert result.err.count("\n") == 1 and "kept both" in result.err
    # The compare command runs as printed, with this run's --profile (or --vault DIR).
    shown = result.err.split("compare with: ")[1].strip()
    assert shown.startswith(f"diff <(noted --profile {shlex.quote(str(cli.profile))} show {note}) <(")
    compared = subprocess.run(["bash", "-c", shown], capture_output=True, text=True, env=env_with_src())
    assert compared.returncode == 1 and "> typed in the editor" in compared.stdout, compared.stderr
    assert cli.json("show", note)["body"] == "base\nChanged meanwhile\n"
    copies = [n for n in cli.json("notes") if n["title"].startswith("Shared")]
    assert len(copies) == 2 and copies[0]["title"].startswith("Shared (conflict copy ")
    copy = cli.json("show", copies[0]["id"])
    assert copy["id"] in result.err and copy["notebook"] == cli.json("show", note)["notebook"]
    assert copy["body"].endswith("\n\nbase\ntyped in the editor\n") and f"(:/{note})" in copy["body"]
    assert list((tmp_path / "profile" / "editing").iterdir()) == []  # the text is safe, so its file is gone


def test_editor_with_theirs_keeps_the_other_version_and_yours_in_history(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = cli.ok("create", "Shared", "--body", "base\n").out.strip()
    _concurrent_editor(cli, tmp_path, monkeypatch, note)
    result = cli("edit", note, "--theirs")
    assert result.code == EXIT_CONFLICT and "history" in result.err
    assert cli.json("show", note)["body"] == "base\nChanged meanwhile\n"
    assert _titles(cli) == ["Shared"]
    bodies = [cli.json("history", note, "--show", str(r["id"]))["body"] for r in cli.json("history", note)]
    assert "base\ntyped in the editor\n" in bodies and bodies[0] == "base\nChanged meanwhile\n"
    # Three revisions by `user` within a minute: the labels tell whose each is (the other process's is `user` too).
    revisions = cli.json("history", note)
    assert [(r["actor"], r["label"]) for r in revisions[:3]] == [
        ("user", "theirs by user, taken"), ("user", "yours, set aside"), ("user", ""),
    ]  # fmt: skip
    listed = cli.ok("history", note).out.splitlines()
    assert listed[0].endswith("Shared  (theirs by user, taken)") and listed[1].endswith(
        "Shared  (yours, set aside)"
    )


def test_editor_with_overwrite_keeps_the_other_version_in_history(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = cli.ok("create", "Shared", "--body", "base\n").out.strip()
    _concurrent_editor(cli, tmp_path, monkeypatch, note)
    result = cli("edit", note, "--overwrite")
    assert result.code == 0, result.err
    assert cli.json("show", note)["body"] == "base\ntyped in the editor\n"
    bodies = [cli.json("history", note, "--show", str(r["id"]))["body"] for r in cli.json("history", note)]
    assert bodies == ["base\ntyped in the editor\n", "base\nChanged meanwhile\n", "base\n"]


def test_body_file_meeting_a_change_keeps_both(cli: Cli, tmp_path: Path) -> None:
    # The body comes through a FIFO: opening it for writing returns only once the edit has opened
    # it for reading, that is after it read the note; the append lands before the body is sent.
    note = cli.ok("create", "Piped", "--body", "base").out.strip()
    fifo = tmp_path / "body.fifo"
    os.mkfifo(fifo)
    edit = subprocess.Popen(
        [sys.executable, "-m", "noted", "--profile", str(cli.profile), "edit", note, "--body-file", str(fifo), "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env_with_src(),
    )  # fmt: skip
    with fifo.open("w", encoding="utf-8") as pipe:
        meanwhile = run_noted(cli.profile, "edit", note, "--append", "Changed meanwhile")
        assert meanwhile.returncode == 0, meanwhile.stderr
        pipe.write("replaced through the pipe\n")
    out, err = edit.communicate(timeout=scaled(300))
    assert edit.returncode == EXIT_CONFLICT, err
    answer = json.loads(out)
    assert answer["conflict"] == "keep-both" and answer["note"]["body"] == "base\nChanged meanwhile\n"
    copy = cli.json("show", answer["copy"]["id"])
    assert copy["body"].endswith("\n\nreplaced through the pipe\n") and f"(:/{note})" in copy["body"]
    assert copy["notebook"] == answer["note"]["notebook"]


# Deletes the note for good through another process while "editing", then types a line.
DELETING = """
import os, pathlib, subprocess, sys
noted = [sys.executable, "-m", "noted", "--profile", os.environ["NOTED_TEST_PROFILE"]]
subprocess.run([*noted, "trash", os.environ["NOTED_TEST_NOTE"]], check=True)
subprocess.run([*noted, "empty-trash", "--yes"], check=True)
path = pathlib.Path(sys.argv[-1])
path.write_text(path.read_text(encoding="utf-8") + "typed in the editor\\n", encoding="utf-8")
"""


def test_editor_on_a_note_deleted_meanwhile_keeps_the_text_as_a_note(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = cli.ok("create", "Doomed", "--body", "base\n").out.strip()
    _concurrent_editor(cli, tmp_path, monkeypatch, note, DELETING)
    result = cli("edit", note)
    assert result.code == EXIT_CONFLICT and "was deleted while you edited it" in result.err
    (copy,) = [n for n in cli.json("notes") if n["title"].startswith("Doomed (conflict copy ")]
    body = cli.json("show", copy["id"])["body"]
    assert (
        body.endswith("\n\nbase\ntyped in the editor\n") and "was deleted elsewhere" in body.splitlines()[0]
    )


# Moves the note to the trash through another process while "editing", then types a line.
TRASHING = """
import os, pathlib, subprocess, sys
noted = [sys.executable, "-m", "noted", "--profile", os.environ["NOTED_TEST_PROFILE"]]
subprocess.run([*noted, "trash", os.environ["NOTED_TEST_NOTE"]], check=True)
path = pathlib.Path(sys.argv[-1])
path.write_text(path.read_text(encoding="utf-8") + "typed in the editor\\n", encoding="utf-8")
"""


def test_editor_on_a_note_trashed_meanwhile_keeps_both_and_says_how_to_restore(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: the text went into the trashed note and the command said 'saved "Binned"'.
    note = cli.ok("create", "Binned", "--body", "base\n").out.strip()
    _concurrent_editor(cli, tmp_path, monkeypatch, note, TRASHING)
    result = cli("edit", note)
    assert result.code == EXIT_CONFLICT, result.err
    assert "was moved to the trash while you edited it" in result.err and f"restore {note}" in result.err
    assert cli.json("show", note)["body"] == "base\n"  # the trashed note kept its text
    (copy,) = [n for n in cli.json("notes") if n["title"].startswith("Binned (conflict copy ")]
    assert cli.json("show", copy["id"])["body"].endswith("\n\nbase\ntyped in the editor\n")


def test_overwrite_of_a_note_trashed_meanwhile_says_it_stays_there(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = cli.ok("create", "Binned", "--body", "base\n").out.strip()
    _concurrent_editor(cli, tmp_path, monkeypatch, note, TRASHING)
    result = cli("edit", note, "--overwrite")
    assert result.code == 0 and "moved to the trash meanwhile and stays there" in result.out
    assert f"restore {note}" in result.out
    shown = cli.json("show", note)
    assert shown["body"] == "base\ntyped in the editor\n"

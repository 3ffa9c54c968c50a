"""``noted edit`` through ``$EDITOR``: saving, no change, editor failures (conflicts: test_cli_conflicts).

The editors are small Python scripts, so the tests run the real subprocess path the command uses.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from tests.support.cli import Cli, run_noted

APPEND = """
import pathlib, sys
path = pathlib.Path(sys.argv[-1])
path.write_text(path.read_text(encoding="utf-8") + "typed in the editor\\n", encoding="utf-8")
"""


def editor(tmp_path: Path, source: str, name: str = "editor.py") -> str:
    script = tmp_path / name
    script.write_text(source, encoding="utf-8")
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    monkeypatch.delenv("VISUAL", raising=False)
    return Cli(tmp_path / "profile", capsys)


def test_editor_saves_the_edited_body(cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    note = cli.ok("create", "Diary", "--body", "first line\n").out.strip()
    monkeypatch.setenv("EDITOR", editor(tmp_path, APPEND))
    assert cli.ok("edit", note).out == 'saved "Diary"\n'
    assert cli.json("show", note)["body"] == "first line\ntyped in the editor\n"
    assert cli.json("history", note)[0]["actor"] == "user"
    assert list((tmp_path / "profile" / "editing").iterdir()) == []


def test_the_editor_gets_a_final_newline_and_so_does_an_append(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 39: a body without a final newline went to $EDITOR as it was, so a line the editor
    # appended was glued to the last one ("last linetyped in the editor"); --append left none.
    note = cli.ok("create", "Diary", "--body", "first line").out.strip()
    cli.ok("edit", note, "--append", "appended")
    assert cli.json("show", note)["body"] == "first line\nappended\n"
    monkeypatch.setenv("EDITOR", editor(tmp_path, APPEND))
    cli.ok("edit", note)
    assert cli.json("show", note)["body"] == "first line\nappended\ntyped in the editor\n"
    other = cli.ok("create", "Plain", "--body", "no newline").out.strip()
    cli.ok("edit", other)
    assert cli.json("show", other)["body"] == "no newline\ntyped in the editor\n"
    # Untouched, the newline given to the editor is no change: nothing is saved.
    monkeypatch.setenv("EDITOR", editor(tmp_path, "pass"))
    third = cli.ok("create", "Third", "--body", "bare").out.strip()
    before = cli.cursor()
    assert cli.ok("edit", third).out == "no change\n" and cli.cursor() == before


def test_visual_comes_before_editor(cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As in the app and in git: ``$VISUAL``, else ``$EDITOR`` (the CLI once had them the other way)."""
    note = cli.ok("create", "Diary", "--body", "x\n").out.strip()
    monkeypatch.setenv("EDITOR", editor(tmp_path, "import sys\nsys.exit(3)\n", "failing.py"))
    monkeypatch.setenv("VISUAL", editor(tmp_path, APPEND))
    cli.ok("edit", note)
    assert cli.json("show", note)["body"] == "x\ntyped in the editor\n"
    monkeypatch.delenv("VISUAL")
    assert cli("edit", note).code == 1  # now $EDITOR runs, and exits 3


def test_unchanged_file_saves_nothing(cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    note = cli.ok("create", "Diary", "--body", "x\n").out.strip()
    monkeypatch.setenv("EDITOR", editor(tmp_path, "pass"))
    before = cli.cursor()
    assert cli.ok("edit", note).out == "no change\n"
    assert cli.cursor() == before


def test_failing_editor_saves_nothing(cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    note = cli.ok("create", "Diary", "--body", "x\n").out.strip()
    monkeypatch.setenv("EDITOR", editor(tmp_path, APPEND + "\nsys.exit(3)\n"))
    before = cli.cursor()
    result = cli("edit", note)
    # Exit 1, refused, as the README documents (git commit too): the editor said no, the input
    # was not bad; it exited 2 (bad input) before, which the README's table did not list.
    assert result.code == 1 and "exited with status 3" in result.err and result.err.count("\n") == 1
    assert cli.cursor() == before
    kept = Path(result.err.split("text is in ")[1].strip())
    assert kept.read_text(encoding="utf-8") == "x\ntyped in the editor\n"


def test_missing_editor_is_a_clear_error(cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    note = cli.ok("create", "Diary").out.strip()
    monkeypatch.setenv("EDITOR", str(tmp_path / "no-such-editor"))
    before = cli.cursor()
    result = cli("edit", note)
    assert result.code == 2 and "cannot start the editor" in result.err and "$EDITOR" in result.err
    assert cli.cursor() == before


def test_an_edit_that_changes_nothing_says_so_and_writes_nothing(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note_id = cli.ok("create", "Same", "--body", "one line").out.strip()
    body = tmp_path / "body.md"
    body.write_text(cli.json("show", note_id)["body"], encoding="utf-8")
    before = cli.cursor()
    for args in (
        ["--title", "Same"],
        ["--body-file", str(body)],
        ["--title", "Same", "--body-file", str(body)],
    ):
        said = cli.ok("edit", note_id, *args).out
        assert said == "no change: the note already says the same\n", args
    assert cli.cursor() == before  # no feed row: nothing for the index or the review to follow
    assert cli.ok("edit", note_id, "--title", "Other").out == 'saved "Other"\n'


def test_the_file_a_failed_edit_names_stays_where_it_is_said_to_be(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file of an editor that failed stayed in ``editing/``; the next command, in another
    process, took it for a killed noted's, moved it to ``rescued/`` and said "noted was stopped
    while $EDITOR was open". Not vacuous: each command is its own process, as at a shell, so the
    first one's process is gone when the second starts (in one process it would not be)."""
    profile = tmp_path / "profile"
    note = run_noted(profile, "create", "Diary", "--body", "x").stdout.strip()
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", editor(tmp_path, APPEND + "\nsys.exit(3)\n"))
    failed = run_noted(profile, "edit", note)
    assert failed.returncode == 1 and "exited with status 3" in failed.stderr, failed.stderr
    kept = Path(failed.stderr.split("text is in ")[1].strip())

    after = run_noted(profile, "notes")

    assert (after.returncode, after.stderr) == (0, "")
    assert kept.read_text(encoding="utf-8") == "x\ntyped in the editor\n"
    assert kept.parent == profile / "rescued"

"""Small wrong answers of the command line, each named by what a person saw before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.cli import Cli


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(tmp_path / "profile", capsys)


def test_completing_a_todo_already_so_says_so_and_writes_nothing(cli: Cli) -> None:
    """Before: ``complete --undo`` on an open to-do said "marked ... not done"; ``complete`` twice
    stamped a new completion time."""
    note = cli.ok("create", "Buy milk", "--todo").out.strip()
    before = cli.cursor()
    assert cli.ok("complete", note, "--undo").out == '"Buy milk" is not done already\n'
    assert cli.cursor() == before  # the feed's newest id would move with any write
    done = cli.json("complete", note)["todo_completed"]
    assert done > 0
    before = cli.cursor()
    assert cli.ok("complete", note).out == '"Buy milk" is done already\n'
    assert cli.cursor() == before and cli.json("show", note)["todo_completed"] == done
    assert cli.ok("complete", note, "--undo").out == 'marked "Buy milk" not done\n'


def test_links_lists_the_notes_attachments(cli: Cli, tmp_path: Path) -> None:
    """Before: a note linking only to an attachment answered "no links to or from this note", and
    ``--json`` (the note_links tool's answer) had no word of it, while the reader's pane lists it."""
    folder = tmp_path / "in" / "Docs"
    folder.mkdir(parents=True)
    (folder / "report.pdf").write_bytes(b"%PDF-1")
    (folder / "Only.md").write_text("See [the report](report.pdf)\n")
    cli.ok("import", str(tmp_path / "in"))
    shown = cli.ok("links", "Only").out
    assert "no links" not in shown and "📎 report.pdf" in shown and "6 bytes" in shown, shown
    (attachment,) = cli.json("links", "Only")["attachments"]
    assert (attachment["filename"], attachment["size"], attachment["mime"]) == (
        "report.pdf",
        6,
        "application/pdf",
    )


@pytest.mark.parametrize("option", ["--append", "--prepend"])
def test_an_empty_append_or_prepend_is_refused_and_writes_nothing(cli: Cli, option: str) -> None:
    """Before: ``edit --prepend ""`` said "saved" and put a blank line before the body (and
    ``--append ""`` a line break after one that ended without); the tools refuse empty text."""
    cli.ok("create", "Plan", "--body", "x")
    before = cli.cursor()
    result = cli("edit", "Plan", option, "")
    assert (result.code, result.err.count("\n")) == (2, 1) and f"{option} is empty" in result.err, result.err
    assert cli.cursor() == before and cli.json("show", "Plan")["body"] == "x"


def test_removing_a_tag_the_note_does_not_carry_says_so(cli: Cli) -> None:
    """Before: ``tag --remove`` of a tag not on the note answered with the note's tags alone, as if
    it had been taken off."""
    cli.ok("create", "Plan", "--tag", "work")
    before = cli.cursor()
    said = cli.ok("tag", "Plan", "later", "work", "--remove").out
    assert said == 'not on "Plan", so not removed: later\ntags of "Plan": (none)\n'
    assert cli.cursor() != before  # "work" was taken off


def test_trashing_a_trashed_notebook_says_so_and_writes_nothing(cli: Cli) -> None:
    """Before: a second ``notebook trash`` said "trashed notebook" again (as ``trash`` of a note
    says it is already there)."""
    cli.ok("notebook", "create", "Work")
    cli.ok("notebook", "trash", "Work")
    before = cli.cursor()
    assert cli.ok("notebook", "trash", "Work").out == 'the notebook "Work" is already in the trash\n'
    assert cli.cursor() == before

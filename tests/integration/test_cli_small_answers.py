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

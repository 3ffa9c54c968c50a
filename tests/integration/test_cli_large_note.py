"""``noted show --outline`` and ``--section`` of a note over ``notes.largeNoteChars``: the outline of
its opening, said in one line on stderr (``partial`` in JSON); ``noted show`` still prints all of it.

Parsing all of a 39 MB note took ``noted show --outline`` 22 s. The note here is small (60,000
characters) with a small limit; its last heading lies past the opening, so a whole parse lists it
and the test can fail.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.cli import Cli
from tests.unit.test_large_notes import long_body

from noted.markdown import outline, outline_lines

PART = 20_000


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    made = Cli(tmp_path / "profile", capsys)
    made.ok("config", "set", "notes.largeNoteChars", str(PART))
    return made


def test_show_outline_of_a_large_note_is_its_openings(cli: Cli) -> None:
    body = long_body()
    note = cli.ok("create", "Huge manual", "--body", body).out.strip()
    shown = cli.ok("show", note, "--outline")
    assert "\tThe end" not in shown.out and shown.out.splitlines()[1] == "1\t375\tSection 0"
    assert shown.err.startswith("noted: Partial outline: of the first ") and shown.err.count("\n") == 1
    tree = outline(body, PART)
    assert shown.out.splitlines() == outline_lines(tree) and shown.err == f"noted: {tree.partial}\n"
    listed = cli.json("show", note, "--outline")
    assert listed["partial"] == tree.partial and listed["outline"][-1]["heading"] != "The end"
    section = cli.ok("show", note, "--section", "Section 2")
    assert section.out.startswith("## Section 2\n") and section.err == ""
    missing = cli("show", note, "--section", "The end")
    assert missing.code != 0 and 'no section "The end"' in missing.err and str(tree.partial) in missing.err
    assert cli.json("show", note)["body"].rstrip("\n") == body.rstrip("\n")  # the note itself, whole


def test_show_outline_of_a_small_note_says_nothing_more(cli: Cli) -> None:
    note = cli.ok("create", "Small", "--body", "# One\ntext\n").out.strip()
    shown = cli.ok("show", note, "--outline")
    assert shown.out == "1\t11\tOne\n" and shown.err == ""
    assert "partial" not in cli.json("show", note, "--outline")

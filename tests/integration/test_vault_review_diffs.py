"""A Markdown folder's note keeps its title as the file's first-line heading, in its body: the
diffs of ``noted changes show`` (and of a proposal's sides) show that heading once, as they show
the title once on the other backends. Not vacuous: they put the title before the body as a ``#``
line, so the heading was shown twice, right where an edit of a note's opening lines is shown."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.cli import Cli
from tests.support.vaults import git


def _shown_after(tmp_path: Path, capsys: pytest.CaptureFixture[str], before: str, after: str) -> str:
    """``noted changes show`` of the outside edit that turned a folder's note ``before`` into ``after``."""
    vault = tmp_path / "notes"
    vault.mkdir()
    (vault / "plan.md").write_text(before)
    git(vault, "init", "-q")
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "start")
    cli, v = Cli(tmp_path / "profile", capsys), ("--vault", str(vault))
    cli.ok("notes", *v)
    (vault / "plan.md").write_text(after)  # an editor, a git pull
    (entry,) = cli.json("changes", *v)
    return cli.ok("changes", "show", str(entry["id"]), *v).out


def test_an_outside_edit_near_the_heading_shows_the_heading_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shown = _shown_after(
        tmp_path, capsys, "# Plan\nline one\n\nline two\n", "# Plan\nline one, edited\n\nline two\n"
    )
    assert "-line one\n+line one, edited" in shown
    assert [line for line in shown.splitlines() if line.lstrip(" ") == "# Plan"] == [" # Plan"]


def test_a_retitled_note_shows_both_headings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shown = _shown_after(tmp_path, capsys, "# Plan\n\nline one\n", "# Budget\n\nline one\n")
    assert "-# Plan\n+# Budget\n" in shown and shown.count("# Budget") == 1

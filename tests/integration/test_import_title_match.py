"""A note found only by its title is never overwritten by an import, in any field.

Importing profile A's export into a fresh profile B matched B's own welcome to-do by title and
took the file's due date ("1 updated"): the body was guarded against that, the other fields were
not. Real CLI, real SQLite, real Markdown folder.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.cli import Cli


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(tmp_path / "b", capsys)


def todo(cli: Cli, *v: str) -> dict[str, object]:
    (found,) = [n for n in cli.json("notes", *v) if n["title"] == "Try noted for a week"]
    note: dict[str, object] = cli.json("show", str(found["id"]), *v)
    return note


def test_another_profiles_export_leaves_the_welcome_todo_as_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], cli: Cli
) -> None:
    """Both fresh profiles hold a welcome to-do of that title, due a week after each was made: B's
    kept A's due date. Not vacuous: B's is made first, so the due dates differ."""
    a = Cli(tmp_path / "a", capsys)
    a.ok("notes")
    before = todo(cli)
    export = tmp_path / "x"
    a.ok("export", str(export))
    theirs = todo(a)
    assert theirs["todo_due"] != before["todo_due"]
    report = cli.json("import", str(export))
    assert (report["notes_created"], report["notes_updated"]) == (1, 0)  # A's to-do, as its own note
    assert cli.json("show", str(before["id"])) == before
    assert cli.json("show", str(theirs["id"]))["todo_due"] == theirs["todo_due"]


@pytest.mark.parametrize("in_vault", [False, True], ids=["sqlite", "vault"])
def test_a_file_matched_by_title_that_changes_only_a_due_date_is_a_conflict_copy(
    cli: Cli, tmp_path: Path, in_vault: bool
) -> None:
    """A file with no id, of a note made in noted (no import on record): its text is the note's,
    its due date is not. That date replaced the note's; now the note keeps it and the file's
    text goes beside it as a conflict copy, as for a text that differs."""
    v: tuple[str, ...] = ("--vault", str(tmp_path / "vault")) if in_vault else ()
    (tmp_path / "vault").mkdir()
    source = tmp_path / "src"
    source.mkdir()
    cli.ok("notebook", "create", "src", *v)
    made = cli.json(
        "create", "Call Ana", "--notebook", "src", "--todo", "--due", "2030-01-31", "--body", "hi", *v
    )
    (source / "Call Ana.md").write_text("---\nis_todo: true\ntodo_due: '2031-05-01T00:00:00.000Z'\n---\nhi")
    report = cli.json("import", str(source), *v)
    assert (report["notes_updated"], report["conflict_copies"]) == (0, 1)
    assert cli.json("show", made["id"], *v)["todo_due"] == made["todo_due"]

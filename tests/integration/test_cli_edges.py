"""The command line at its edges (issue 34): history pruning, the trash, the last bad inputs.

Each test names what failed before its fix.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.cli import Cli

from noted.store.history.thinning import DAY_MS


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(tmp_path / "profile", capsys)


def _age_revisions(cli: Cli, days: int) -> None:
    store = cli.store()
    try:
        with store.db.write() as conn:  # type: ignore[attr-defined]
            conn.execute("UPDATE revisions SET time = time - ?", (days * DAY_MS,))
    finally:
        store.close()


def test_history_prune_thins_old_revisions_and_says_what_it_freed(cli: Cli) -> None:
    note = cli.ok("create", "Log", "--body", "start\n").out.strip()
    for i in range(6):
        cli.ok("edit", note, "--append", f"line {i}\n")
    _age_revisions(cli, 40)
    before = cli.json("history", note)

    result = cli.ok("history", "--prune")

    after = cli.json("history", note)
    assert len(before) == 7 and [r["id"] for r in after] == [before[0]["id"]]  # the last of that day
    assert result.out.startswith("Thinned 6 old revisions across ") and "MB to " in result.out
    again = cli.json("history", "--prune")
    assert again["removed"] == 0 and again["notes"] >= 1 and again["size_after"] <= again["size_before"]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["history", "--prune", "Log"], "give no note with it"),
        (["history"], "name a note"),
    ],
)
def test_history_without_a_note_or_with_one_and_prune_is_refused(
    cli: Cli, args: list[str], fragment: str
) -> None:
    cli.ok("create", "Log", "--body", "x")
    before = cli.cursor()
    result = cli(*args)
    assert (result.code, result.err.count("\n")) == (2, 1) and fragment in result.err
    assert cli.cursor() == before

"""``noted history NOTE --restore N`` where the note already reads as revision N writes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.cli import Cli


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(tmp_path / "profile", capsys)


def test_restoring_the_text_a_note_has_writes_nothing(cli: Cli) -> None:
    note = cli.ok("create", "Plan", "--body", "v1").out.strip()
    cli.ok("edit", note, "--append", "v2")
    newest, first = (r["id"] for r in cli.json("history", note))
    for revision, restores in ((newest, 0), (first, 1), (first, 0)):  # the last: v1 again, as now
        before, updated = cli.cursor(), cli.json("show", note)["updated_time"]
        said = cli.ok("history", note, "--restore", str(revision)).out
        # The app says "nothing to restore" here; the command wrote a change of nothing to the
        # feed and moved the note's time.
        assert (cli.cursor() > before, cli.json("show", note)["updated_time"] > updated) == (
            restores,
            restores,
        )
        assert ("restored" in said) == bool(restores)
        assert restores or f'"Plan" is already as it was in revision {revision}' in said
    assert [r["label"] for r in cli.json("history", note)] == [f"restored from rev {first}", "", ""]

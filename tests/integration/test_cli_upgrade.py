"""A profile made by an older noted: the first command says once that it upgrades the database."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.cli import Cli
from tests.support.schema import schema_2_database


def test_the_first_command_on_an_older_profile_says_it_upgrades_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli = Cli(tmp_path / "profile", capsys)
    cli.profile.mkdir(parents=True)
    schema_2_database(cli.profile / "notes.db")

    first = cli.ok("search", "budget", "--mode", "keyword")
    assert "upgrading the notebook database" in first.err
    assert first.out.index("Review") < first.out.index("Quarter")

    again = cli.ok("search", "budget", "--mode", "keyword")
    assert again.err == ""
    assert again.out == first.out

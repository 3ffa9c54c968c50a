"""``noted conflicts`` and ``noted sync`` on a profile of noted's own (not Joplin): one clear refusal."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.cli import Cli


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(tmp_path / "profile", capsys)


@pytest.mark.parametrize("args", [("conflicts",), ("sync",), ("sync", "--status")])
def test_sync_commands_need_the_joplin_backend(cli: Cli, args: tuple[str, ...]) -> None:
    cursor = cli.cursor()
    result = cli(*args)
    assert result.code == 2 and "--joplin" in result.err and result.err.count("\n") == 1
    assert cli.cursor() == cursor  # refused: nothing written


def test_resolve_options_without_resolve_are_refused(cli: Cli) -> None:
    result = cli("conflicts", "--keep", "note")
    assert result.code == 2 and "noted conflicts resolve" in result.err

"""``noted index`` counts in words that agree with the count."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.cli import Cli


def test_one_note_in_one_chunk_is_said_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NOTED_AI_EMBEDDING_PROVIDER", "fake")
    cli = Cli(tmp_path / "profile", capsys)
    cli.ok("notebook", "trash", "Welcome")
    cli.ok("create", "Otter", "--body", "sea otters hold hands")
    # A Markdown folder of one note said "Index up to date: 1 notes in 1 chunks."
    assert cli.ok("index").out.strip() == "Index up to date: 1 note in 1 chunk."
    cli.ok("create", "Seal", "--body", "seals bark")
    assert cli.ok("index").out.strip() == "Index up to date: 2 notes in 2 chunks."

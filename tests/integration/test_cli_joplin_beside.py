"""``--joplin`` on a profile that keeps its own notebook, as README's "noted --joplin" does on the
profile a first ``noted`` made: the two stores stay apart (a check, not a fix: it held already)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.cli import Cli
from tests.support.joplin import shared_server


def test_joplin_beside_its_own_notebook_mixes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    joplin = shared_server(tmp_path)
    joplin.wipe()
    monkeypatch.setenv("NOTED_JOPLIN_TOKEN", joplin.token)
    monkeypatch.setenv("NOTED_JOPLIN_URL", joplin.url)
    cli = Cli(tmp_path / "profile", capsys)
    own = {n["id"] for n in cli.json("notes")}  # the welcome notes of its own notebook
    before = cli.cursor()
    made = cli.ok("--joplin", "create", "In Joplin").out.strip()
    assert [n["id"] for n in cli.json("--joplin", "notes")] == [made]  # none of its own notebook's
    assert {n["id"] for n in cli.json("notes")} == own and cli.cursor() == before  # notes.db untouched
    assert sorted(p.name for p in cli.profile.glob("*.db")) == ["joplin-sidecar.db", "notes.db"]

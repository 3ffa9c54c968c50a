"""A note's updated time through an import into a Markdown folder, whose files' times are its notes'.

Before: every note imported into a Markdown folder was dated the moment of the import (its file's
time then), so a round trip embedded → export → Markdown folder → export lost every note's
``updated:``, and an import again of the same export could not tell the notes were its own.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tests.support.cli import Cli

from noted.store.transfer.common import to_ms

UPDATED = "2021-02-03T04:05:06.789Z"


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(tmp_path / "profile", capsys)


def test_an_import_into_a_markdown_folder_keeps_each_notes_updated_time(cli: Cli, tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    front = f"---\ncreated: '2020-01-02T03:04:05.000Z'\nupdated: '{UPDATED}'\n---\n"
    # a.md links z.md, written after it: its file is written a second time for that link.
    (src / "a.md").write_text(f"{front}see [z](z.md)\n")
    (src / "z.md").write_text(f"{front}zed\n")
    vault = tmp_path / "vault"
    vault.mkdir()
    v = ("--vault", str(vault))
    cli.ok("import", str(src), *v)
    for title in ("a", "z"):
        note = cli.json("show", title, *v)
        # (The import ran now, decades after UPDATED: the file's own time cannot pass by chance.)
        assert note["updated_time"] == to_ms(UPDATED), (title, note["updated_time"])
        (file,) = vault.rglob(f"{title}.md")
        assert os.stat(file).st_mtime_ns // 1_000_000 == to_ms(UPDATED)
    assert "(z.md)" in (vault / "src" / "a.md").read_text()
    out = tmp_path / "out"
    cli.ok("export", str(out), *v)
    assert f"updated: '{UPDATED}'" in next(out.rglob("a.md")).read_text()
    assert "0 updated, 2 unchanged" in cli.ok("import", str(src), *v).out

"""Names an export gives notebooks' folders and notes' files that share a folder.

Before: a notebook titled "x.md" beside a note titled "x" got the folder "x.md" and the note the
file "x.md": the export failed as a whole ("cannot write the export to DIR: Is a directory",
exit 2), so none of the notes could be exported.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.cli import Cli


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(tmp_path / "profile", capsys)


def test_a_notebook_named_like_a_notes_file_beside_it_gets_its_own_name(
    cli: Cli, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli.ok("notebook", "create", "Top")
    cli.ok("notebook", "create", "x.md")
    cli.ok("notebook", "move", "x.md", "--parent", "Top")
    cli.ok("create", "--notebook", "Top", "x", "--body", "the note x")
    cli.ok("create", "--notebook", "x.md", "inner", "--body", "in the notebook x.md")
    out = tmp_path / "out"
    cli.ok("export", str(out))
    assert (out / "Top" / "x.md" / "inner.md").is_file()
    (note,) = [p for p in (out / "Top").glob("*.md") if p.is_file()]
    assert note.read_text().endswith("the note x")
    fresh = Cli(tmp_path / "fresh", capsys)
    fresh.ok("import", str(out))
    assert fresh.json("show", "x")["notebook"] == "Top"
    assert fresh.json("show", "inner")["notebook"] == "Top/x.md"

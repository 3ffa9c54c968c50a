"""A note's file renamed or moved outside noted (``git mv`` in a Markdown folder) is said to be so
in ``noted changes`` and in the app's Changes view, from → to. Not vacuous: before, a rename that
left the note's title (its first-line heading) and its notebook as they were read "saved with no
change to its text", and a move to another folder under another name said where to, never which
file it was. A note noted itself moves or retitles (its file renamed to follow) says only that."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.integration.ui_support import until
from tests.support.cli import Cli
from tests.support.vaults import committed, git

from noted.profile import Profile
from noted.services import Services
from noted.ui.app import NotedApp
from noted.ui.screens.changes import ChangesScreen
from noted.ui.widgets.note_list import NoteList

FILES = {"Work/a.md": "# Alpha\n\nalpha text here\n", "Work/c.md": "# Gamma\n\ngamma text\n"}


def _renamed(vault: Path) -> None:
    (vault / "Home").mkdir()
    git(vault, "mv", "Work/a.md", "Work/b.md")
    git(vault, "mv", "Work/c.md", "Home/d.md")


def _opened(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Cli, tuple[str, str]]:
    """The folder of ``FILES`` in git, and the CLI on it, which has read it once."""
    vault = tmp_path / "notes"
    committed(vault, FILES)
    cli, v = Cli(tmp_path / "profile", capsys), ("--vault", str(vault))
    cli.ok("notes", *v)
    return vault, cli, v


def test_noted_changes_says_which_file_was_renamed_or_moved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault, cli, v = _opened(tmp_path, capsys)
    _renamed(vault)

    shown = {e["title"]: e["summary"] for e in cli.json("changes", *v) if e["kind"] == "note"}
    assert shown == {
        "Alpha": 'file renamed from "Work/a.md" to "Work/b.md"',
        "Gamma": 'moved to "Home"; file renamed from "Work/c.md" to "Home/d.md"',
    }
    listed = cli.ok("changes", *v).out
    assert "saved with no change to its text" not in listed
    assert 'file renamed from "Work/a.md" to "Work/b.md"' in listed


def test_a_file_renamed_back_leaves_no_rename_to_tell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault, cli, v = _opened(tmp_path, capsys)
    git(vault, "mv", "Work/a.md", "Work/b.md")
    cli.ok("notes", *v)  # followed: renamed
    git(vault, "mv", "Work/b.md", "Work/a.md")

    (entry,) = [e for e in cli.json("changes", *v) if e["kind"] == "note"]
    assert "file_from" not in entry["detail"] and "renamed" not in entry["summary"]


async def test_the_changes_view_says_which_file_was_renamed(tmp_path: Path) -> None:
    vault = tmp_path / "notes"
    committed(vault, FILES)
    services = Services.open(Profile(tmp_path / "profile").ensure(), vault=str(vault))
    try:
        services.review.refresh()
        _renamed(vault)
        services.store.follower.scan()  # type: ignore[attr-defined]  # as the watcher would
        app = NotedApp(services, background=False)
        async with app.run_test(size=(120, 30)) as pilot:
            await until(pilot, lambda: bool(app.workspace.query(NoteList)))
            await until(pilot, lambda: len(app.workspace.query_one(NoteList).rows) == 2)
            await pilot.press("f3")
            await until(pilot, lambda: isinstance(app.screen, ChangesScreen) and bool(app.screen.rows))
            screen = app.screen
            assert isinstance(screen, ChangesScreen)
            summaries = [row.summary for row in screen.rows]
            assert 'file renamed from "Work/a.md" to "Work/b.md"' in summaries
            assert 'moved to "Home"; file renamed from "Work/c.md" to "Home/d.md"' in summaries
    finally:
        services.close()

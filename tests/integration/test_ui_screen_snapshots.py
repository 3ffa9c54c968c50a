"""Snapshots of the search and settings screens at 80×24 and 120×40, in the top-level ``snapshots/``.

Same set-up as ``test_ui_snapshots``: a fixed profile in UTC, no background work, no cursor blink.
Update after a deliberate change with ``--snapshot-update`` and look at the report first.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_textual_snapshot
from tests.integration.ui_support import Fixture, build_profile, open_services, ready, until, use_utc
from textual.pilot import Pilot
from textual.widgets import Static

from noted.models import NotePatch, assistant_actor, mcp_actor
from noted.services import Services
from noted.ui.app import NotedApp
from noted.ui.messages import OpenNote
from noted.ui.screens import changes as changes_screen
from noted.ui.screens import history as history_screen
from noted.ui.screens.changes import ChangesScreen
from noted.ui.screens.history import HistoryScreen
from noted.ui.screens.search import SearchScreen
from noted.ui.screens.settings import SettingsScreen
from noted.ui.widgets.note_viewer import NoteScroll, NoteViewer

SNAPSHOTS = Path(__file__).resolve().parents[2] / "snapshots"
SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])


class _TopLevelSnapshots(pytest_textual_snapshot.SVGImageExtension):  # type: ignore[misc]
    @classmethod
    def dirname(cls, *, test_location: Any) -> str:
        return str(SNAPSHOTS / Path(test_location.filepath).stem)


@pytest.fixture(autouse=True)
def _snapshots_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pytest_textual_snapshot, "SVGImageExtension", _TopLevelSnapshots)


@pytest.fixture
def services(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Services]:
    monkeypatch.setenv("TZ", "UTC")
    use_utc()
    fixture: Fixture = build_profile(tmp_path / "profile")
    # A fixed profile path: the settings screen shows where config.toml is.
    services = open_services(fixture.root, search_defaultmode="keyword")
    yield services
    services.close()


async def _ready(pilot: Pilot[Any]) -> None:
    await ready(pilot)
    await pilot.pause()


@SIZES
def test_search(snap_compare: Any, services: Services, size: tuple[int, int]) -> None:
    """Search with the notes of the Work notebook (ids in snippets would change every run), the first highlighted."""

    async def run(pilot: Pilot[Any]) -> None:
        await _ready(pilot)
        await pilot.press("ctrl+f")
        await until(pilot, lambda: isinstance(pilot.app.screen, SearchScreen))
        screen = pilot.app.screen
        assert isinstance(screen, SearchScreen)
        await pilot.press(*"notebook:Work")
        await until(pilot, lambda: screen._timer is None and screen.answered == screen._asked > 0)
        await pilot.pause()

    assert snap_compare(NotedApp(services, background=False), terminal_size=size, run_before=run)


@SIZES
def test_settings(snap_compare: Any, services: Services, size: tuple[int, int]) -> None:
    """The settings screen as it opens, Tab pressed once: the Assistant section first."""

    async def run(pilot: Pilot[Any]) -> None:
        await _ready(pilot)
        await pilot.press("f2")
        await until(pilot, lambda: isinstance(pilot.app.screen, SettingsScreen))
        # The filter takes the focus as the screen mounts (AUTO_FOCUS); wait for it, so the
        # snapshot shows its cursor on a slow machine too.
        finder = pilot.app.screen.query_one("#settings-filter")
        await until(pilot, lambda: finder.has_focus)
        # Tab goes on to the first setting: the shot then holds no text cursor, whose showing
        # depends on how the focus reached the filter (typed-ahead keys, the mount) by a race.
        await pilot.press("tab")
        await until(pilot, lambda: pilot.app.focused is not None and not finder.has_focus)
        await pilot.pause()

    assert snap_compare(NotedApp(services, background=False), terminal_size=size, run_before=run)


@SIZES
def test_changes(
    snap_compare: Any, services: Services, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    """The Changes view: two notes an outside AI app changed, the first change's diff open in the
    list's place, the view's own keys below (its frame ends above the status line)."""
    monkeypatch.setattr(changes_screen, "when_of", lambda ms: "Dec 01 09:30")  # the same shot every run
    store = services.store
    services.review.refresh()
    # Notes whose text names no id (ids change every run).
    notes = [n.id for n in store.list_notes() if ":/" not in store.get_note(n.id).body]
    ideas, other = notes[0], notes[1]
    store.update_note(ideas, NotePatch(append="\nA model's idea."), actor=mcp_actor("claude"))
    store.tag_note(other, ["shopping"], actor=mcp_actor("claude"))

    async def run(pilot: Pilot[Any]) -> None:
        await _ready(pilot)
        await pilot.press("f3")
        await until(
            pilot, lambda: isinstance(pilot.app.screen, ChangesScreen) and bool(pilot.app.screen.rows)
        )
        await pilot.press("down", "enter")
        diff = pilot.app.screen.query_one("#changes-diff", Static)
        await until(pilot, lambda: "A model's idea." in str(diff.render()))
        await pilot.pause()

    assert snap_compare(NotedApp(services, background=False), terminal_size=size, run_before=run)


def test_history(snap_compare: Any, services: Services, monkeypatch: pytest.MonkeyPatch) -> None:
    """A note's history at 80×24: three revisions by three actors, the middle one's diff open."""
    monkeypatch.setattr(history_screen, "when_of", lambda ms: "Dec 01 09:30")  # the same shot every run
    store = services.store
    meeting = next(n.id for n in store.list_notes() if n.title == "Meeting notes")
    store.update_note(meeting, NotePatch(append="A line the bot added.\n"), actor=mcp_actor("claude"))
    store.update_note(meeting, NotePatch(append="A line the assistant added.\n"), actor=assistant_actor("c1"))

    async def run(pilot: Pilot[Any]) -> None:
        await _ready(pilot)
        app = pilot.app
        assert isinstance(app, NotedApp)
        viewer = app.workspace.query_one(NoteViewer)
        app.post_message(OpenNote(meeting))
        await until(pilot, lambda: viewer.view is not None and viewer.view.note.id == meeting)
        app.workspace.query_one(NoteScroll).focus()
        await pilot.press("h")
        await until(pilot, lambda: isinstance(app.screen, HistoryScreen) and app.screen.loads > 0)
        await pilot.press("j", "enter")
        diff = app.screen.query_one("#history-diff", Static)
        await until(pilot, lambda: "A line the bot added." in str(diff.render()))
        await pilot.pause()

    assert snap_compare(NotedApp(services, background=False), terminal_size=(80, 24), run_before=run)

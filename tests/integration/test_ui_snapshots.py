"""Snapshots of each screen of the terminal app at 80×24 and 120×40, kept in the top-level ``snapshots/``.

The profile is built here with fixed times and shown in UTC; the app runs without its background
work (no indexer, no follower) and with no clock anywhere, so every run draws the same pixels.
Update after a deliberate change with ``pytest tests/integration/test_ui_snapshots.py --snapshot-update``
and look at the report before committing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_textual_snapshot
from tests.integration.ui_support import Fixture, open_services, ready, until
from textual.pilot import Pilot
from textual.widgets import OptionList

from noted.models import ACTOR_USER
from noted.services import Services
from noted.ui.app import NotedApp
from noted.ui.dialogs.confirm import Confirm
from noted.ui.dialogs.picker import NotebookPicker
from noted.ui.messages import OpenNote
from noted.ui.widgets.note_editor import NoteEditor
from noted.ui.widgets.note_list import NoteList
from noted.ui.widgets.note_viewer import NoteViewer
from noted.ui.widgets.notebook_tree import NotebookTree
from noted.ui.widgets.outline import OutlineList

SNAPSHOTS = Path(__file__).resolve().parents[2] / "snapshots"
SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])


class _TopLevelSnapshots(pytest_textual_snapshot.SVGImageExtension):  # type: ignore[misc]
    """Keeps the SVGs in ``snapshots/<test module>/`` rather than beside the test file."""

    @classmethod
    def dirname(cls, *, test_location: Any) -> str:
        return str(SNAPSHOTS / Path(test_location.filepath).stem)


@pytest.fixture(autouse=True)
def _snapshots_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    # snap_compare picks its extension class from the plugin module when it runs.
    monkeypatch.setattr(pytest_textual_snapshot, "SVGImageExtension", _TopLevelSnapshots)


@pytest.fixture
def services(fixture: Fixture) -> Iterator[Services]:
    services = open_services(fixture.root)
    yield services
    services.close()


def _app(services: Services) -> NotedApp:
    return NotedApp(services, background=False)


async def _ready(pilot: Pilot[Any]) -> None:
    await ready(pilot)
    await pilot.pause()


def _then(*steps: Callable[[Pilot[Any]], Any]) -> Callable[[Pilot[Any]], Any]:
    async def run(pilot: Pilot[Any]) -> None:
        await _ready(pilot)
        for step in steps:
            result = step(pilot)
            if result is not None:
                await result
        await pilot.pause()

    return run


@SIZES
def test_workspace(snap_compare: Any, services: Services, size: tuple[int, int]) -> None:
    """The tree and the list (and, when wide enough, the first note)."""
    assert snap_compare(_app(services), terminal_size=size, run_before=_then())


@SIZES
def test_reader_at_a_section(
    snap_compare: Any, services: Services, fixture: Fixture, size: tuple[int, int]
) -> None:
    """A note opened at section 1.2 from outside (as search does): the reader and its outline."""

    async def open_at_section(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, NotedApp)
        app.post_message(OpenNote(fixture.release, "1.2"))
        viewer = app.workspace.query_one(NoteViewer)
        await until(pilot, lambda: viewer.view is not None and viewer.query_one("#note-scroll").scroll_y > 0)
        outline = viewer.query_one(OutlineList)
        await until(pilot, lambda: getattr(outline.highlighted_option, "id", None) == "s1.2")

    assert snap_compare(_app(services), terminal_size=size, run_before=_then(open_at_section))


@SIZES
def test_zoomed_reader(
    snap_compare: Any, services: Services, fixture: Fixture, size: tuple[int, int]
) -> None:
    """`+` on the open note: the reader takes the whole width (issue 39: ~32 columns at 120)."""

    async def zoom(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, NotedApp)
        app.post_message(OpenNote(fixture.release))
        viewer = app.workspace.query_one(NoteViewer)
        await until(pilot, lambda: viewer.view is not None)
        viewer.query_one("#note-scroll").focus()
        await pilot.press("plus")
        reader = app.workspace.query_one("#reader")
        await until(pilot, lambda: reader.region.width == app.size.width)

    assert snap_compare(_app(services), terminal_size=size, run_before=_then(zoom))


@SIZES
def test_editor(snap_compare: Any, services: Services, size: tuple[int, int]) -> None:
    """Editing the first note with one unsaved change (the ● marker)."""

    async def edit(pilot: Pilot[Any]) -> None:
        await pilot.press("g", "e")
        app = pilot.app
        assert isinstance(app, NotedApp)
        editor = app.workspace.query_one(NoteEditor)
        await until(pilot, lambda: editor.note is not None and editor.has_focus_within)
        await pilot.press(*"Draft: ")

    assert snap_compare(_app(services), terminal_size=size, run_before=_then(edit))


@SIZES
def test_move_picker(snap_compare: Any, services: Services, size: tuple[int, int]) -> None:
    """Two notes marked, then "move to…": the notebook picker over the workspace."""

    async def pick(pilot: Pilot[Any]) -> None:
        await pilot.press("g", "space", "space", "m")
        await until(pilot, lambda: isinstance(pilot.app.screen, NotebookPicker))
        await until(pilot, lambda: pilot.app.screen.query_one(OptionList).option_count == 3)

    assert snap_compare(_app(services), terminal_size=size, run_before=_then(pick))


@SIZES
def test_empty_trash_question(
    snap_compare: Any, services: Services, fixture: Fixture, size: tuple[int, int]
) -> None:
    """Home (two notes) in the trash, then "Empty trash": what goes, with the harmless button focused."""

    async def ask(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, NotedApp)
        services.store.trash_folder(fixture.home, actor=ACTOR_USER)
        notes, tree = app.workspace.query_one(NoteList), app.workspace.query_one(NotebookTree)
        notes.refresh_notes()  # as the change follower would (it is off for snapshots)
        tree.reload()
        await until(pilot, lambda: len(notes.rows) == 2 and "Home" not in str(tree.root.children[1].label))
        app.workspace.action_empty_trash()
        await until(pilot, lambda: isinstance(app.screen, Confirm) and app.focused is not None)

    assert snap_compare(_app(services), terminal_size=size, run_before=_then(ask))


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (160, 50)], ids=["80x24", "120x40", "160x50"])
def test_chat_beside_a_note(
    snap_compare: Any, services: Services, fixture: Fixture, size: tuple[int, int]
) -> None:
    """Ctrl+T with a note open: the note keeps a readable width (the tree and list step aside)."""

    async def chat(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, NotedApp)
        await pilot.press("enter")  # read the first note, then open the assistant beside it
        await pilot.press("ctrl+t")
        await until(pilot, lambda: app.workspace.chat is not None and app.workspace.chat.has_focus_within)

    assert snap_compare(_app(services), terminal_size=size, run_before=_then(chat))

"""Snapshots of ``/`` in the note list (a filter being typed) and in the reader (a find kept, ``n``
pressed), at 80×24 and 120×40, in the top-level ``snapshots/``; the set-up of ``test_ui_snapshots``."""

from __future__ import annotations

from typing import Any

from tests.integration import test_ui_snapshots as shots
from tests.integration.ui_support import Fixture, until
from textual.pilot import Pilot

from noted.services import Services
from noted.ui.app import NotedApp
from noted.ui.messages import OpenNote
from noted.ui.widgets.note_list import NoteList
from noted.ui.widgets.note_viewer import NoteScroll, NoteViewer

services = shots.services
_snapshots_folder = shots._snapshots_folder


@shots.SIZES
def test_filtered_list(snap_compare: Any, services: Services, size: tuple[int, int]) -> None:
    """`/` then `o` in the list: two of the four notes, the title saying so, the field at the foot."""

    async def filter_list(pilot: Pilot[Any]) -> None:
        notes = pilot.app.query_one(NoteList)
        await pilot.press("slash", "o")
        await until(pilot, lambda: len(notes.rows) == 2 and "2 of 4" in str(notes.border_title))
        # Past the cursor's half-second blink: a loaded run caught the field's cursor off.
        await pilot.pause(0.6)

    assert snap_compare(shots._app(services), terminal_size=size, run_before=shots._then(filter_list))


@shots.SIZES
def test_find_in_the_note(
    snap_compare: Any, services: Services, fixture: Fixture, size: tuple[int, int]
) -> None:
    """Release plan, `/` `week`, Enter, `n`: the second of its matches, highlighted, the count under the title."""

    async def find(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, NotedApp)
        app.post_message(OpenNote(fixture.release))
        viewer = app.workspace.query_one(NoteViewer)
        await until(pilot, lambda: viewer.view is not None)
        page = viewer.query_one(NoteScroll)
        page.focus()
        await pilot.press("slash", *"week", "enter", "n")
        await until(pilot, lambda: app.focused is page and page.find is not None and page.find.current == 1)

    assert snap_compare(shots._app(services), terminal_size=size, run_before=shots._then(find))

"""A picker says what its keys do at every size: its hint stays inside the box.

At 80×24 the Move dialog's list of 20 notebooks took every row the box had, pushing the hint
(``↑↓ to choose · Enter to move · Esc to cancel``) out of it; the box cut it off. At 120×40 it showed.
"""

from __future__ import annotations

import pytest
from tests.integration.ui_support import Fixture, open_services, ready, until
from textual.widgets import Label, OptionList

from noted.models import ACTOR_IMPORT
from noted.ui.app import NotedApp
from noted.ui.dialogs.picker import NotebookPicker
from noted.ui.widgets.note_list import NoteList


@pytest.mark.parametrize("size", [(80, 24), (60, 20), (120, 40)], ids=["80x24", "60x20", "120x40"])
async def test_the_move_dialog_keeps_its_hint_in_the_box(fixture: Fixture, size: tuple[int, int]) -> None:
    services = open_services(fixture.root)
    for n in range(20):  # more notebooks than the list shows at once
        services.store.create_folder(f"Shelf {n:02}", actor=ACTOR_IMPORT)
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=size) as pilot:
            await ready(pilot)
            app.workspace.query_one(NoteList).focus()
            await pilot.press("m")
            await until(pilot, lambda: isinstance(app.screen, NotebookPicker))
            picker = app.screen
            await until(pilot, lambda: picker.query_one(OptionList).option_count > 20)
            await pilot.pause()
            box = picker.query_one(".dialog")
            hint = picker.query_one(".dialog--hint", Label)
            # Not vacuous: the list holds more notebooks than rows left, and it still shows some.
            assert picker.query_one(OptionList).region.height >= 3
            assert hint.region.height > 0 and box.content_region.contains_region(hint.region), (
                hint.region,
                box.content_region,
            )
    finally:
        services.close()

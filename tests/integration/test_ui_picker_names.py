"""Two notebooks of the same name at the same place are told apart where one is chosen by name.

The Move dialog listed both as ``Twin``: a person could not know which one a note would go to."""

from __future__ import annotations

from tests.integration.ui_support import Fixture, open_services, ready, until
from textual.widgets import OptionList

from noted.models import ACTOR_IMPORT
from noted.ui.app import NotedApp
from noted.ui.dialogs.picker import NotebookPicker
from noted.ui.widgets.note_list import NoteList


async def test_the_move_dialog_tells_two_notebooks_of_one_name_apart(fixture: Fixture) -> None:
    services = open_services(fixture.root)
    first = services.store.create_folder("Twin", actor=ACTOR_IMPORT)
    second = services.store.create_folder("Twin", actor=ACTOR_IMPORT)
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await ready(pilot)
            app.workspace.query_one(NoteList).focus()
            await pilot.press("m")
            await until(pilot, lambda: isinstance(app.screen, NotebookPicker))
            options = app.screen.query_one(OptionList)
            await until(pilot, lambda: options.option_count > 2)
            shown = {str(options.get_option_at_index(i).prompt) for i in range(options.option_count)}
            twins = sorted(label for label in shown if label.startswith("Twin"))
            # Not vacuous: both are listed, each named with the start of its own id.
            assert len(twins) == 2 and twins[0] != twins[1], twins
            assert any(first.id[:8] in t for t in twins) and any(second.id[:8] in t for t in twins)
            assert "Work" in shown  # a name no other notebook has stays as it was
    finally:
        services.close()

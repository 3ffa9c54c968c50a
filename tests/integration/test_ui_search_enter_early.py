"""Enter typed before the answer to the query came opens that query's first result.

Enter opened whatever the result list held: the answer to the words typed before the last keys
(still waiting out the debounce), or nothing at all on a fresh screen, where Enter was lost and
the screen stayed open. Typed fast, ``freeze`` then ``⌫⌫⌫⌫⌫⌫milk⏎`` opened the Release plan.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.integration.ui_support import Fixture, open_services, until
from textual.pilot import Pilot

from noted.services import Services
from noted.ui.app import NotedApp
from noted.ui.screens.search import SearchScreen
from noted.ui.widgets.note_viewer import NoteViewer


@pytest.fixture
def services(fixture: Fixture) -> Iterator[Services]:
    services = open_services(fixture.root, search_defaultmode="keyword")
    yield services
    services.close()


async def _search(app: NotedApp, pilot: Pilot[None]) -> SearchScreen:
    await until(pilot, lambda: len(app.screen_stack) == 1 and app.screen.is_mounted)
    await pilot.press("ctrl+f")
    await until(pilot, lambda: isinstance(app.screen, SearchScreen))
    assert isinstance(app.screen, SearchScreen)
    return app.screen


async def test_enter_after_the_last_keys_opens_the_answer_to_them(
    services: Services, fixture: Fixture
) -> None:
    app = NotedApp(services, background=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _search(app, pilot)
        await pilot.press(*"freeze")
        await until(pilot, lambda: [row.note_id for row in screen.rows] == [fixture.release])
        await pilot.press(*["backspace"] * 6, *"milk", "enter")  # before "milk" is answered
        viewer = app.workspace.query_one(NoteViewer)
        # Not vacuous: the Release plan, the answer on screen when Enter came, was opened.
        await until(pilot, lambda: app.screen is app.workspace and viewer.note_id is not None)
        assert viewer.note_id == fixture.groceries

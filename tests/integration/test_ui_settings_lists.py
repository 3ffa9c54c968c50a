"""A setting's list of choices opens where it can be read whole, at any size (Pilot, real profile).

At 60×20 the theme's list opened over its own field and the key bar: Textual moves a list that
would run off the screen up until it fits, onto the field it belongs to.
"""

from __future__ import annotations

import pytest
from tests.integration.ui_support import Fixture, open_services, ready, until
from textual.pilot import Pilot
from textual.widgets import OptionList, Select

from noted.ui.app import NotedApp
from noted.ui.screens.settings import SettingsScreen
from noted.ui.screens.settings_nav import CHOICES_ROWS
from noted.ui.screens.settings_sections import widget_id
from noted.ui.widgets.key_bar import KeyBar


async def open_choices(pilot: Pilot[None], key: str, typed: str = "") -> tuple[Select[str], OptionList]:
    """Open the settings and ``key``'s list of choices: the field reached through the filter with
    ``typed`` and Enter, or focused as Tab would."""
    app = pilot.app
    await ready(pilot)
    await pilot.press("f2")
    await until(pilot, lambda: isinstance(app.screen, SettingsScreen) and app.screen.built)
    select: Select[str] = app.screen.query_one(f"#{widget_id(key)}", Select)
    if typed:
        await pilot.press(*typed, "enter")
    else:
        select.focus()
    await until(pilot, lambda: app.focused is select)
    await pilot.press("enter")
    overlay = select.query_one("SelectOverlay", OptionList)
    await until(pilot, lambda: app.focused is overlay)
    return select, overlay


@pytest.mark.parametrize("key", ["ui.theme", "search.relevance"])
@pytest.mark.parametrize("size", [(60, 20), (80, 24), (120, 40)], ids=["60x20", "80x24", "120x40"])
async def test_a_list_of_choices_opens_below_its_field_and_above_the_key_bar(
    fixture: Fixture, size: tuple[int, int], key: str
) -> None:
    services = open_services(fixture.root)
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=size) as pilot:
            select, overlay = await open_choices(pilot, key)
            screen = app.screen
            current, bar = select.query_one("SelectCurrent"), screen.query_one(KeyBar).region
            # Fitted after the frames that scroll the page to the field (under load, a few frames).
            await until(
                pilot,
                lambda: (
                    current.region.bottom <= overlay.region.y
                    and overlay.region.bottom <= bar.y
                    and overlay.region.height > 3
                ),
            )
            field, below = current.region, overlay.region
            # Not vacuous: the list is on screen, with more than one choice in view.
            assert below.height > 3 and below.y >= 0
            assert below.y >= field.bottom, (below, field)  # under its field, not over it
            assert below.bottom <= bar.y, (below, bar)  # the key bar still reads whole
    finally:
        services.close()


async def test_tab_from_the_filter_goes_to_the_first_setting_while_the_rest_is_being_laid_out(
    fixture: Fixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual orders Tab by place on the screen, and a section mounted but not laid out yet sits
    at the top: Tab typed then went from the filter to the Tools section's first box (seen in the
    settings snapshot on a busy machine)."""
    build_rest = SettingsScreen._build_rest
    monkeypatch.setattr(SettingsScreen, "_build_rest", lambda self: None)  # held back, to be certain
    services = open_services(fixture.root)
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await ready(pilot)
            await pilot.press("f2")
            await until(pilot, lambda: isinstance(app.screen, SettingsScreen))
            screen = app.screen
            assert isinstance(screen, SettingsScreen)
            finder = screen.query_one("#settings-filter")
            await until(pilot, lambda: finder.has_focus)
            monkeypatch.setattr(SettingsScreen, "_build_rest", build_rest)
            screen._build_rest()  # the rest mounted: Tab comes before it is laid out
            await pilot.press("tab")
            await until(pilot, lambda: app.focused is not None and not finder.has_focus)
            first = next(w for w in screen.query(".section").first().query("*") if w.focusable)
            assert app.focused is first, (app.focused, first)
    finally:
        services.close()


@pytest.mark.parametrize("size", [(60, 20), (80, 24)], ids=["60x20", "80x24"])
async def test_a_list_of_choices_found_by_the_filter_takes_the_room_there_is(
    fixture: Fixture, size: tuple[int, int]
) -> None:
    """Found by the filter, the theme's is the one setting shown: the page had nothing to scroll, so
    the list kept the few rows under its field (4 choices at 60x20) with the page's top left empty."""
    services = open_services(fixture.root)
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=size) as pilot:
            select, overlay = await open_choices(pilot, "ui.theme", "theme")
            screen = app.screen
            current, page = select.query_one("SelectCurrent"), screen.query_one("#settings")
            bar = screen.query_one(KeyBar).region
            wanted = min(overlay.option_count + 2, CHOICES_ROWS)
            # The room there is: the page from its top, less the field kept in view above the list.
            room = min(wanted, bar.y - page.region.y - current.region.height)
            assert room > 6  # not vacuous: more than the four choices it showed
            await until(
                pilot, lambda: overlay.region.height == room and current.region.bottom <= overlay.region.y
            )
            assert current.region.y >= page.region.y and overlay.region.bottom <= bar.y
    finally:
        services.close()

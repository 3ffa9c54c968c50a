"""Notices never hide the field being typed in (Pilot, real profile).

Textual stacks its notices at the bottom right, where the chat's message box is: at 120×40 a notice
covered the box for its five seconds while the person typed, at 60×15 the whole box.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from tests.integration.ui_support import Fixture, open_services, ready, until
from textual.geometry import Offset
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input

from noted.ui.app import NotedApp
from noted.ui.chat.views import ChatInput
from noted.ui.screens.search import SearchScreen
from noted.ui.screens.settings import SettingsScreen
from noted.ui.widgets.note_list import NoteList
from noted.ui.widgets.note_viewer import NoteScroll

LONG = "The index is being rebuilt after the model changed; search by meaning waits for it."


def _notices(app: NotedApp) -> int:
    return len(app.screen.query("Toast"))


def _covered(field: Widget) -> list[Offset]:
    """The cells of ``field`` where something not of it is drawn (the notices are on a layer above)."""
    screen = field.screen
    shown = screen.find_widget(field).visible_region  # a row half scrolled out: its rows in view
    cells = [Offset(x, y) for y in range(shown.y, shown.bottom) for x in range(shown.x, shown.right)]
    return [cell for cell in cells if field not in screen.get_widget_at(*cell)[0].ancestors_with_self]


@asynccontextmanager
async def on_list(
    fixture: Fixture, size: tuple[int, int]
) -> AsyncIterator[tuple[NotedApp, Pilot[None], NoteList]]:
    """The app on the sample profile with notices on, its note list focused."""
    services = open_services(fixture.root)
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=size, notifications=True) as pilot:
            await ready(pilot)
            note_list = app.workspace.query_one(NoteList)
            note_list.focus()
            await until(pilot, lambda: app.focused is note_list)
            yield app, pilot, note_list
    finally:
        services.close()


@pytest.mark.parametrize("size", [(120, 40), (60, 15)], ids=["120x40", "60x15"])
async def test_a_notice_leaves_the_chat_box_in_view(fixture: Fixture, size: tuple[int, int]) -> None:
    services = open_services(fixture.root, ai_enabled="true", ai_provider="fake")
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=size, notifications=True) as pilot:
            await ready(pilot)
            await pilot.press("ctrl+t")
            await until(pilot, lambda: isinstance(app.focused, ChatInput))
            box = app.focused
            assert isinstance(box, ChatInput)
            await pilot.press("h", "i")
            app.notify(LONG, title="Search")
            app.notify("Saved", timeout=4)
            await until(pilot, lambda: _notices(app) == 2)
            # Not vacuous: the notices are on screen, and before they sat on the box's rows.
            assert _covered(box) == []
            assert box.text == "hi"
    finally:
        services.close()


async def test_a_notice_leaves_the_search_field_in_view(fixture: Fixture) -> None:
    services = open_services(fixture.root)
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await ready(pilot)
            await pilot.press("ctrl+f")
            await until(
                pilot, lambda: isinstance(app.screen, SearchScreen) and isinstance(app.focused, Input)
            )
            field = app.focused
            assert isinstance(field, Widget)
            app.notify(LONG, timeout=30)  # (the default 5 s could run out under load)
            await until(pilot, lambda: _notices(app) == 1)
            assert _covered(field) == []  # a field at the top keeps them at the bottom
            assert app.screen.query_one("Toast").region.bottom > app.screen.size.height // 2
    finally:
        services.close()


async def test_a_notice_leaves_the_note_being_read_in_view(fixture: Fixture) -> None:
    """A notice sat on the bottom rows of the open note, over the text being read, for its five
    seconds. With the reader focused, notices go beside it (over the list), no wider than the
    room there; a focused list keeps them off the list in the same way."""
    services = open_services(fixture.root)
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            await ready(pilot)
            for pane in (NoteScroll, NoteList):
                app.notify("Saved", timeout=30)
                widget = app.workspace.query_one(pane)
                widget.focus()
                await until(pilot, lambda w=widget: app.focused is w)  # type: ignore[misc]
                app.notify(LONG, timeout=30)
                await until(pilot, lambda: _notices(app) >= 2)
                await pilot.pause()
                # Not vacuous: the notices are on screen, and before they sat on the reader's rows.
                assert _covered(widget) == [], pane
                app.clear_notifications()
                await until(pilot, lambda: _notices(app) == 0)
    finally:
        services.close()


@pytest.mark.parametrize(
    ("size", "tree"),
    [((120, 40), True), ((80, 24), True), ((60, 20), True), ((120, 40), False)],
    ids=["120x40", "80x24", "60x20", "120x40-no-tree"],
)
async def test_a_notice_leaves_the_list_and_its_note_in_view(
    fixture: Fixture, size: tuple[int, int], tree: bool
) -> None:
    """With the list focused, a triage notice ("Moved 2 notes to the trash…") went beside the list,
    over the reader, which shows the note under the list's cursor and is read with it (120×40);
    with the tree narrower than 30 columns (80×24, 60×20) it went over the list's bottom rows.
    Now it goes where nothing read is: over the tree or the note's outline."""
    async with on_list(fixture, size) as (app, pilot, note_list):
        if not tree:
            await pilot.press("ctrl+b")
            await until(pilot, lambda: not app.workspace.query_one("#tree").region.area)
        await pilot.press("space", "space", "d")  # the person's own notice, not one made up
        await until(pilot, lambda: _notices(app) == 1)
        await pilot.pause()
        read = [note_list, *([] if size[0] < 110 else [app.workspace.query_one(NoteScroll)])]
        # Not vacuous: every pane read is on screen, and before the notice sat on one of them.
        assert all(pane.region.area for pane in read)
        assert [type(pane).__name__ for pane in read if _covered(pane)] == []
        assert "trash" in str(app.screen.query_one("Toast").render())


@pytest.mark.parametrize("size", [(120, 40), (80, 24), (60, 20)], ids=["120x40", "80x24", "60x20"])
async def test_a_notice_covers_its_room_to_the_edge(fixture: Fixture, size: tuple[int, int]) -> None:
    """A notice stopped two columns short of its edge, a strip of the text under it showing at its
    right (Textual's notices rack keeps a hidden scrollbar's gutter): the list's or the outline's
    border beside a notice over the tree or the outline, the reader's text at the screen's edge."""
    services = open_services(fixture.root)
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=size, notifications=True) as pilot:
            await ready(pilot)
            for pane in (NoteList, NoteScroll):
                widget = app.workspace.query_one(pane)
                if not widget.region.area:  # narrow: the reader shows once a note opens
                    await pilot.press("enter")
                    await until(pilot, lambda w=widget: bool(w.region.area))  # type: ignore[misc]
                widget.focus()
                await until(pilot, lambda w=widget: app.focused is w)  # type: ignore[misc]
                app.notify(LONG, timeout=30)
                await until(pilot, lambda: _notices(app) == 1)
                await pilot.pause()
                toast = app.screen.query_one("Toast").region
                read = (widget if pane is NoteList else app.workspace.query_one("#reader")).region
                # Its edge: the screen's right, or the read pane's frame when it is on that side.
                edge = read.x if toast.right <= read.x else size[0]
                assert toast.right == edge, (pane.__name__, toast, read)
                app.clear_notifications()
                await until(pilot, lambda: _notices(app) == 0)
    finally:
        services.close()


@pytest.mark.parametrize(
    ("size", "keys"),
    [((60, 20), ("ctrl+b",)), ((120, 40), ("plus",)), ((80, 24), ("plus",))],
    ids=["60x20-no-tree", "120x40-zoomed", "80x24-zoomed"],
)
async def test_a_notice_beside_a_pane_filling_the_width_takes_the_key_bar_row(
    fixture: Fixture, size: tuple[int, int], keys: tuple[str, ...]
) -> None:
    """With the pane being read filling the width (the list with the tree hidden at 60 columns, or
    zoomed with ``+``), a notice had no room beside it and fell back to the bottom right, over the
    rows being read. Now it takes the key bar's row, and the status line's above it if it wraps.
    (A note zoomed keeps them over its outline.)"""
    async with on_list(fixture, size) as (app, pilot, note_list):
        await pilot.press(*keys)
        await until(pilot, lambda: note_list.region.width == size[0])
        await pilot.press("T")  # the person's own notice, not one made up
        await until(pilot, lambda: _notices(app) == 1)
        await pilot.pause()
        # Not vacuous: the list fills the screen's width, and before the notice sat on its rows.
        assert app.focused is note_list
        assert _covered(note_list) == []
        toast = app.screen.query_one("Toast").region
        assert toast.bottom == size[1]  # the key bar's row, the screen's last
        assert toast.height == 1


@pytest.mark.parametrize("size", [(120, 40), (80, 24), (60, 20)], ids=["120x40", "80x24", "60x20"])
async def test_a_notice_on_the_settings_keeps_to_their_foot(fixture: Fixture, size: tuple[int, int]) -> None:
    """A notice shown as the settings opened sat at the bottom right, over the settings below the
    filter; one shown with a switch focused low on the page sat beside the switch, over its own
    label and help. Now notices take the key bar's row, growing up no further than the focused
    setting (or the filter)."""
    services = open_services(fixture.root)
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=size, notifications=True) as pilot:
            await ready(pilot)
            await pilot.press("f2")
            app.notify(LONG, title="Settings", timeout=30)
            await until(pilot, lambda: isinstance(app.screen, SettingsScreen) and _notices(app) == 1)
            finder = app.screen.query_one("#settings-filter")
            await until(pilot, lambda: app.focused is finder)
            await pilot.pause()
            toast = app.screen.query_one("Toast")
            assert _covered(finder) == [] and toast.region.bottom == size[1], toast.region
            for _ in range(12):  # down the page until the focused setting is in its lower half
                await pilot.press("tab")
                await pilot.pause()
                focused = app.focused
                if focused is not None and focused.region.y > size[1] // 2:
                    break
            assert app.focused is not None
            row = next(w for w in app.focused.ancestors_with_self if w.has_class("setting"))
            assert isinstance(row, Widget)
            app.notify("Saved", timeout=30)
            await until(pilot, lambda: _notices(app) == 2)
            await pilot.pause()
            # Not vacuous: the row is on screen, low, and the notices sat over it before.
            assert row.region.area and row.region.y > size[1] // 2
            assert _covered(row) == [], (row.region, [t.region for t in app.screen.query("Toast")])
            assert all(t.region.bottom <= size[1] for t in app.screen.query("Toast"))
    finally:
        services.close()

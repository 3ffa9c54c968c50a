"""Snapshots of the conflict view at 80×24 and 120×40, in the top-level ``snapshots/``, and its
choices staying on a screen too small for everything it says.

Same set-up as ``test_ui_screen_snapshots`` (a fixed profile in UTC, no background work). The
view shows no ids or times, so it is the same on every run.
"""

from __future__ import annotations

from typing import Any

import pytest
from rich.cells import cell_len
from tests.integration import test_ui_screen_snapshots as screens
from tests.integration.ui_support import until
from textual.app import App
from textual.errors import NoWidget
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Button, Label

from noted.models import NotePatch
from noted.services import Services
from noted.ui.app import NotedApp
from noted.ui.dialogs.conflict import ConflictView
from noted.ui.dialogs.merge import MergeEditor

services = screens.services
_snapshots_folder = screens._snapshots_folder


async def _conflict(pilot: Pilot[Any], services: Services) -> ConflictView:
    """Release plan edited in the app while another process prepended a line; Ctrl+S."""
    await screens._ready(pilot)
    await pilot.press("g", "e")
    await pilot.press("ctrl+home", *"Mine. ")
    note = next(m for m in services.store.list_notes() if m.title == "Release plan")
    services.store.update_note(note.id, NotePatch(prepend="Changed meanwhile."), actor="mcp:test")
    await pilot.press("ctrl+s")
    await until(pilot, lambda: isinstance(pilot.app.screen, ConflictView))
    await pilot.pause()
    view = pilot.app.screen
    assert isinstance(view, ConflictView)
    return view


@screens.SIZES
def test_conflict_view(snap_compare: Any, services: Services, size: tuple[int, int]) -> None:
    """Release plan edited in the app while another process prepended a line; Ctrl+S."""

    async def run(pilot: Pilot[Any]) -> None:
        await _conflict(pilot, services)

    assert snap_compare(NotedApp(services, background=False), terminal_size=size, run_before=run)


def _in_sight(widget: Widget) -> Region:
    """The part of ``widget`` the screen shows (its region, clipped by the boxes it is in)."""
    try:
        return widget.screen.find_widget(widget).visible_region
    except NoWidget:
        return Region()


async def test_the_choices_stay_on_a_small_screen_and_the_diffs_give_way(services: Services) -> None:
    app: App[None] = NotedApp(services, background=False)
    async with app.run_test(size=(60, 15)) as pilot:
        view = await _conflict(pilot, services)
        buttons = list(view.query(Button))

        def whole(button: Button) -> bool:
            return button.region.area > 0 and _in_sight(button) == button.region

        # Not vacuous: at 60×15 the choices were laid out below the box (and the screen's foot),
        # under the title, the hint and the two diffs, and nothing scrolled them into view.
        await until(pilot, lambda: all(whole(b) for b in buttons[:3]))  # Back to editing: further right
        for side in view.query(".conflict--side"):  # each still shows a line of its diff, at least
            assert _in_sight(side).height >= 3, side
        await pilot.press("right", "right", "right")  # to Back to editing, which comes into sight
        await until(pilot, lambda: app.focused is buttons[3] and whole(buttons[3]))


async def test_left_and_right_stay_on_the_choices(services: Services) -> None:
    """Not vacuous: ``←`` on the first choice moved the focus to a side, which shows no focus, and
    Enter there did nothing."""
    app: App[None] = NotedApp(services, background=False)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _conflict(pilot, services)
        buttons = list(view.query(Button))
        assert app.focused is buttons[0]  # Keep both
        await pilot.press("left")
        assert app.focused is buttons[0]
        await pilot.press(*["right"] * (len(buttons) + 1))
        assert app.focused is buttons[-1]
        await pilot.press("left")
        assert app.focused is buttons[-2]


@pytest.mark.parametrize("size", [(120, 40), (60, 15)])
async def test_the_merge_editor_says_markers_remain_in_a_line_that_fits(
    services: Services, size: tuple[int, int]
) -> None:
    """Not vacuous: the message listed the four markers and was cut at 120 columns."""
    app: App[None] = NotedApp(services, background=False)
    async with app.run_test(size=size) as pilot:
        await screens._ready(pilot)
        text = "# Plan\n<<<<<<< the note now\nmine\n||||||| before\nold\n=======\ntheirs\n>>>>>>> p1\n"
        app.push_screen(MergeEditor("Merging p1 and the note now", text, 1))
        await until(pilot, lambda: isinstance(app.screen, MergeEditor))
        await pilot.press("ctrl+s")
        message = app.screen.query_one("#merge-message", Label)
        await until(pilot, lambda: "markers" in str(message.render()))
        await pilot.pause()
        said = str(message.render())
        assert isinstance(app.screen, MergeEditor)  # not saved
        seen = _in_sight(message)  # the label was wider than the box, its end out of sight
        assert seen.width == message.region.width and cell_len(said) <= seen.width * seen.height


async def test_at_60_by_15_the_explanation_and_every_label_are_whole(services: Services) -> None:
    """Not vacuous: at 60×15 the explanation was cut to one line and the fourth choice read
    "Back to edi" at the box's edge."""
    app: App[None] = NotedApp(services, background=False)
    async with app.run_test(size=(60, 15)) as pilot:
        view = await _conflict(pilot, services)
        hint = view.query_one(".conflict--hint", Label)
        said = str(hint.render())
        await until(pilot, lambda: _in_sight(hint) == hint.region)
        assert hint.region.height * hint.region.width >= cell_len(said)
        for button in view.query(Button):
            label = str(button.label)
            assert _in_sight(button) == button.region, label
            assert button.content_region.width >= cell_len(label), label
        for side in view.query(".conflict--side"):  # a line of each diff still in sight
            assert _in_sight(side).height >= 3, side

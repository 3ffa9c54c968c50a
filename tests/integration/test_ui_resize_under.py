"""A terminal narrowed while the settings cover the workspace: the workspace lays out for the new size.

The workspace chose its layout (the reader alone, or the tree and the list) in its resize handler,
which Textual runs before its own, the one that sets the breakpoint classes (``-narrow``…). Resized
once from 120 to 60 columns under the settings, it chose by the old ``-wide``; Ctrl+T then hid the
chat and showed the tree and the list while the focus went to the hidden reader, so `e` and the
letters after it edited a note the person could not see (tmux, 120×40 → 60×20).
"""

from __future__ import annotations

from tests.integration.ui_support import Fixture, open_services, ready, until
from textual.geometry import Region
from textual.widget import Widget

from noted.ui.app import NotedApp
from noted.ui.screens.settings import SettingsScreen
from noted.ui.widgets.note_viewer import NoteScroll


def _in_sight(app: NotedApp, widget: Widget | None) -> bool:
    """Displayed, with the whole of it inside the terminal."""
    if widget is None or not all(
        node.display for node in widget.ancestors_with_self if isinstance(node, Widget)
    ):
        return False
    region = widget.region
    return region.area > 0 and Region(0, 0, *app.size).contains_region(region)


async def test_the_chat_hidden_after_a_resize_under_the_settings_leaves_the_focus_in_sight(
    fixture: Fixture,
) -> None:
    services = open_services(fixture.root)
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await ready(pilot)
            await pilot.press("enter", "ctrl+t")  # read the note, the chat beside it
            await until(pilot, lambda: app.workspace.chat is not None and app.workspace.chat.has_focus_within)
            await pilot.press("f2")
            await until(pilot, lambda: isinstance(app.screen, SettingsScreen))
            await pilot.resize_terminal(60, 20)
            await pilot.pause()
            await pilot.press("escape")
            await until(pilot, lambda: app.screen is app.workspace)
            await pilot.press("ctrl+t")
            await until(pilot, lambda: isinstance(app.focused, NoteScroll))
            await pilot.pause()
            # Not vacuous: the focused reader was hidden (no region) while the tree and the list
            # filled the 60 columns, the layout chosen by the breakpoint of 120.
            assert app.workspace.has_class("-narrow")
            assert _in_sight(app, app.focused), app.focused.region if app.focused else None
    finally:
        services.close()

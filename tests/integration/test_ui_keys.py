"""Keys and focus in the whole app, on a real profile: keys typed while a pane or a screen opens,
the key bar, the key overlay, and copying.

Keys typed "fast" are posted to the app all at once (``post_message``), before it has run the
first: that is what a person typing ahead over SSH does, and what Pilot's ``press`` (which waits
for the app to be idle after each key) cannot show.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from tests.integration.ui_support import Fixture, open_services, ready, until
from textual import events
from textual.pilot import Pilot
from textual.widgets import Input, Label

from noted.services import Services
from noted.ui.app import NotedApp
from noted.ui.chat.views import ChatInput
from noted.ui.screens.search import SearchScreen
from noted.ui.screens.settings import SettingsScreen
from noted.ui.screens.settings_sections import widget_id
from noted.ui.widgets.note_list import NoteList
from noted.ui.widgets.notebook_tree import NotebookTree

SIZE = (120, 40)


@pytest.fixture
def services(fixture: Fixture) -> Iterator[Services]:
    services = open_services(fixture.root, ai_enabled="true", ai_provider="fake")
    yield services
    services.close()


def type_ahead(pilot: Pilot[None], *keys: str) -> None:
    """Post ``keys`` to the app at once, as keys arriving faster than the app handles them."""
    for key in keys:
        character = key if len(key) == 1 else None
        pilot.app.post_message(events.Key(key, character))


async def test_keys_typed_after_ctrl_t_go_to_the_chat(services: Services) -> None:
    app = NotedApp(services, background=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        notes = len(services.store.list_notes())
        type_ahead(pilot, "ctrl+t", "ctrl+n", *"hello")
        await until(pilot, lambda: isinstance(app.focused, ChatInput) and app.focused.value == "hello")
        await pilot.pause()
        # Before the fix ctrl+n, typed before the chat had focus, made a new note and "hello"
        # went into it.
        assert len(services.store.list_notes()) == notes
        assert isinstance(app.focused, ChatInput)


@pytest.mark.parametrize(("key", "kind"), [("f2", SettingsScreen), ("ctrl+f", SearchScreen)])
async def test_keys_typed_after_opening_a_screen_go_into_its_field(
    services: Services, key: str, kind: type[object]
) -> None:
    app = NotedApp(services, background=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        type_ahead(pilot, key, *"milk")
        await until(pilot, lambda: isinstance(app.screen, kind))
        screen = app.screen
        # Not vacuous: without holding, the letters went to the note list behind the screen (or
        # to the opening screen before its field had focus) and were lost.
        await until(pilot, lambda: isinstance(screen.focused, Input) and screen.focused.value == "milk")
        if isinstance(screen, SettingsScreen):  # the Selects of the sections built after the first
            await until(pilot, lambda: screen.built)  # frame fail in their mount if the test ends it


async def open_settings(pilot: Pilot[None]) -> SettingsScreen:
    """F2 on the ready app; the settings once their first field has focus."""
    app = pilot.app
    await ready(pilot)
    await pilot.press("f2")
    await until(pilot, lambda: isinstance(app.screen, SettingsScreen) and app.screen.focused is not None)
    assert isinstance(app.screen, SettingsScreen)
    screen = app.screen
    await until(pilot, lambda: screen.built)  # the sections below the first come after its first frame
    return screen


async def test_typing_in_the_settings_finds_the_mcp_switch_and_enter_goes_to_it(services: Services) -> None:
    app = NotedApp(services, background=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(pilot)
        await pilot.press(*"run the mcp", "enter")
        # Before: 48 Tabs from the first setting. Now the filter, then Enter on the first match.
        target = screen.query_one(f"#{widget_id('mcp.enabled')}")
        await until(pilot, lambda: screen.focused is target)
        shown = [w for w in screen.query(".setting") if w.display]
        assert 0 < len(shown) < len(screen.query(".setting"))


async def test_a_switch_says_on_or_off_in_words(services: Services) -> None:
    app = NotedApp(services, background=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(pilot)
        switch = screen.query_one(f"#{widget_id('ai.approveWrites')}")
        state = screen.query_one(f"#{widget_id('ai.approveWrites')}-state", Label)
        # Before, only the switch's shade told on from off (nothing with NO_COLOR).
        assert str(state.render()).strip() == "on"  # the default
        switch.focus()
        await pilot.press("space")
        await until(pilot, lambda: str(state.render()).strip() == "off")


async def test_enter_in_the_tree_goes_to_the_list_and_only_space_folds(services: Services) -> None:
    app = NotedApp(services, background=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        tree = app.workspace.query_one(NotebookTree)
        notes = app.workspace.query_one(NoteList)
        tree.focus()
        await pilot.press("j", "j")  # All notes, Home, Work (closed, Projects inside)
        work = tree.cursor_node
        assert work is not None and str(work.label).startswith("Work") and not work.is_expanded
        await pilot.press("enter")
        await until(pilot, lambda: app.focused is notes)
        # Not vacuous: Textual's Tree unfolds a notebook on Enter too (``auto_expand``), so Work
        # opened as the focus left, and Enter on an open one folded it.
        assert not work.is_expanded
        tree.focus()
        await pilot.press("space")
        await until(pilot, lambda: work.is_expanded)
        assert app.focused is tree
        await pilot.press("enter")
        await until(pilot, lambda: app.focused is notes)
        assert work.is_expanded
        # The Tags heading lists no notes: Enter there folds it, as nothing else would happen.
        tree.focus()
        await pilot.press("G")
        while tree.cursor_node is not None and not str(tree.cursor_node.label).startswith("Tags"):
            await pilot.press("k")
        tags = tree.cursor_node
        assert tags is not None and not tags.is_expanded
        await pilot.press("enter")
        await until(pilot, lambda: tags.is_expanded)
        assert app.focused is tree


async def test_tab_from_the_settings_filter_goes_straight_to_the_first_setting(services: Services) -> None:
    app = NotedApp(services, background=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_settings(pilot)
        assert isinstance(screen.focused, Input) and screen.focused.id == "settings-filter"
        # The first two settings that can be changed (ai.enabled, set by the environment here, cannot).
        controls = [row.query("Switch, Select, Input").first() for row in screen.query(".setting")]
        controls = [control for control in controls if not control.disabled][:2]
        await pilot.press("tab")
        # Not vacuous: the scrolling box around the settings took the first Tab and showed no focus,
        # so a person counting Tabs landed one setting short.
        await until(pilot, lambda: screen.focused is controls[0])
        await pilot.press("tab")
        await until(pilot, lambda: screen.focused is controls[1])
        assert not [widget for widget in screen.focus_chain if widget.id == "settings"]


async def test_the_palette_names_the_code_copy_key_of_a_message_as_remapped_and_logs_nothing(
    services: Services, caplog: pytest.LogCaptureFixture
) -> None:
    """Each palette keystroke logged "no key runs ChatPane.copy_code…", and the entry said "Y on a
    message" whatever ``ui.keymap.chat.message.copy.code`` held."""
    services.settings.set("ui.keymap.chat.message.copy.code", "ctrl+k")
    app = NotedApp(services, background=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+t")
        await until(pilot, lambda: isinstance(app.focused, ChatInput))
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="noted"):
            helps = {c.title: c.help for c in app.get_system_commands(app.screen)}
        assert helps["Chat: copy a code block…"].endswith("(^k on a message)")
        assert "Y on" not in helps["Chat: copy a code block…"]
        assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text

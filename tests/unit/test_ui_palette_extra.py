"""The command palette's "Toggle tool…" and "Switch theme…", and F1 on the search and settings screens.

Each test asserts on the setting in effect, the config file and what the app did with it (the
registry's offer, the theme in use).
"""

from __future__ import annotations

import importlib
import pkgutil
import tomllib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from tests.integration.ui_support import Fixture, open_services, ready, until
from textual.app import App
from textual.binding import Binding
from textual.command import CommandInput, CommandList, CommandPalette
from textual.dom import DOMNode
from textual.message import Message
from textual.notifications import Notify
from textual.pilot import Pilot
from textual.widgets import Checkbox, Markdown

import noted.ui
from noted.services import Services
from noted.ui.app import NotedApp
from noted.ui.commands import SwitchThemeProvider, ToggleToolProvider, tool_switches
from noted.ui.dialogs.keys import KeysOverlay
from noted.ui.screens.search import ResultList, SearchScreen
from noted.ui.screens.settings import SettingsScreen
from noted.ui.screens.settings_sections import widget_id

SIZE = (120, 40)


@pytest.fixture
def services(fixture: Fixture) -> Iterator[Services]:
    services = open_services(fixture.root, search_defaultmode="keyword")
    yield services
    services.close()


async def _ready(pilot: Pilot[Any]) -> None:
    await ready(pilot)


@pytest.fixture
async def pilot(services: Services) -> AsyncIterator[Pilot[Any]]:
    app = NotedApp(services, background=False)
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot)
        yield pilot


def _config(services: Services) -> dict[str, object]:
    path = services.settings.path
    return tomllib.loads(path.read_text()) if path.exists() else {}


async def _choose(pilot: Pilot[Any], query: str, starts: str) -> None:
    """In the open palette, type ``query`` and run the hit whose text starts with ``starts``."""
    await until(
        pilot,
        lambda: isinstance(pilot.app.screen, CommandPalette) and bool(pilot.app.screen.query(CommandInput)),
    )
    palette = pilot.app.screen
    palette.query_one(CommandInput).value = query
    hits = palette.query_one(CommandList)

    def index() -> int | None:
        for i, option in enumerate(hits.options):
            hit = getattr(option, "hit", None)
            if hit is not None and str(hit.text or hit.prompt).startswith(starts):
                return i
        return None

    await until(pilot, lambda: index() is not None)
    hits.highlighted = index()
    await pilot.press("enter")
    await until(pilot, lambda: not isinstance(pilot.app.screen, CommandPalette))


def _system_command(app: NotedApp, title: str) -> object:
    found = [c for c in app.get_system_commands(app.screen) if c.title == title]
    assert found, f"no {title!r} in the palette"
    return found[0].callback


async def test_toggle_tool_from_its_own_palette_and_from_the_main_one(
    pilot: Pilot[Any], services: Services
) -> None:
    app = pilot.app
    assert isinstance(app, NotedApp)
    tool = services.registry.get("delete_note")
    assert tool is not None and tool not in services.registry.offered()  # write tools start off
    command = _system_command(app, "Toggle tool…")
    command()  # type: ignore[operator]
    # Found by the tool's name as well as its label.
    await _choose(pilot, "delete_note", "Toggle tool: Delete a note · write · off")
    await until(pilot, lambda: tool in services.registry.offered())
    assert _config(services)["ai"]["tool"]["delete_note"]["enabled"] is True  # type: ignore[index]

    assert services.settings.tool_enabled("read_note")
    await pilot.press("ctrl+p")
    await _choose(pilot, "toggle read a note", "Toggle tool: Read a note · read · on")
    await until(pilot, lambda: not services.settings.tool_enabled("read_note"))
    assert _config(services)["ai"]["tool"]["read_note"]["enabled"] is False  # type: ignore[index]


async def test_typing_toggle_tool_puts_the_picker_first(pilot: Pilot[Any], services: Services) -> None:
    # Every switch matches "toggle tool" as well as the picker does; Enter must not flip one.
    switches = len(tool_switches(services))
    await pilot.press("ctrl+p")
    await until(pilot, lambda: bool(pilot.app.screen.query(CommandInput)))
    palette = pilot.app.screen
    palette.query_one(CommandInput).value = "toggle tool"
    hits = palette.query_one(CommandList)

    def texts() -> list[str]:
        return [str(hit.text or hit.prompt) for o in hits.options if (hit := getattr(o, "hit", None))]

    await until(pilot, lambda: len([t for t in texts() if t.startswith("Toggle tool")]) == switches + 1)
    assert texts()[0] == "Toggle tool…"
    await pilot.press("escape")


async def test_a_tool_set_by_the_environment_is_not_toggled(fixture: Fixture) -> None:
    services = open_services(fixture.root, ai_tool_read_note_enabled="false")
    seen: list[Message] = []
    try:
        app = NotedApp(services, background=False)
        async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
            await _ready(pilot)
            await pilot.press("ctrl+p")
            await _choose(pilot, "toggle read a note", "Toggle tool: Read a note · read · off")

            def told() -> bool:
                notices = [m.notification.message for m in seen if isinstance(m, Notify)]
                return any("set by NOTED_AI_TOOL_READ_NOTE_ENABLED" in text for text in notices)

            await until(pilot, told)
            assert "ai" not in _config(services)  # refused before any write: nothing in the file
    finally:
        services.close()


async def test_switching_the_theme_saves_it(pilot: Pilot[Any], services: Services) -> None:
    app = pilot.app
    assert isinstance(app, NotedApp)
    assert app.theme == "noted-dark"
    command = _system_command(app, "Theme")  # Textual's own entry, routed to the saved setting
    command()  # type: ignore[operator]
    await _choose(pilot, "noted-light", "Switch theme: noted-light")
    await until(pilot, lambda: app.theme == "noted-light")
    assert services.settings.resolve("ui.theme").value == "noted-light"
    assert _config(services)["ui"]["theme"] == "noted-light"  # type: ignore[index]

    await pilot.press("ctrl+p")  # and from the main palette, by name
    await _choose(pilot, "switch theme textual-light", "Switch theme: textual-light")
    await until(pilot, lambda: app.theme == "textual-light")
    assert _config(services)["ui"]["theme"] == "textual-light"  # type: ignore[index]


def test_the_app_wires_the_providers() -> None:
    """The palette offers the two providers, and Textual's "Theme" command saves the theme."""
    assert {ToggleToolProvider, SwitchThemeProvider} <= set(NotedApp.COMMANDS)
    assert NotedApp.action_change_theme is not App.action_change_theme


# F1 on the pushed screens --------------------------------------------------------------------------


def _help_text(pilot: Pilot[Any]) -> str:
    overlay = pilot.app.screen
    assert isinstance(overlay, KeysOverlay)
    return overlay.query_one("#pane-help", Markdown).source


async def _f1(pilot: Pilot[Any]) -> KeysOverlay:
    below = pilot.app.screen
    await pilot.press("f1")
    await until(pilot, lambda: isinstance(pilot.app.screen, KeysOverlay) and pilot.app.screen.is_mounted)
    assert isinstance(pilot.app.screen, KeysOverlay)
    overlay = pilot.app.screen
    await pilot.press("escape")
    await until(pilot, lambda: pilot.app.screen is below)
    return overlay


async def test_f1_explains_search(pilot: Pilot[Any]) -> None:
    await pilot.press("ctrl+f")
    await until(pilot, lambda: isinstance(pilot.app.screen, SearchScreen))
    overlay = await _f1(pilot)  # a modal screen stops the app's keys: the screen repeats F1
    assert "Ctrl+O" in overlay.help_text
    assert overlay.groups[0].title == "Search"  # the search box's keys first
    pilot.app.screen.query_one(ResultList).focus()
    overlay = await _f1(pilot)
    assert "Best match first" in overlay.help_text


async def test_f1_explains_settings_and_the_tools(pilot: Pilot[Any]) -> None:
    await pilot.press("f2")
    await until(pilot, lambda: isinstance(pilot.app.screen, SettingsScreen) and pilot.app.screen.is_mounted)
    screen = pilot.app.screen
    await until(pilot, lambda: bool(screen.query(f"#{widget_id('ai.tool.read_note.enabled')}")))
    screen.query_one(f"#{widget_id('ai.tool.read_note.enabled')}", Checkbox).focus()
    assert "read** tools only look" in (await _f1(pilot)).help_text
    screen.query_one(f"#{widget_id('search.relevance')}").focus()
    assert "config.toml" in (await _f1(pilot)).help_text  # the screen's own help


async def test_the_overlay_shows_the_help_text_it_was_given(pilot: Pilot[Any]) -> None:
    await pilot.press("f1")
    await until(pilot, lambda: isinstance(pilot.app.screen, KeysOverlay) and pilot.app.screen.is_mounted)
    assert _help_text(pilot) == pilot.app.screen.help_text  # type: ignore[attr-defined]


def _with_bindings() -> list[type[object]]:
    """Every class of the app that declares bindings of its own (every module loaded)."""
    for module in pkgutil.walk_packages(noted.ui.__path__, prefix="noted.ui."):
        importlib.import_module(module.name)
    found: list[type[object]] = []
    pending: list[type[DOMNode]] = [DOMNode]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if cls.__module__.startswith("noted.ui.") and vars(cls).get("BINDINGS"):
            found.append(cls)
    return sorted(found, key=lambda cls: cls.__qualname__)


@pytest.mark.parametrize("owner", _with_bindings(), ids=lambda cls: cls.__qualname__)
def test_every_binding_has_an_id_a_description_and_a_tooltip(owner: type[object]) -> None:
    for binding in owner.BINDINGS:  # type: ignore[attr-defined]
        assert isinstance(binding, Binding)
        assert binding.id and binding.description and binding.tooltip, binding

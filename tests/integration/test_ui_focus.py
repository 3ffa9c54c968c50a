"""Focus in the chat pane and the settings screen shows by more than colour, in every theme.

People typed into the wrong field: the focused item differed from the others only by a shade
(the half-block border of a text field, a tinted title), which NO_COLOR, a dim terminal or some
themes' cursor styles lose. Each check here renders the screen as the app draws it, then removes
every colour (Textual's ``NoColor`` filter, what a terminal without colour shows), and looks for
what is left: reversed cells and the heavy line glyphs (┃ ┏) that only a focused item has.

Settings are also reached in a few keys: ``Ctrl+↓``/``Ctrl+↑`` go from section to section, and the
command palette lists the sections.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from tests.integration.test_ui_chat import ask, host, make_note, settle
from tests.integration.test_ui_keys import open_settings, type_ahead
from tests.integration.test_ui_screen_snapshots import _snapshots_folder  # noqa: F401 (a fixture: snapshots/)
from tests.integration.ui_support import Fixture, build_profile, open_services, ready, until, use_utc
from textual.app import App
from textual.color import Color
from textual.filter import NoColor
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input, Switch
from textual.widgets._collapsible import CollapsibleTitle

from noted.profile import Profile
from noted.providers import CallTool, Reply
from noted.services import Services
from noted.settings.handles import tool_switch
from noted.ui.app import NotedApp
from noted.ui.chat.edits import EditCard
from noted.ui.chat.log import ChatLog
from noted.ui.chat.tool_call import ToolCallView
from noted.ui.chat.views import ChatInput
from noted.ui.dialogs.picker import NotebookPicker
from noted.ui.dialogs.prompt import TextPrompt
from noted.ui.screens.settings_nav import section_name, shown_sections
from noted.ui.screens.settings_sections import widget_id
from noted.ui.themes import bundled_themes

HEAVY = "┃┏"
"""Glyphs of the heavy line that marks focus; no unfocused item in these screens draws them."""
COLOUR_MODES = pytest.mark.parametrize("no_color", [False, True], ids=["colour", "NO_COLOR"])
WAIT = 30.0
"""A bound on each focus mark's repaint: a theme switch restyles every widget, which took over 10 s
for one mark in a suite run starved of CPU (niced, load 15); passing runs wait no longer for it."""


class Cell(NamedTuple):
    char: str
    reverse: bool


def colourless(app: App[Any], widget: Widget) -> list[list[Cell]]:
    """The cells of ``widget`` shown on screen (none if scrolled away), as a terminal without colour shows them."""
    compositor = app.screen._compositor
    strips = compositor.render_strips()  # what the app sends the terminal, before its filters
    region = compositor.find_widget(widget).visible_region
    rows = []
    for y in range(region.y, region.bottom):
        strip = strips[y].crop(region.x, region.right).apply_filter(NoColor(), Color(0, 0, 0))
        rows.append([Cell(c, bool(s.style and s.style.reverse)) for s in strip for c in s.text])
    return rows


def reversed_text(rows: list[list[Cell]]) -> str:
    return "".join(cell.char for row in rows for cell in row if cell.reverse)


def left_edge(rows: list[list[Cell]]) -> str:
    return "".join(row[0].char for row in rows if row)


def themes_of(app: App[Any]) -> list[str]:
    """Every theme the app offers; checked to hold the ansi ones and noted's own (not vacuous)."""
    names = sorted(app.available_themes)
    assert {"ansi-dark", "ansi-light", "noted-dark", "noted-light", "textual-dark", "nord"} <= set(names)
    return names


# Chat ------------------------------------------------------------------------------------------


@pytest.fixture
def chat_services(tmp_path: Path) -> Iterator[Services]:
    services = Services.open(Profile(tmp_path / "profile").ensure(), welcome=False)
    services.settings.set("ai.enabled", True)
    services.settings.set("ai.provider", "fake")
    services.settings.set("ai.tool.edit_current.enabled", True)  # approval stays on: the card asks
    yield services
    services.close()


def chat_script() -> list[Any]:
    return [
        [Reply("Let me look."), CallTool("search_notes", {"query": "tea"})],
        [CallTool("editor_replace", {"anchor": "- milk", "text": "- oat milk"})],
        [Reply("Changed.")],
    ]


@COLOUR_MODES
async def test_the_focused_chat_item_shows_without_colour_in_every_theme(
    chat_services: Services, monkeypatch: pytest.MonkeyPatch, no_color: bool
) -> None:
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")  # read when the app is built
    app, _ = host(chat_services, chat_script(), note_id=make_note(chat_services))
    for bundled in bundled_themes().values():
        app.register_theme(bundled)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, "Oat milk please")
        await until(pilot, lambda: bool(app.query(".edit-card.-asking")), timeout=WAIT)
        card = app.query_one(EditCard)
        call = app.query_one(ToolCallView)
        title = call.query_one(CollapsibleTitle)
        prompt = app.query_one("#chat-input", ChatInput)
        for theme in themes_of(app):
            app.theme = theme
            # The card: a heavy frame and its title reversed, neither while something else has focus.
            card.focus()
            await until(pilot, lambda: colourless(app, card)[0][0].char == "┏", timeout=WAIT)
            assert "Proposed" in reversed_text(colourless(app, card)), theme
            assert not reversed_text(colourless(app, title)), theme
            assert set(left_edge(colourless(app, call))) == {" "}, theme
            # The tool call's title: reversed, with a heavy bar beside the disclosure.
            title.focus()
            await until(pilot, lambda: "searched for" in reversed_text(colourless(app, title)), timeout=WAIT)
            assert set(left_edge(colourless(app, call))) == {"┃"}, theme
            assert colourless(app, card)[0][0].char not in HEAVY, theme
            assert "Proposed" not in reversed_text(colourless(app, card)), theme
            # The text field: a heavy frame instead of the half blocks it has without focus.
            assert left_edge(colourless(app, prompt)) == "▊▊▊", theme
            prompt.focus()
            await until(pilot, lambda: left_edge(colourless(app, prompt)) == "┏┃┗", timeout=WAIT)
            if no_color:  # the text cursor, only a shade otherwise, is reversed
                assert reversed_text(colourless(app, prompt)).strip(), theme


# Settings --------------------------------------------------------------------------------------


@pytest.fixture
def services(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Services]:
    monkeypatch.setenv("TZ", "UTC")
    use_utc()
    fixture: Fixture = build_profile(tmp_path / "profile")
    services = open_services(fixture.root)
    yield services
    services.close()


def row_of(widget: Widget) -> Widget:
    """The setting (label, control, error, help) holding ``widget``."""
    return next(
        (w for w in widget.ancestors_with_self if isinstance(w, Widget) and w.has_class("setting")), widget
    )


def marked(app: App[Any], widget: Widget, label: str) -> bool:
    """``widget``'s setting has the heavy bar all down its left side and ``label`` reversed."""
    rows = colourless(app, row_of(widget))
    return set(left_edge(rows)) == {"┃"} and label in reversed_text(rows)


def unmarked(app: App[Any], widget: Widget, label: str) -> bool:
    """Nothing of the focus mark on ``widget``'s setting (true of one scrolled out of sight)."""
    rows = colourless(app, row_of(widget))
    return not set(left_edge(rows)) & set(HEAVY) and label not in reversed_text(rows)


THEME_PARTS = 4
"""The themes are checked in this many parts, each its own test, so parallel workers share them
(every theme takes about two seconds: restyling the whole screen, then four focus moves)."""

SETTINGS = [
    ("ai.timeoutSeconds", "Request timeout"),  # a text field
    ("ai.provider", "Provider"),  # a choice
    ("mcp.enabled", "Run the MCP server"),  # a switch
    ("ai.tool.search_notes.enabled", "Search notes by keyword"),  # a tool's checkbox
]


@COLOUR_MODES
@pytest.mark.parametrize("part", range(THEME_PARTS), ids=lambda part: f"themes-{part + 1}-of-{THEME_PARTS}")
async def test_the_focused_setting_shows_without_colour_in_every_theme(
    services: Services, monkeypatch: pytest.MonkeyPatch, no_color: bool, part: int
) -> None:
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    app = NotedApp(services, background=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_settings(pilot)
        controls = [(screen.query_one(f"#{widget_id(key)}"), label) for key, label in SETTINGS]
        snippets = screen.query_one("#mcp-snippets").query_one(CollapsibleTitle)
        finder = screen.query_one("#settings-filter", Input)
        for theme in themes_of(app)[part::THEME_PARTS]:
            app.theme = theme
            for control, label in controls:
                control.focus()
                await until(pilot, lambda c=control, t=label: marked(app, c, t), timeout=WAIT)  # type: ignore[misc]
                # Every other setting stays unmarked: the mark tells which one has focus.
                for other, other_label in controls:
                    if other is not control:
                        assert unmarked(app, other, other_label), (theme, label, other_label)
            snippets.focus()
            await until(
                pilot, lambda: "Client snippets" in reversed_text(colourless(app, snippets)), timeout=WAIT
            )
            assert left_edge(colourless(app, finder)) == "▊▊▊", theme
            finder.focus()
            await until(pilot, lambda: left_edge(colourless(app, finder)) == "┏┃┗", timeout=WAIT)


@COLOUR_MODES
async def test_the_search_field_and_a_prompt_show_their_focus_without_colour(
    services: Services, monkeypatch: pytest.MonkeyPatch, no_color: bool
) -> None:
    # Issue 39, defect 7: the search box and the prompts kept Textual's half-block frame, which
    # differs focused or not only in colour: under NO_COLOR the two looked the same.
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    app = NotedApp(services, background=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.screen.is_mounted, timeout=WAIT)
        await pilot.press("ctrl+f")
        field = await _focused_input(pilot, app)
        await until(pilot, lambda: left_edge(colourless(app, field)) == "┏┃┗", timeout=WAIT)
        await pilot.press(*"plan", "tab")  # to the results: the field loses the focus
        await until(pilot, lambda: not field.has_focus, timeout=WAIT)
        await until(pilot, lambda: left_edge(colourless(app, field)) == "▊▊▊", timeout=WAIT)
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is app.workspace, timeout=WAIT)
        await pilot.press("t")  # the note list's tag prompt
        prompt = await _focused_input(pilot, app)
        await until(pilot, lambda: left_edge(colourless(app, prompt)) == "┏┃┗", timeout=WAIT)


async def _focused_input(pilot: Pilot[Any], app: NotedApp) -> Input:
    await until(
        pilot, lambda: isinstance(app.focused, Input) and app.screen is not app.workspace, timeout=WAIT
    )
    field = app.focused
    assert isinstance(field, Input)
    return field


async def test_a_tools_checkbox_shows_on_and_off_without_colour(services: Services) -> None:
    app = NotedApp(services, background=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_settings(pilot)
        box = screen.query_one(f"#{widget_id('ai.tool.search_notes.enabled')}")
        was = services.settings.get(tool_switch("search_notes"))

        def mark() -> str:
            rows = colourless(app, box)
            return "".join(cell.char for cell in rows[0])[2:5] if rows else ""

        box.focus()  # and so scrolled into view
        # Before, Textual's checkbox drew ▐X▌ on and off alike, its colour the only difference.
        await until(pilot, lambda: mark() == ("▐X▌" if was else "▐ ▌"), timeout=WAIT)
        await pilot.press("space")
        await until(pilot, lambda: mark() == ("▐ ▌" if was else "▐X▌"), timeout=WAIT)
        await until(pilot, lambda: screen.saving == 0, timeout=WAIT)
        assert services.settings.get(tool_switch("search_notes")) is not was


# Section jumps ---------------------------------------------------------------------------------


async def test_ctrl_down_reaches_the_mcp_switch_in_at_most_five_keys(services: Services) -> None:
    app = NotedApp(services, background=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_settings(pilot)
        switch = screen.query_one(f"#{widget_id('mcp.enabled')}", Switch)
        presses = 0
        while screen.focused is not switch and presses < 5:
            await pilot.press("ctrl+down")
            presses += 1
        # Before: 48 Tabs (and Ctrl+↓ did nothing, so this loop ran out at 5).
        assert screen.focused is switch, f"after {presses} presses focus is on {screen.focused}"
        heading = switch.ancestors[2].query_one(".section--title")
        scroller = screen.query_one("#settings")
        # The heading is scrolled to the top (below the section's one-line margin), not just the switch.
        await until(pilot, lambda: 0 <= heading.region.y - scroller.region.y <= 1, timeout=WAIT)
        # And back: Ctrl+↑ from the MCP server section goes to Search's first setting.
        await pilot.press("ctrl+up")
        assert screen.focused is not None and screen.focused.id == widget_id("search.defaultMode")
        # Typed ahead (as over SSH), each press counts: before, the second started from where
        # the first had not yet moved the focus, and three presses went one section.
        type_ahead(pilot, "ctrl+down", "ctrl+down", "ctrl+down")
        await until(pilot, lambda: screen.focused is not None and screen.focused.id == widget_id("ui.theme"))


async def test_section_jumps_go_round_and_keep_to_what_the_filter_shows(services: Services) -> None:
    app = NotedApp(services, background=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_settings(pilot)
        await pilot.press("ctrl+up")  # from the filter, back round to the last section
        assert screen.focused is not None and screen.focused.id == widget_id("ui.keymap")
        screen.query_one("#settings-filter").focus()
        await pilot.press(*"port")
        await until(pilot, lambda: not screen.query_one(f"#{widget_id('ai.provider')}").ancestors[0].display)
        shown = [section_name(s) for s in shown_sections(screen)]
        assert 1 < len(shown) < len(screen.query(".section"))  # the filter hid some (not vacuous)
        visited = []
        for _ in range(len(shown) + 1):
            await pilot.press("ctrl+down")
            focused = screen.focused
            assert focused is not None and all(w.display for w in focused.ancestors_with_self)
            visited.append(
                section_name(
                    next(w for w in focused.ancestors if isinstance(w, Widget) and w.has_class("section"))
                )
            )
        # Each section the filter left, in order, then round to the first; none it hid.
        assert visited == [*shown, shown[0]]


async def test_the_palette_lists_the_sections_and_the_key_bar_shows_the_jump(services: Services) -> None:
    app = NotedApp(services, background=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_settings(pilot)
        shown = {b.binding.id for b in screen.active_bindings.values() if b.binding.show}
        assert {"settings.next_section", "settings.previous_section"} <= shown
        await pilot.press("ctrl+p")
        await until(pilot, lambda: app.screen is not screen)
        await pilot.press(*"section: mcp", "enter")
        target = screen.query_one(f"#{widget_id('mcp.enabled')}")
        await until(pilot, lambda: app.screen is screen and screen.focused is target, timeout=WAIT)


# Snapshots -------------------------------------------------------------------------------------

SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])


@SIZES
def test_settings_focus_without_colour(
    snap_compare: Any, services: Services, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    """NO_COLOR, the MCP server section reached with Ctrl+↓: its switch marked as focused."""
    monkeypatch.setenv("NO_COLOR", "1")

    async def run(pilot: Pilot[Any]) -> None:
        screen = await open_settings(pilot)
        target = screen.query_one(f"#{widget_id('mcp.enabled')}")
        await pilot.press(*["ctrl+down"] * 4)
        await until(pilot, lambda: screen.focused is target)
        await pilot.pause()

    assert snap_compare(NotedApp(services, background=False), terminal_size=size, run_before=run)


def test_chat_focus_without_colour(
    snap_compare: Any, chat_services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """NO_COLOR, a tool call's title focused above the card that asks."""
    monkeypatch.setenv("NO_COLOR", "1")
    app, _ = host(chat_services, chat_script(), note_id=make_note(chat_services))

    async def run(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await ask(pilot, "Oat milk please")
        # The card is marked asking a turn before it takes the focus (y and n act on it): wait for
        # that too, or the focus moved to the title below would be taken back (a run under load).
        await until(pilot, lambda: any(card.has_focus_within for card in app.query(".edit-card.-asking")))
        title = app.query_one(ToolCallView).query_one(CollapsibleTitle)
        title.focus()
        # On a loaded machine one pause could come before the focus had moved, or before the log,
        # anchored to its end, had scrolled there after the card grew (the screenshot was a line up).
        log = app.query_one(ChatLog)
        await until(pilot, lambda: app.focused is title and log.scroll_y == log.max_scroll_y)
        # A fresh-clone CI run beside two CPU burners caught the log's scrollbar mid-way: the
        # scroll to the end is animated, so wait for the animations, then for the end again.
        await pilot.wait_for_scheduled_animations()
        await until(pilot, lambda: log.scroll_y == log.max_scroll_y)
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=run)


# Dialogs ---------------------------------------------------------------------------------------


async def test_the_move_dialogs_filter_is_framed_as_the_other_dialogs_fields(fixture: Fixture) -> None:
    services = open_services(fixture.root)
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await ready(pilot)
            frames = {}
            for key, dialog in (("t", TextPrompt), ("m", NotebookPicker)):
                await pilot.press(key)

                def drawn(opened: type = dialog) -> bool:
                    field = app.focused
                    return (
                        isinstance(app.screen, opened)
                        and isinstance(field, Input)
                        and bool(left_edge(colourless(app, field)))
                    )

                await until(pilot, drawn)
                assert isinstance(app.focused, Input)
                frames[key] = left_edge(colourless(app, app.focused))
                await pilot.press("escape")
                await until(pilot, lambda: app.screen is app.workspace)
            # Not vacuous: the Move dialog's field had the half blocks (▊▊▊), focused or not.
            assert frames == {"t": "┏┃┗", "m": "┏┃┗"}
    finally:
        services.close()

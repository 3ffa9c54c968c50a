"""Keys reach only what is on screen, at 80×24 where the layout hides panes.

Below 110 columns the tree and list fill the screen until a note opens, then the reader does, and
the chat covers everything. Esc from the chat used to put the focus in the hidden note list, so the
next ``d`` trashed a note the person could not see. A focus move to a hidden pane now shows it
first, and the palette offers a pane's commands only while the pane is on screen.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from rich.cells import cell_len
from tests.integration.ui_support import Fixture, open_services, ready, until
from textual.command import CommandInput, CommandList, CommandPalette
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input

from noted.ui.app import NotedApp
from noted.ui.screens.search import SearchScreen
from noted.ui.screens.settings import SettingsScreen
from noted.ui.screens.settings_sections import ToolBox
from noted.ui.widgets.note_list import NoteList
from noted.ui.widgets.note_viewer import NoteScroll, NoteViewer
from noted.ui.widgets.notebook_tree import NotebookTree

NARROW = (80, 24)


@pytest.fixture
async def pilot(fixture: Fixture) -> AsyncIterator[Pilot[None]]:
    services = open_services(fixture.root)
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=NARROW) as pilot:
            await ready(pilot)
            yield pilot
    finally:
        services.close()


def _on_screen(widget: Widget | None) -> bool:
    """Drawn: it and every node above it displayed, and it takes room on the screen."""
    if widget is None:
        return False
    shown = all(node.display for node in widget.ancestors_with_self if isinstance(node, Widget))
    return shown and widget.region.area > 0


def _app(pilot: Pilot[None]) -> NotedApp:
    app = pilot.app
    assert isinstance(app, NotedApp)
    return app


async def _settle(pilot: Pilot[None]) -> None:
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


async def test_escape_from_the_chat_shows_the_list_it_moves_to(pilot: Pilot[None], fixture: Fixture) -> None:
    app = _app(pilot)
    notes = app.workspace.query_one(NoteList)
    await pilot.press("ctrl+t")
    await until(pilot, lambda: app.workspace.chat is not None and app.workspace.chat.has_focus_within)
    await _settle(pilot)
    assert not _on_screen(notes)  # the chat covers the screen
    await pilot.press("escape")
    await _settle(pilot)
    # Not vacuous: the focus went to the list while the chat still covered it.
    assert app.focused is notes and _on_screen(notes)
    assert app.workspace.chat is not None and not _on_screen(app.workspace.chat)
    seen = notes.highlighted_id
    await pilot.press("d")  # trashes the note the person sees under the cursor
    store = app.services.store
    await until(pilot, lambda: seen is not None and store.get_note(seen).is_trashed)


def _page_text(page: NoteScroll) -> str:
    return "\n".join(page.line_text(row) for row in range(page.line_count))


async def _read_the_first_note_and_go_back(pilot: Pilot[None]) -> tuple[NoteViewer, NoteScroll]:
    """Enter on the first row (Release plan): the reader fills the screen; Esc: back to the list."""
    viewer = _app(pilot).workspace.query_one(NoteViewer)
    page = viewer.query_one(NoteScroll)
    await pilot.press("enter")
    await until(pilot, lambda: _on_screen(page) and "spring release" in _page_text(page))
    await pilot.press("escape")
    await until(pilot, lambda: not _on_screen(page))
    return viewer, page


async def test_the_reader_shows_the_note_chosen_after_going_back_to_the_list(
    pilot: Pilot[None], fixture: Fixture
) -> None:
    viewer, page = await _read_the_first_note_and_go_back(pilot)
    await pilot.press("j")  # the next note is read while the reader is hidden: it waits for a width
    await until(pilot, lambda: viewer.note_id == fixture.meeting and viewer.reader.parked)
    await pilot.press("enter")
    # Not vacuous: the reader came back at the width it had, so the page was never told to draw
    # the parked note, and it went on showing the Release plan while `e` edited Meeting notes.
    await until(pilot, lambda: _on_screen(page) and "Talked about the release" in _page_text(page))
    assert not viewer.reader.parked


async def test_the_reader_shows_the_note_opened_from_search_after_going_back_to_the_list(
    pilot: Pilot[None], fixture: Fixture
) -> None:
    app = _app(pilot)
    viewer, page = await _read_the_first_note_and_go_back(pilot)
    await pilot.press("ctrl+f")
    await until(pilot, lambda: isinstance(app.screen, SearchScreen))
    screen = app.screen
    assert isinstance(screen, SearchScreen)
    await pilot.press(*"milk")
    await until(pilot, lambda: [row.title for row in screen.rows] == ["Groceries"])
    await pilot.press("enter")
    await until(
        pilot, lambda: not isinstance(app.screen, SearchScreen) and viewer.note_id == fixture.groceries
    )
    # Not vacuous: as above, the note waited for a width the page already had, under Release plan.
    await until(pilot, lambda: _on_screen(page) and "bread" in _page_text(page))


STATES = {
    "list": (),
    "reading": ("enter",),
    "chat over the list": ("ctrl+t",),
    "chat over a note": ("enter", "ctrl+t"),
    "no tree": ("ctrl+b",),
    "outline": ("enter", "o"),
    "links": ("enter", "a"),
}
KEYS = ("escape", "tab", "shift+tab", "ctrl+b", "ctrl+t", "o", "a")


@pytest.mark.parametrize("state", list(STATES))
async def test_every_focus_move_lands_on_a_pane_on_screen(pilot: Pilot[None], state: str) -> None:
    app = _app(pilot)
    for key in STATES[state]:
        await pilot.press(key)
        await _settle(pilot)
    assert _on_screen(app.focused), f"{state}: the focus starts hidden"
    # Not vacuous: from the chat, Esc moved the focus into the hidden list (the first case above);
    # the sweep covers the other keys that move it, from each state.
    for key in KEYS:
        await pilot.press(key)
        await _settle(pilot)
        focused = app.focused
        assert _on_screen(focused), f"{state}, then {key}: focus on hidden {focused!r}"


async def test_the_palette_offers_no_command_on_a_hidden_pane(pilot: Pilot[None]) -> None:
    app = _app(pilot)
    await pilot.press("ctrl+t")  # the chat covers the list
    await until(pilot, lambda: app.workspace.chat is not None and app.workspace.chat.has_focus_within)
    # Not vacuous: both acted on the hidden list's highlighted note.
    for command in ("Trash notes", "Move to notebook: Home"):
        offered = await _search(pilot, command)
        assert not any(text.startswith(command) for text in offered), offered
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, CommandPalette))
    await pilot.press("escape")  # back to the list: now its commands are there
    await _settle(pilot)
    await pilot.press("ctrl+p")
    await until(pilot, lambda: isinstance(app.screen, CommandPalette))
    await pilot.press(*"Trash notes")
    commands = app.screen.query_one(CommandList)

    def offered_now() -> bool:
        option = commands.highlighted_option
        return option is not None and str(option.prompt).startswith("Trash notes")

    await until(pilot, offered_now)


async def _search(pilot: Pilot[None], text: str) -> list[str]:
    """Type ``text`` in the palette and wait for every provider to answer; what it offers."""
    app = _app(pilot)
    await pilot.press("ctrl+p")
    await until(pilot, lambda: isinstance(app.screen, CommandPalette))
    palette = app.screen
    await pilot.press(*text)
    field = palette.query_one(CommandInput)
    await until(pilot, lambda: field.value == text)
    await pilot.pause()

    def answered() -> bool:
        gathering = CommandPalette._GATHER_COMMANDS_GROUP
        return not [
            w for w in app.workers if w.node is palette and w.group == gathering and not w.is_finished
        ]

    await until(pilot, answered)
    commands = palette.query_one(CommandList)
    return [str(commands.get_option_at_index(i).prompt) for i in range(commands.option_count)]


async def test_a_notebook_name_too_long_for_the_tree_is_cut_so_its_count_stays_in_sight(
    fixture: Fixture,
) -> None:
    # The tree cut a long name at the pane's edge, and the note count after it with it.
    services = open_services(fixture.root)
    services.store.create_folder("Quarterly planning sessions with the whole team", actor="user")
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=NARROW) as pilot:
            await ready(pilot)
            tree = app.workspace.query_one(NotebookTree)
            width = tree.scrollable_content_region.width

            def lines() -> list[str]:
                return [
                    "".join(s.text for s in tree.render_line(y)).rstrip() for y in range(tree.size.height)
                ]

            await until(pilot, lambda: any("Quarterly" in line for line in lines()))
            (long,) = [line for line in lines() if "Quarterly" in line]
            assert long.startswith("Quarterly planning") and long.endswith("… 0"), long
            assert cell_len(long) == width, (long, width)
            assert "▶ Work 2" in lines()  # one that fits is left as it is
    finally:
        services.close()


def _screen_lines(app: NotedApp) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


async def test_the_status_bar_leaves_out_whole_parts_that_do_not_fit(pilot: Pilot[None]) -> None:
    app = _app(pilot)
    parts = {
        "review": "3 changes to review",
        "index": "index up to date",
        "mcp": "MCP http://127.0.0.1:8765/mcp · 0 clients",
        "model": "fake · default model",
        "tokens": "1,204 of 200,000 tokens",
    }
    for part, text in parts.items():
        app.status.set_part(part, text)
    await pilot.pause()
    (line,) = [line for line in _screen_lines(app) if "changes to review" in line]
    shown = line.strip().split(" │ ")
    # Not vacuous: before, the line was cut at the screen's edge, the last part half shown (or only
    # its separator). Now each part is whole, and the MCP address and the model go first.
    assert shown == [parts["review"], parts["index"], parts["tokens"]], line
    await pilot.resize_terminal(160, 24)
    await until(pilot, lambda: "default model" in "".join(_screen_lines(app)))
    (line,) = [line for line in _screen_lines(app) if "changes to review" in line]
    assert line.strip().split(" │ ") == list(parts.values())  # with room, all of them


async def test_a_tree_filter_too_long_for_the_pane_keeps_its_words_in_the_title(pilot: Pilot[None]) -> None:
    app = _app(pilot)
    tree = app.workspace.query_one(NotebookTree)
    tree.focus()
    await pilot.press("slash", *"ho")
    await until(pilot, lambda: "filter: ho" in str(tree.border_title))
    # Not vacuous: "Notebooks · 1 of 3 · filter: ho" does not fit the 28-column pane, and it was cut
    # to "Notebooks · 1 of 3 · …", hiding what was typed. The count goes first.
    assert str(tree.border_title) == "Notebooks · filter: ho"
    top = _screen_lines(app)[0]
    assert "╭─ Notebooks · filter: ho ─╮" in top, top
    await pilot.press(*"me and away")
    await until(pilot, lambda: str(tree.border_title) == "filter: home and away")


async def test_every_tool_switch_in_the_settings_reads_whole_at_60_columns(pilot: Pilot[None]) -> None:
    """At 60 columns a tool's box read ``Edit the open note  editor_append, editor_…``: its label
    and tool names were cut at the edge. They wrap onto more lines now, at every width near 60
    (one more or less cell put the last name's end, or the pad after it, past the edge)."""
    app = _app(pilot)
    await pilot.resize_terminal(60, 20)
    await pilot.press("f2")
    await until(pilot, lambda: isinstance(app.screen, SettingsScreen) and bool(app.screen.query(ToolBox)))
    for width in range(56, 65):
        await pilot.resize_terminal(width, 20)
        await _settle(pilot)
        boxes = list(app.screen.query(ToolBox))
        # Not vacuous: the longest labels (label and every tool name) are wider than the pane.
        assert max(cell_len(str(box.label)) for box in boxes) > app.size.width
        for box in boxes:
            lines = box.render_lines(Region(0, 0, *box.outer_size))
            drawn = " ".join(" ".join(strip.text for strip in lines).split())
            words = " ".join(str(box.label).split())
            assert words in drawn and "…" not in drawn, (width, words, drawn)


@pytest.mark.parametrize(
    ("key", "field_id", "end"),
    [("f2", "settings-filter", "Enter goes to it"), ("ctrl+f", "search-input", "tag:plan…"),
     ("f3", "changes-filter", "since:day-1")],
    ids=["settings", "search", "changes"],
)  # fmt: skip
async def test_a_filter_says_its_whole_hint_at_60_columns(
    pilot: Pilot[None], key: str, field_id: str, end: str
) -> None:
    """At 60 columns the settings' filter read ``Type to find a setting (mcp, timeout, theme…) · Ente``,
    the search's ``words, "a phrase", notebook:Work,`` and the changes' ``/ filter: actor, notebook or
    title words;``: each hint was cut before its end. A shorter hint shows where the long one has no room."""
    app = _app(pilot)
    await pilot.press(key)
    await until(pilot, lambda: bool(app.screen.query(f"#{field_id}")))
    field = app.screen.query_one(f"#{field_id}", Input)
    hints = set()
    for width in (60, 56, 80, 120):
        await pilot.resize_terminal(width, 20)
        await _settle(pilot)
        lines = field.render_lines(Region(0, 0, *field.outer_size))
        drawn = " ".join(" ".join(strip.text for strip in lines).split())
        assert field.placeholder.endswith(end) and field.placeholder in drawn, (width, drawn)
        hints.add(field.placeholder)
    assert len(hints) > 1  # the full hint where it fits

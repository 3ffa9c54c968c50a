"""The key bar at narrow widths, the overlay of keys (``?`` and F1) and palette texts naming keys.

All run the real app on a real profile; the keymap is changed the way a person does it, in the
settings file, so the app reads it as it starts.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import pytest
from tests.integration.ui_support import Fixture, open_services, ready, until
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.pilot import Pilot
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from noted.services import Services
from noted.ui.app import NotedApp
from noted.ui.dialogs.keys import EVERYWHERE, KeysOverlay
from noted.ui.dialogs.picker import NotebookPicker
from noted.ui.dialogs.prompt import TextPrompt
from noted.ui.screens.search import SearchScreen
from noted.ui.widgets.key_bar import KeyBar, fit_keys
from noted.ui.widgets.note_list import NoteList
from noted.ui.widgets.note_viewer import NoteScroll, NoteViewer


@pytest.fixture
def services(fixture: Fixture) -> Iterator[Services]:
    services = open_services(fixture.root)
    yield services
    services.close()


def bar_text(app: NotedApp) -> str:
    bar = app.screen.query_one(KeyBar)
    rendered = bar.render()
    assert isinstance(rendered, Content)
    return rendered.plain


async def open_overlay(pilot: Pilot[Any], key: str = "question_mark") -> KeysOverlay:
    await pilot.press(key)
    await until(pilot, lambda: isinstance(pilot.app.screen, KeysOverlay) and pilot.app.screen.is_mounted)
    assert isinstance(pilot.app.screen, KeysOverlay)
    return pilot.app.screen


def rows_by_id(overlay: KeysOverlay, title: str) -> dict[str, tuple[str, ...]]:
    group = next(g for g in overlay.groups if g.title == title)
    return {row.binding_id: row.keys for row in group.rows if row.binding_id}


# The key bar -------------------------------------------------------------------------------------


@pytest.mark.parametrize("width", [80, 60])
async def test_the_key_bar_keeps_f1_and_the_palette_whole_when_narrow(services: Services, width: int) -> None:
    """At 80 columns the bar used to end in ``f1 H…`` and lose ``^p palette``: both must stay whole."""
    app = NotedApp(services, background=False)
    async with app.run_test(size=(width, 24)) as pilot:
        await ready(pilot)
        for focus in (NoteList, NoteScroll):  # the list's keys, then the reader's
            app.workspace.query_one(focus).focus()
            await pilot.pause()
            text = bar_text(app)
            assert "f1 Help" in text and text.rstrip().endswith("^p palette"), text
            assert len(text) <= width
        app.workspace.query_one(NoteList).focus()
        await pilot.pause()
        assert "…" in bar_text(app)  # the list has more keys than fit: the bar says some are left out


class _AnyDialog(ModalScreen[None]):
    """A modal screen with no key bar of its own, as any new dialog would be."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("x", "dismiss", "Close this", id="test.close", tooltip="Close the test dialog")
    ]

    def compose(self) -> ComposeResult:
        yield Static("A dialog")


@pytest.mark.parametrize(
    ("opened_by", "modal", "keys"),
    [
        ("m", NotebookPicker, "esc Cancel"),  # a picker
        ("t", TextPrompt, "esc Cancel"),  # a prompt
        ("question_mark", KeysOverlay, "esc Close"),  # the list of keys
        ("", _AnyDialog, "x Close this"),  # any modal screen, pushed as the app pushes one
    ],
)
async def test_under_a_modal_screen_the_key_bar_shows_its_keys_not_the_panes_behind(
    services: Services, opened_by: str, modal: type[ModalScreen[Any]], keys: str
) -> None:
    # Before: the bar kept the list's keys (Open, Edit, Mark…), which a modal screen stops.
    app = NotedApp(services, background=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        bar = app.workspace.query_one(KeyBar)  # in sight: these screens have no bar of their own
        before = bar.render().plain  # type: ignore[union-attr]
        assert "e Edit" in before
        if opened_by:
            await pilot.press(opened_by)
        else:
            app.push_screen(_AnyDialog())
        await until(pilot, lambda: isinstance(app.screen, modal))
        await until(pilot, lambda: keys in bar.render().plain)  # type: ignore[union-attr]
        shown = bar.render().plain  # type: ignore[union-attr]
        assert "Edit" not in shown and "Mark" not in shown and shown.rstrip().endswith("^p palette"), shown
        app.screen.dismiss(None)
        await until(pilot, lambda: bar.render().plain == before)  # type: ignore[union-attr]


def test_fit_keys_drops_the_last_unpinned_keys_first() -> None:
    entries = [(Content(f"k{i} Key{i}"), False) for i in range(6)] + [(Content("f1 Help"), True)]
    line = fit_keys(entries, Content("^p palette"), 40).plain
    assert line.startswith("k0 Key0") and "f1 Help" in line and line.endswith("^p palette")
    assert "k5" not in line and len(line) == 39  # and a space at the right edge
    # Narrower than the pinned keys and the palette together: the palette comes first, whole.
    assert fit_keys(entries, Content("^p palette"), 12).plain.startswith("^p palette")


# The overlay -------------------------------------------------------------------------------------


async def test_question_mark_lists_every_key_of_the_focused_pane_and_the_global_ones(
    services: Services,
) -> None:
    app = NotedApp(services, background=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        app.workspace.query_one(NoteList).focus()
        overlay = await open_overlay(pilot)
        # Every binding the list declares, shown or not in the key bar (j, *, T… are not shown there),
        # but for one that does not apply now (Esc clears a filter only while there is one).
        notes = app.workspace.query_one(NoteList)
        wanted = {
            b.id for b in NoteList.BINDINGS
            if isinstance(b, Binding) and b.id and notes.check_action(b.action, ()) is not False
        }  # fmt: skip
        assert "list.filter" in wanted and "list.filter.clear" not in wanted
        assert overlay.groups[0].title == "Notes"
        assert wanted <= set(rows_by_id(overlay, "Notes"))
        assert rows_by_id(overlay, "Notes")["list.trash"] == ("d", "del")
        assert {"app.quit", "app.search", "app.help", "app.settings"} <= set(rows_by_id(overlay, EVERYWHERE))
        assert overlay.help_text.startswith("## Notes")
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, KeysOverlay))
        assert app.focused is app.workspace.query_one(NoteList)  # back where the person was

        app.workspace.query_one(NoteScroll).focus()  # another pane: its own keys come first
        overlay = await open_overlay(pilot, "f1")
        assert overlay.groups[0].title == "Note"
        page = app.workspace.query_one(NoteScroll)
        reader = {  # but Esc, which clears a find only while there is one
            b.id for cls in (NoteScroll, NoteViewer) for b in cls.BINDINGS
            if isinstance(b, Binding) and b.id and page.check_action(b.action, ()) is not False
        }  # fmt: skip
        assert "note.find.next" in reader and "note.find.clear" not in reader
        assert reader <= set(rows_by_id(overlay, "Note")) | set(rows_by_id(overlay, "Note viewer"))
        await pilot.press("f1")  # the key that opened it closes it
        await until(pilot, lambda: not isinstance(app.screen, KeysOverlay))


async def test_the_overlay_scrolls_from_the_keyboard(services: Services) -> None:
    app = NotedApp(services, background=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        overlay = await open_overlay(pilot)
        scroll = overlay.query_one("#keys-scroll")
        await until(pilot, lambda: scroll.max_scroll_y > 0)  # at 24 lines the list is longer than the box
        await pilot.press("pagedown")
        await until(pilot, lambda: scroll.scroll_y > 0)
        await pilot.press("home")
        await until(pilot, lambda: scroll.scroll_y == 0)


async def test_question_mark_in_a_text_box_is_typed(services: Services) -> None:
    app = NotedApp(services, background=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+f")
        await until(pilot, lambda: isinstance(app.screen, SearchScreen) and isinstance(app.focused, Input))
        await pilot.press("question_mark")
        query = app.screen.query_one(Input)
        await until(pilot, lambda: query.value == "?")
        assert not isinstance(app.screen, KeysOverlay)


# Remapped keys -----------------------------------------------------------------------------------


@pytest.fixture
def remapped(services: Services) -> Services:
    services.settings.set("ui.keymap.list.tag", "ctrl+g")
    services.settings.set("ui.keymap.app.new_note", "ctrl+y")
    services.settings.set("ui.keymap.app.help", "f3")
    return services


async def test_a_remapped_key_shows_in_the_overlay_the_palette_and_the_bar(remapped: Services) -> None:
    """Before, the palette said "(ctrl+n)" whatever the keymap; each text must name the key in effect."""
    app = NotedApp(remapped, background=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        app.workspace.query_one(NoteList).focus()
        await pilot.pause()
        assert "f3 Help" in bar_text(app) and "f1" not in bar_text(app)
        overlay = await open_overlay(pilot, "f3")
        assert rows_by_id(overlay, "Notes")["list.tag"] == ("^g",)
        # The pane's help below the keys names the key in effect too (it said **t** whatever the keymap).
        assert "**Ctrl+G** tags" in overlay.help_text and "**t** tags" not in overlay.help_text
        assert rows_by_id(overlay, "Workspace")["app.new_note"] == ("^y",)
        await pilot.press("f3")
        await until(pilot, lambda: not isinstance(app.screen, KeysOverlay))

        palette = {command.title: command.help for command in app.get_system_commands(app.screen)}
        assert palette["Tag notes…"].endswith("(^g)")
        assert palette["New note"].endswith("(^y)")
        assert "ctrl+n" not in palette["New note"] and "^n" not in palette["New note"]
        assert palette["Keys"].endswith("(f3)")
        assert palette["Search notes…"].endswith("(^f or /)")  # not remapped: both default keys


async def test_every_palette_text_that_names_a_key_finds_it(services: Services) -> None:
    """A palette entry whose action has no key in its owner's bindings would lose its hint silently."""
    app = NotedApp(services, background=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        palette = {command.title: command.help for command in app.get_system_commands(app.screen)}
        keyed = ["Search notes…", "New note", "Toggle assistant", "Toggle notebooks", "Settings", "Keys"]
        keyed += [
            "Tag notes…",
            "Move notes to…",
            "Sort notes",
            "Edit note",
            "Go to outline",
            "Rename notebook or tag",
        ]
        for title in keyed:
            assert palette[title].endswith(")"), (title, palette[title])


# Modal screens (issue 39, defects 3 and 4) ---------------------------------------------------------


def overlay_lines(overlay: KeysOverlay) -> list[str]:
    """The text of the overlay's tables as drawn at the overlay's width."""
    return [
        line.text
        for table in overlay.query(".keys--table")
        for line in table.render_lines(table.region.reset_offset)
    ]


async def test_help_in_search_at_80_columns_shows_what_each_key_does(services: Services) -> None:
    app = NotedApp(services, background=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+f")
        await until(pilot, lambda: isinstance(app.screen, SearchScreen) and app.screen.is_mounted)
        overlay = await open_overlay(pilot, "f1")
        await pilot.pause()
        rows = {row.binding_id: row for row in overlay.groups[0].rows if row.binding_id}
        # ↑/↓ and Enter in the query choose and open results: they say so, not Textual's generic
        # "Scroll Up", "Scroll Down" and "Submit" (which they were).
        assert rows["search.up"].keys == ("↑",) and rows["search.down"].keys == ("↓",)
        assert rows["search.open"].keys == ("⏎",) and rows["search.open"].description == "Open"
        descriptions = {row.description for group in overlay.groups for row in group.rows}
        assert not {"Scroll Up", "Scroll Down", "Submit"} & descriptions
        # At 80 columns each tooltip is there to read; before, a long description of Textual's
        # left the tooltips one column each, drawn as `…`.
        text = "\n".join(overlay_lines(overlay))
        for tooltip in ("Next result", "Close search", "Search by keyword"):
            assert tooltip in text, text
        assert "…" not in text


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_modal_screens_have_their_own_key_bar_with_help_and_the_palette(
    services: Services, size: tuple[int, int]
) -> None:
    app = NotedApp(services, background=False)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+f")
        await until(pilot, lambda: isinstance(app.screen, SearchScreen) and app.screen.is_mounted)
        await pilot.pause()
        # The search screen's keys, not those of the list behind it (which it showed).
        text = bar_text(app)
        assert "esc Close" in text and "^o Mode" in text and "f1 Help" in text, text
        assert "Mark" not in text and text.rstrip().endswith("^p palette"), text
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is app.workspace)
        await pilot.press("f2")
        await until(pilot, lambda: type(app.screen).__name__ == "SettingsScreen" and app.screen.is_mounted)
        await pilot.pause()
        # Textual's footer in the settings lost `f1 Help` at 80 columns.
        text = bar_text(app)
        assert "f1 Help" in text and text.rstrip().endswith("^p palette"), text

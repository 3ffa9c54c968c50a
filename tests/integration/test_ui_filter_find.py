"""``/`` where a pane has a local meaning (issue 39): it filters the note list in place, and finds in
the open note (``n``/``N`` then go from match to match); elsewhere it is still the global search.

The profile is the sample one plus 150 notes "Log 000".."Log 149", older than the four, so the list
holds its first page only (100 notes) when the filter opens: a filter that looked only at the loaded
notes would miss "Log 140".."Log 149".
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

import pytest
from tests.integration.test_ui_reader_images import screen_text
from tests.integration.ui_support import HOUR, T0, Fixture, open_services, ready, until
from textual import events
from textual.pilot import Pilot
from textual.widgets import Label

from noted.models import ACTOR_IMPORT, NoteDraft
from noted.services import Services
from noted.ui.app import NotedApp
from noted.ui.data import PAGE_SIZE
from noted.ui.screens.search import SearchScreen
from noted.ui.widgets.note_list import NoteList
from noted.ui.widgets.note_viewer import NoteScroll, NoteViewer
from noted.ui.widgets.page_find import CURRENT, HIT
from noted.ui.widgets.prompt_bar import PromptBar, PromptField

SIZE = (120, 40)
FILLER = "\n".join(f"Filler line {n} of the haystack." for n in range(120))
HAYSTACK = f"the needle one\n\n{FILLER}\n\nNeedle two, and a needle three\n\n{FILLER}\n\nneedle four\n"
"""Four "needle" (one capitalised), two of them far down the page: finding must scroll."""


def add_notes(fixture: Fixture, services: Services) -> str:
    """The 150 logs (older than the sample notes) and the haystack (the newest); its id."""
    store = services.store
    for n in range(150):
        when = T0 - (n + 1) * HOUR
        draft = NoteDraft(title=f"Log {n:03}", body="", parent_id=fixture.home, user_updated_time=when,
                          user_created_time=when)  # fmt: skip
        store.create_note(draft, actor=ACTOR_IMPORT)
    draft = NoteDraft(
        title="Haystack", body=HAYSTACK, parent_id=fixture.home, user_updated_time=T0 + 9 * HOUR
    )
    return store.create_note(draft, actor=ACTOR_IMPORT).id


@pytest.fixture
def services(fixture: Fixture) -> Iterator[Services]:
    services = open_services(fixture.root)
    yield services
    services.close()


async def started(pilot: Pilot[None]) -> NoteList:
    """The app with its list's first page loaded, the cursor on its second note (Release plan)."""
    app = pilot.app
    assert isinstance(app, NotedApp)
    await until(pilot, lambda: bool(app.workspace.query(NoteList)))
    notes = app.workspace.query_one(NoteList)
    await until(pilot, lambda: len(notes.rows) == PAGE_SIZE)
    await pilot.press("j")
    await until(pilot, lambda: notes.highlighted_id == notes.rows[1].meta.id)
    return notes


@asynccontextmanager
async def running(
    fixture: Fixture, services: Services
) -> AsyncIterator[tuple[NotedApp, Pilot[None], NoteList]]:
    """The app on the profile with the logs and the haystack, its list's first page loaded (``started``)."""
    add_notes(fixture, services)
    app = NotedApp(services, background=False)
    async with app.run_test(size=SIZE) as pilot:
        yield app, pilot, await started(pilot)


def titles(notes: NoteList) -> list[str]:
    return [row.meta.title for row in notes.rows]


# The note list's filter --------------------------------------------------------------------------


async def test_slash_narrows_the_list_as_typed_over_every_note_and_enter_keeps_it(
    fixture: Fixture, services: Services
) -> None:
    async with running(fixture, services) as (app, pilot, notes):
        await pilot.press("slash")
        bar = app.workspace.query_one(PromptBar)
        await until(pilot, lambda: isinstance(app.focused, PromptField))
        await pilot.press(*"LOG 14")  # case does not count
        # Every word anywhere in the title. Log 114 and 140..149 are past the first page: found
        # only because the filter reads every note.
        wanted = ["Log 014", "Log 114", *(f"Log {n}" for n in range(140, 150))]
        await until(pilot, lambda: titles(notes) == wanted)
        # What fits the pane's top edge at 120 columns, the words typed whole. Not vacuous: before,
        # the whole title was set and drawn cut at its end: "All notes · 12 of 155 · filter…".
        await until(pilot, lambda: "─ 12 of 155 · filter: LOG 14 ─" in screen_text(app))
        assert notes.filter.title("All notes", "", " · by updated", 0) == (
            "All notes · 12 of 155 · filter: LOG 14 · by updated"  # where there is room for it all
        )
        await pilot.press("backspace")  # "LOG 1": widens again, live
        await until(pilot, lambda: len(notes.rows) == 69)  # the titles with a 1
        await pilot.press("4", "enter")
        await until(pilot, lambda: app.focused is notes)
        assert bar.owner is None and not bar.display
        assert titles(notes) == wanted and "12 of 155" in str(notes.border_title)  # kept
        await pilot.press("j", "enter")  # the list works as ever on what is shown
        viewer = app.workspace.query_one(NoteViewer)
        await until(pilot, lambda: viewer.view is not None and viewer.view.note.title == "Log 114")


async def test_esc_clears_the_filter_and_puts_back_the_list_and_its_cursor(
    fixture: Fixture, services: Services
) -> None:
    async with running(fixture, services) as (app, pilot, notes):
        before = titles(notes)
        chosen = notes.highlighted_id
        await pilot.press("slash", *"groc")
        await until(pilot, lambda: titles(notes) == ["Groceries"])
        assert notes.highlighted_id != chosen  # the cursor went with the filter
        await pilot.press("escape")
        await until(pilot, lambda: app.focused is notes)
        # Not vacuous: the filter had left one row and moved the cursor to it.
        assert titles(notes) == before and notes.highlighted_id == chosen
        assert "filter" not in str(notes.border_title)


async def test_esc_on_the_list_clears_a_kept_filter_and_keeps_the_note_chosen(
    fixture: Fixture, services: Services
) -> None:
    async with running(fixture, services) as (app, pilot, notes):
        await pilot.press("slash", *"log 148", "enter")
        await until(pilot, lambda: app.focused is notes and titles(notes) == ["Log 148"])
        await pilot.press("escape")  # the list's Esc while a filter is kept: clears it
        await until(pilot, lambda: len(notes.rows) > 1)
        # The note chosen through the filter stays chosen, shown in the whole list (past its first page).
        assert notes.highlighted_id is not None and notes.rows[notes.highlighted or 0].meta.title == "Log 148"
        assert "filter" not in str(notes.border_title)


async def test_the_filter_key_follows_the_keymap_and_slash_is_search_where_the_pane_has_no_filter(
    fixture: Fixture,
) -> None:
    services = open_services(fixture.root)
    services.settings.set("ui.keymap.list.filter", "f")
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await pilot.press("f", *"idea")
            notes = app.workspace.query_one(NoteList)
            await until(pilot, lambda: titles(notes) == ["Ideas"])
            await pilot.press("escape")
            await until(pilot, lambda: app.focused is notes and len(notes.rows) == 4)
            await pilot.press("slash")  # the list's "/" moved to f: "/" is the search again
            await until(pilot, lambda: isinstance(app.screen, SearchScreen))
    finally:
        services.close()


# Find in the open note ----------------------------------------------------------------------------


async def open_haystack(pilot: Pilot[None], notes: NoteList) -> NoteScroll:
    app = pilot.app
    assert isinstance(app, NotedApp)
    viewer = app.workspace.query_one(NoteViewer)
    await pilot.press("g", "enter")
    await until(pilot, lambda: viewer.view is not None and viewer.view.note.title == "Haystack")
    page = viewer.query_one(NoteScroll)
    await until(pilot, lambda: app.focused is page and page.line_count > 200)
    assert notes.rows[0].meta.title == "Haystack"
    return page


def painted(page: NoteScroll, row: int) -> list[tuple[str, bool, bool]]:
    """Page row ``row``'s painted text runs: (text, a match, the current match)."""
    page.scroll_to(y=row, animate=False, immediate=True)
    strip = page.render_line(0)
    return [(s.text, bool(s.style and s.style.reverse), bool(s.style and s.style.underline)) for s in strip]


async def keyword_search(pilot: Pilot[None]) -> SearchScreen:
    """The search screen opened with ``Ctrl+F``, in keyword mode."""
    app = pilot.app
    await pilot.press("ctrl+f")
    await until(pilot, lambda: isinstance(app.screen, SearchScreen))
    screen = app.screen
    assert isinstance(screen, SearchScreen)
    while screen.mode != "keyword":
        await pilot.press("ctrl+o")
    return screen


def header_says(page: NoteScroll) -> str:
    header = page.screen.query_one("#note-header")
    return str(header.border_subtitle or "")


async def test_slash_in_the_note_highlights_the_matches_and_goes_to_the_first(
    services: Services, fixture: Fixture
) -> None:
    async with running(fixture, services) as (app, pilot, notes):
        page = await open_haystack(pilot, notes)
        await pilot.press("slash", *"needle")
        await until(pilot, lambda: header_says(page) == "find: needle · 1/4")
        assert page.find is not None
        rows = [hit.row for hit in page.find.hits]
        assert len(rows) == 4 and rows[-1] > 200  # far down: scrolling is needed
        first = painted(page, rows[0])
        assert ("needle", True, True) in first and any(not hit for _, hit, _ in first)
        assert HIT.reverse and CURRENT.underline
        await pilot.press("enter")
        await until(pilot, lambda: app.focused is page)
        await pilot.press("n")
        await until(pilot, lambda: header_says(page) == "find: needle · 2/4")
        # The page went to the second match, on a row of its own far below the first.
        assert page.scroll_y <= rows[1] < page.scroll_y + page.scrollable_content_region.height
        assert ("Needle", True, True) in painted(page, rows[1])
        assert ("needle", True, False) in painted(page, rows[2])


async def test_n_and_shift_n_go_round_the_ends_and_esc_clears(services: Services, fixture: Fixture) -> None:
    async with running(fixture, services) as (app, pilot, notes):
        page = await open_haystack(pilot, notes)
        await pilot.press("slash", *"needle", "enter")
        await until(pilot, lambda: app.focused is page and header_says(page) == "find: needle · 1/4")
        await pilot.press("N")
        await until(pilot, lambda: header_says(page) == "find: needle · 4/4 · from the bottom")
        assert page.scroll_y > 200
        await pilot.press("n")
        await until(pilot, lambda: header_says(page) == "find: needle · 1/4 · from the top")
        assert page.scroll_y < 10
        await pilot.press("n", "n")
        await until(pilot, lambda: header_says(page) == "find: needle · 3/4")
        row = page.find.hits[2].row if page.find else -1
        await pilot.press("escape")  # the page's Esc while a find is kept: clears it
        await until(pilot, lambda: page.find is None and header_says(page) == "")
        assert app.focused is page  # not the screen's Esc (back to the list)
        assert not any(hit for _, hit, _ in painted(page, row))
        await pilot.press("escape")  # no find now: the screen's Esc, back to the list
        await until(pilot, lambda: isinstance(app.focused, NoteList))


async def test_a_new_find_starts_with_the_last_words_selected_so_typing_replaces_them(
    services: Services, fixture: Fixture
) -> None:
    async with running(fixture, services) as (app, pilot, notes):
        page = await open_haystack(pilot, notes)
        await pilot.press("slash", *"needle", "enter")
        await until(pilot, lambda: app.focused is page and header_says(page) == "find: needle · 1/4")
        await pilot.press("slash")
        field = app.screen.query_one(PromptField)
        await until(pilot, lambda: app.focused is field)
        assert field.value == "needle" and field.selected_text == "needle"  # Enter would keep it
        await pilot.press(*"filler line 7 ")
        # Not vacuous: the field opened with the cursor after the words, and the typing went on
        # from them ("needlefiller line 7 · no match").
        await until(pilot, lambda: header_says(page) == "find: filler line 7  · 1/2")
        assert field.value == "filler line 7 "


async def test_a_capital_makes_case_count_and_esc_while_typing_goes_back(
    services: Services, fixture: Fixture
) -> None:
    async with running(fixture, services) as (app, pilot, notes):
        page = await open_haystack(pilot, notes)
        await pilot.press("slash", *"Needle")
        await until(pilot, lambda: header_says(page) == "find: Needle · 1/1")
        assert page.scroll_y > 100
        await pilot.press("backspace", *"xx")
        await until(pilot, lambda: header_says(page) == "find: Needlxx · no match")
        await pilot.press("escape")
        await until(pilot, lambda: app.focused is page and page.find is None)
        assert page.scroll_y == 0 and header_says(page) == ""  # back where the find began
        await pilot.press("n")  # no find: n does nothing here
        assert page.scroll_y == 0


async def test_keys_typed_at_once_after_slash_and_after_enter_go_where_the_focus_goes(
    services: Services, fixture: Fixture
) -> None:
    async with running(fixture, services) as (app, pilot, notes):
        page = await open_haystack(pilot, notes)
        # All posted before the app handles the first, as keys typed fast arrive. Not vacuous:
        # without holding them, "needle" went to the page (before the field had the focus) and
        # "n" after Enter into the field ("needlen · no match").
        for key in ("slash", *"needle"):
            app.post_message(events.Key(key, key if len(key) == 1 else None))
        await until(pilot, lambda: header_says(page) == "find: needle · 1/4")
        enter = app.screen.active_bindings["enter"].binding
        assert enter.id == "prompt.keep"  # what the app's type-ahead looks at
        for key in ("enter", "n"):
            app.post_message(events.Key(key, key if len(key) == 1 else None))
        await until(pilot, lambda: header_says(page) == "find: needle · 2/4")
        assert app.focused is page


async def test_a_note_opened_from_search_has_the_words_it_was_found_by_marked_until_another_note(
    services: Services, fixture: Fixture
) -> None:
    async with running(fixture, services) as (app, pilot, notes):
        viewer = app.workspace.query_one(NoteViewer)
        page = viewer.query_one(NoteScroll)
        screen = await keyword_search(pilot)
        # "the" is a function word: marked, it would light up every filler line of the page.
        await pilot.press(*"the needle three")
        # The answer to the whole query, not to one typed on the way ("the needle" finds it too).
        await until(pilot, lambda: screen.marks is not None and screen.marks[0] == "the needle three")
        assert [row.title for row in screen.rows] == ["Haystack"]
        await pilot.press("enter")
        await until(pilot, lambda: viewer.view is not None and viewer.view.note.title == "Haystack")
        await until(pilot, lambda: header_says(page) == "find: the needle three · 1/5")
        assert page.find is not None
        rows = [hit.row for hit in page.find.hits]
        assert ("needle", True, True) in painted(page, rows[0])
        three = painted(page, rows[1])  # "Needle two, and a needle three"
        assert rows[1] == rows[2] == rows[3]
        assert ("Needle", True, False) in three and ("three", True, False) in three
        assert not any(hit for _, hit, _ in painted(page, rows[0] + 2))  # a filler line: "the" unmarked
        page.scroll_home(animate=False)
        page.focus()
        await pilot.press("n")
        await until(pilot, lambda: header_says(page) == "find: the needle three · 2/5")
        # Esc goes back to the list as ever (it clears a find of one's own first); the marks stay.
        await pilot.press("escape")
        await until(pilot, lambda: app.focused is notes)
        assert header_says(page) == "find: the needle three · 2/5"
        # Another note drops them, and a note opened from the list has nothing marked.
        await pilot.press("j")
        await until(pilot, lambda: viewer.view is not None and viewer.view.note.title != "Haystack")
        assert page.find is None and header_says(page) == ""
        await pilot.press("k")
        await until(pilot, lambda: viewer.view is not None and viewer.view.note.title == "Haystack")
        await pilot.pause()
        assert page.find is None and header_says(page) == ""


async def test_the_palette_offers_the_filter_and_the_find(services: Services, fixture: Fixture) -> None:
    app = NotedApp(services, background=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        for command, label in (("Filter notes", "Filter"), ("Find in note", "Find")):
            await pilot.press("ctrl+p", *command)
            await pilot.pause()
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.focused, PromptField))
            assert str(app.workspace.query_one(PromptBar).query_one(Label).content) == label
            await pilot.press("escape")
            await until(pilot, lambda: not isinstance(app.focused, PromptField))


async def test_triage_in_a_kept_filter_keeps_the_filter_and_the_cursor_in_its_place(
    fixture: Fixture, services: Services
) -> None:
    async with running(fixture, services) as (app, pilot, notes):
        await pilot.press("slash", *"log 14", "enter")
        await until(pilot, lambda: app.focused is notes and len(notes.rows) == 12)
        await pilot.press("j", "j")  # Log 014, Log 114, Log 140
        await until(pilot, lambda: notes.highlighted == 2)
        await pilot.press("d")  # trash Log 140: the list is read again, every note of it
        await until(pilot, lambda: len(notes.rows) == 11)
        assert "Log 140" not in titles(notes) and "11 of 154 · filter: log 14" in str(notes.border_title)
        # Not vacuous: a first version put the cursor back on the first match.
        assert notes.highlighted == 2 and titles(notes)[2] == "Log 141"


async def test_a_find_belongs_to_its_note_not_to_another_with_the_same_text(
    services: Services, fixture: Fixture
) -> None:
    # Before: the page dropped its find only when the text changed, so a second note with the same
    # text (a copy, a template) opened with the first note's matches lit and "find: …" under its title.
    twin = NoteDraft(title="Twin", body=HAYSTACK, parent_id=fixture.home, user_updated_time=T0 + 8 * HOUR)
    twin_id = services.store.create_note(twin, actor=ACTOR_IMPORT).id
    async with running(fixture, services) as (app, pilot, notes):
        viewer = app.workspace.query_one(NoteViewer)
        page = await open_haystack(pilot, notes)
        await pilot.press("slash", *"needle", "enter")
        await until(pilot, lambda: app.focused is page and header_says(page) == "find: needle · 1/4")
        row = page.find.hits[0].row if page.find else -1
        notes.focus()
        await pilot.press("j")  # the list's cursor to the twin: the reader follows it
        await until(pilot, lambda: viewer.view is not None and viewer.view.note.id == twin_id)
        await pilot.pause()
        assert viewer.view is not None and viewer.view.note.body == HAYSTACK  # the same text
        assert page.find is None and header_says(page) == ""
        assert not any(hit for _, hit, _ in painted(page, row))  # "the needle one": nothing lit
        page.focus()
        await pilot.press("n")  # no find in this note: n goes nowhere
        assert page.find is None and header_says(page) == ""

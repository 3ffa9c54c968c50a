"""An empty note list says why instead of staying blank: a filter that no title passes says so and
names the key that searches the notes' text, which then starts from the filter's words; an empty
trash or notebook says so (and how to make a note, where one would land)."""

from __future__ import annotations

from tests.integration.ui_support import Fixture, open_services, ready, until
from textual.pilot import Pilot
from textual.widgets import Input

from noted.models import ACTOR_IMPORT
from noted.services import Services
from noted.ui.app import NotedApp
from noted.ui.data import NoteSource, SourceKind
from noted.ui.screens.search import SearchScreen
from noted.ui.widgets.note_list import NoteList
from noted.ui.widgets.note_viewer import NoteScroll
from noted.ui.widgets.notebook_tree import NotebookTree
from noted.ui.widgets.prompt_bar import PromptField

SIZE = (100, 30)


def said(notes: NoteList) -> list[str]:
    """The list's first three painted lines, as text."""
    return [notes.render_line(y).text.strip() for y in range(3)]


async def filtered_to_nothing(pilot: Pilot[None], words: str) -> NoteList:
    app = pilot.app
    assert isinstance(app, NotedApp)
    await ready(pilot)
    notes = app.workspace.query_one(NoteList)
    await pilot.press("slash", *words)
    await until(pilot, lambda: notes.filter.narrowing and not notes.rows and not notes._loading)
    return notes


async def test_a_filter_no_title_passes_says_so_and_ctrl_f_searches_the_notes_for_its_words(
    fixture: Fixture,
) -> None:
    services = open_services(fixture.root)
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=SIZE) as pilot:
            notes = await filtered_to_nothing(pilot, "milk")  # in the Groceries' text, in no title
            assert said(notes) == ["No title holds these words.", "Ctrl+F searches the notes for them.", ""]
            await pilot.press("ctrl+f")
            await until(pilot, lambda: isinstance(app.screen, SearchScreen))
            screen = app.screen
            assert isinstance(screen, SearchScreen)
            assert screen.query_one(Input).value == "milk"  # the filter's words, searched at once
            await until(pilot, lambda: [h.title for h in screen.rows] == ["Groceries"])
    finally:
        services.close()


async def test_the_hint_names_the_search_key_the_keymap_gives(fixture: Fixture) -> None:
    services = open_services(fixture.root)
    services.settings.set("ui.keymap.app.search", "f6")
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=SIZE) as pilot:
            notes = await filtered_to_nothing(pilot, "bread")
            assert said(notes)[:2] == ["No title holds these words.", "F6 searches the notes for them."]
            await pilot.press("f6")
            await until(pilot, lambda: isinstance(app.screen, SearchScreen))
            assert app.screen.query_one(Input).value == "bread"
    finally:
        services.close()


async def test_ctrl_f_from_a_find_in_the_note_searches_the_notes_for_its_words(fixture: Fixture) -> None:
    services = open_services(fixture.root)
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await pilot.press("enter")  # to the open note, where "/" finds
            await until(pilot, lambda: isinstance(app.focused, NoteScroll))
            await pilot.press("slash", *"bread")
            await until(pilot, lambda: isinstance(app.focused, PromptField) and app.focused.value == "bread")
            await pilot.press("ctrl+f")
            await until(pilot, lambda: isinstance(app.screen, SearchScreen))
            assert app.screen.query_one(Input).value == "bread"
            await pilot.press("escape")  # the search closes; a new one starts empty
            await until(pilot, lambda: not isinstance(app.screen, SearchScreen))
            await pilot.press("escape", "escape", "ctrl+f")
            await until(pilot, lambda: isinstance(app.screen, SearchScreen))
            assert app.screen.query_one(Input).value == ""
    finally:
        services.close()


async def test_an_empty_trash_and_an_empty_notebook_say_so(fixture: Fixture) -> None:
    services: Services = open_services(fixture.root)
    empty = services.store.create_folder("Empty", actor=ACTOR_IMPORT)
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            notes = app.workspace.query_one(NoteList)
            assert said(notes)[0] != "No notes here."  # a list with notes draws them
            tree = app.workspace.query_one(NotebookTree)  # the tree chooses what the list shows
            tree.select_source(NoteSource(SourceKind.TRASH, title="Trash"))
            await until(pilot, lambda: notes.source.kind is SourceKind.TRASH and not notes._loading)
            assert not notes.rows and said(notes) == ["The trash is empty.", "", ""]
            tree.select_source(NoteSource(SourceKind.FOLDER, empty.id, "Empty"))
            await until(pilot, lambda: notes.source.id == empty.id and not notes._loading)
            assert said(notes) == ["No notes here.", "Ctrl+N makes one.", ""]
            await pilot.press("ctrl+n")  # the key it names makes a note here
            await until(pilot, lambda: isinstance(app.focused, Input))
            await pilot.press(*"Plans", "enter")
            await until(pilot, lambda: [r.meta.title for r in notes.rows] == ["Plans"])
            assert said(notes)[0] != "No notes here."
    finally:
        services.close()


async def test_a_trash_holding_only_notebooks_names_them_rather_than_say_it_is_empty(
    fixture: Fixture,
) -> None:
    services: Services = open_services(fixture.root)
    outer = services.store.create_folder("Old plans", actor=ACTOR_IMPORT)
    services.store.create_folder("Drafts", parent_id=outer.id, actor=ACTOR_IMPORT)
    services.store.trash_folder(outer.id, actor=ACTOR_IMPORT)  # no notes in either
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            notes = app.workspace.query_one(NoteList)
            tree = app.workspace.query_one(NotebookTree)
            tree.select_source(NoteSource(SourceKind.TRASH, title="Trash"))
            await until(pilot, lambda: notes.source.kind is SourceKind.TRASH and not notes._loading)
            shown = " ".join(notes.render_line(y).text.strip() for y in range(8))
            # Not vacuous: before, it said "The trash is empty." while Empty trash offered to delete
            # the two notebooks. The message is wrapped to the pane, so none of it is cut off.
            assert not notes.rows and 'No notes in the trash, but 1 notebook: "Old plans" (and 1' in shown
            assert "notebook inside). u on it under Trash in the tree restores it." in shown
    finally:
        services.close()

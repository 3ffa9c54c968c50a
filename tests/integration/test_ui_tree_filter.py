"""``/`` in the notebook tree filters it in place (issue 39), as it filters the note list: the
notebooks whose names hold every word typed, with the notebooks they are in (opened), and the fixed
lines (All notes, Tags, To-dos, Trash).

The sample profile: Work (with Projects inside, closed at start) and Home. "proj" matches Projects
only; Work stays as its path although it does not match.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

import pytest
from tests.integration.ui_support import Fixture, open_services, ready, until
from textual.pilot import Pilot
from textual.widgets import Label
from textual.widgets.tree import TreeNode

from noted.models import ACTOR_IMPORT
from noted.services import Services
from noted.ui.app import NotedApp
from noted.ui.data import ALL_NOTES
from noted.ui.screens.search import SearchScreen
from noted.ui.widgets.note_list import NoteList
from noted.ui.widgets.notebook_tree import NotebookTree
from noted.ui.widgets.prompt_bar import PromptBar, PromptField
from noted.ui.widgets.tree_items import TreeItem

SIZE = (120, 40)
EVERY_LINE = ["All notes", "Home", "Work", "Tags", "To-dos", "Trash"]
"""The tree at start (Work closed), as ``lines`` gives it."""
PROJ = ["All notes", "Work", "Projects", "Tags", "To-dos", "Trash"]
"""The tree filtered by "proj": Projects, inside Work (which does not match), and the fixed lines."""


@pytest.fixture
def services(fixture: Fixture) -> Iterator[Services]:
    services = open_services(fixture.root)
    yield services
    services.close()


def lines(tree: NotebookTree) -> list[str]:
    """The names on the tree's visible lines, in order (without their note counts)."""
    shown: list[str] = []

    def walk(node: TreeNode[TreeItem]) -> None:
        for child in node.children:
            shown.append(re.sub(r" [\d,]+$", "", str(child.label)))
            if child.is_expanded:
                walk(child)

    walk(tree.root)
    return shown


def cursor(tree: NotebookTree) -> str | None:
    node = tree.cursor_node
    return node.data.key if node is not None and node.data is not None else None


@asynccontextmanager
async def on_tree(services: Services) -> AsyncIterator[tuple[NotedApp, Pilot[None], NotebookTree]]:
    """The app on the sample profile, the focus on the tree and its cursor on Home."""
    app = NotedApp(services, background=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        tree = app.workspace.query_one(NotebookTree)
        tree.focus()
        await pilot.press("j")  # All notes → Home
        await until(pilot, lambda: app.focused is tree and cursor(tree) == f"folder:{home_id(tree)}")
        yield app, pilot, tree


def home_id(tree: NotebookTree) -> str:
    assert tree._data is not None
    return next(node.folder.id for node in tree._data.roots if node.folder.title == "Home")


async def test_slash_narrows_the_tree_to_the_matches_and_their_path_and_enter_keeps_it(
    services: Services, fixture: Fixture
) -> None:
    async with on_tree(services) as (app, pilot, tree):
        assert lines(tree) == EVERY_LINE  # Projects is hidden in the closed Work at first
        await pilot.press("slash")
        await until(pilot, lambda: isinstance(app.focused, PromptField))
        await pilot.press(*"PROJ")  # case does not count
        # Not vacuous: Work does not match but shows, opened, as the path to Projects; Home is gone.
        await until(pilot, lambda: lines(tree) == PROJ)
        assert tree.filter.title("Notebooks", 0) == "Notebooks · 1 of 3 · filter: PROJ"
        assert str(tree.border_title) == "filter: PROJ"  # what fits the pane: the words typed
        # The cursor (on Home, filtered out) went to the match, and the list follows it.
        await until(pilot, lambda: cursor(tree) == f"folder:{fixture.projects}")
        notes = app.workspace.query_one(NoteList)
        await until(pilot, lambda: [r.meta.title for r in notes.rows] == ["Release plan"])
        await pilot.press("space", "x")  # every word must be in the name: none is
        await until(pilot, lambda: lines(tree) == ["All notes", "Tags", "To-dos", "Trash"])
        assert "0 of 3" in tree.filter.title("Notebooks", 0)
        await pilot.press("backspace", "backspace", "enter")
        await until(pilot, lambda: app.focused is tree)
        bar = app.workspace.query_one(PromptBar)
        assert bar.owner is None and not bar.display
        assert lines(tree) == PROJ and "filter: PROJ" in str(tree.border_title)  # kept
        await pilot.press("enter")  # the tree works as ever on what it shows
        await until(pilot, lambda: app.focused is notes)


async def test_esc_in_the_field_puts_back_the_tree_and_its_cursor(
    services: Services, fixture: Fixture
) -> None:
    async with on_tree(services) as (app, pilot, tree):
        before = cursor(tree)
        await pilot.press("slash", *"proj")
        await until(pilot, lambda: lines(tree) == PROJ and cursor(tree) == f"folder:{fixture.projects}")
        await pilot.press("escape")
        await until(pilot, lambda: app.focused is tree)
        # Work closed again, as the person left it; the cursor back on Home.
        await until(pilot, lambda: lines(tree) == EVERY_LINE and cursor(tree) == before)
        assert str(tree.border_title) == "Notebooks"
        notes = app.workspace.query_one(NoteList)
        await until(pilot, lambda: notes.source.key == before)


async def test_esc_on_the_tree_clears_a_kept_filter_and_keeps_the_notebook_chosen(
    services: Services, fixture: Fixture
) -> None:
    async with on_tree(services) as (app, pilot, tree):
        await pilot.press("slash", *"proj", "enter")
        await until(pilot, lambda: app.focused is tree and lines(tree) == PROJ)
        await pilot.press("escape")  # the tree's Esc while a filter is kept: clears it
        # Every notebook back; the cursor stays on Projects (inside Work, opened to show it).
        await until(pilot, lambda: "Home" in lines(tree))
        await until(pilot, lambda: cursor(tree) == f"folder:{fixture.projects}")
        assert lines(tree) == ["All notes", "Home", "Work", "Projects", "Tags", "To-dos", "Trash"]
        assert str(tree.border_title) == "Notebooks" and app.focused is tree
        await pilot.press("escape")  # no filter now: the screen's Esc, back to the list
        await until(pilot, lambda: isinstance(app.focused, NoteList))


async def test_a_reload_keeps_the_filter(services: Services, fixture: Fixture) -> None:
    async with on_tree(services) as (app, pilot, tree):
        await pilot.press("slash", *"proj", "enter")
        await until(pilot, lambda: app.focused is tree and lines(tree) == PROJ)
        # Notebooks made elsewhere (another process, the assistant): the change feed reloads the tree.
        services.store.create_folder("Old projects", parent_id=fixture.home, actor=ACTOR_IMPORT)
        services.store.create_folder("Garden", actor=ACTOR_IMPORT)
        tree.reload()
        await until(pilot, lambda: "Old projects" in lines(tree))
        assert lines(tree) == [
            "All notes",
            "Home",
            "Old projects",
            "Work",
            "Projects",
            "Tags",
            "To-dos",
            "Trash",
        ]
        assert "2 of 5 · filter: proj" in tree.filter.title("Notebooks", 0)
        assert cursor(tree) == f"folder:{fixture.projects}"  # the reload left the cursor where it was


async def test_the_tree_filter_follows_the_keymap_and_the_palette_offers_it(fixture: Fixture) -> None:
    services = open_services(fixture.root)
    services.settings.set("ui.keymap.tree.filter", "f")
    try:
        async with on_tree(services) as (app, pilot, tree):
            await pilot.press("f", *"work")
            await until(pilot, lambda: lines(tree) == ["All notes", "Work", "Tags", "To-dos", "Trash"])
            await pilot.press("escape")
            await until(pilot, lambda: app.focused is tree and lines(tree) == EVERY_LINE)
            await pilot.press("ctrl+p", *"Filter notebooks")
            await pilot.pause()
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.focused, PromptField))
            assert str(app.workspace.query_one(PromptBar).query_one(Label).content) == "Filter"
            await pilot.press(*"home", "escape")
            await until(pilot, lambda: app.focused is tree and lines(tree) == EVERY_LINE)
            await pilot.press("slash")  # the tree's "/" moved to f: "/" is the search again
            await until(pilot, lambda: isinstance(app.screen, SearchScreen))
    finally:
        services.close()


async def test_a_later_move_wins_over_one_waiting_for_the_layout(services: Services) -> None:
    """A move into a closed notebook waits for the layout; a move asked for meanwhile (the app's
    ``select_source``) must not be undone when the waiting one lands. Before, the waiting move put
    the cursor back (on Joplin the tree's first load did it to a later jump to Conflicts)."""
    async with on_tree(services) as (_, pilot, tree):
        assert tree._data is not None
        work = next(node for node in tree._data.roots if node.folder.title == "Work")
        projects = work.children[0].folder.id
        assert tree._move_to(f"folder:{projects}")  # opens Work: the move waits for the layout
        tree.select_source(ALL_NOTES)  # asked for after it: this one must stand
        await pilot.pause()
        await pilot.pause()
        assert "Projects" in lines(tree)  # Work was opened, and the waiting move had its chance
        assert cursor(tree) == ALL_NOTES.key

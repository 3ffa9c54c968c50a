"""Trashing a notebook and deleting a tag from the tree, as a person triaging expects: the cursor
goes to the next line of the same kind (the previous one for the last, the notebook it was in for
the only one) and the list follows it; the message says what went with the notebook and how to
get it back.

The sample profile: Home (Groceries, Ideas) and Work (Meeting notes, and Projects inside it with
Release plan); the tags "plan" and "work".
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.integration.test_ui_tree_filter import cursor, home_id, on_tree
from tests.integration.ui_support import Fixture, open_services, until

from noted.services import Services
from noted.ui.app import NotedApp
from noted.ui.dialogs.confirm import Confirm
from noted.ui.dialogs.prompt import TextPrompt
from noted.ui.widgets.note_list import NoteList


@pytest.fixture
def services(fixture: Fixture) -> Iterator[Services]:
    services = open_services(fixture.root)
    yield services
    services.close()


def listed(app: NotedApp) -> list[str]:
    return [row.meta.title for row in app.workspace.query_one(NoteList).rows]


def said(app: NotedApp) -> list[str]:
    return [n.message for n in app._notifications]


async def test_a_notebook_trashed_leaves_the_cursor_on_the_next_and_says_what_went(
    services: Services, fixture: Fixture
) -> None:
    async with on_tree(services) as (app, pilot, tree):
        assert cursor(tree) == f"folder:{home_id(tree)}"
        await pilot.press("d")
        # Not vacuous: before, the cursor went to All notes and the list listed every note.
        await until(pilot, lambda: cursor(tree) == f"folder:{fixture.work}")
        await until(pilot, lambda: listed(app) == ["Meeting notes"])
        await until(pilot, lambda: 'Moved "Home" and its 2 notes to the trash' in " ".join(said(app)))
        assert any("u on it under Trash restores it" in s for s in said(app))
        # The last notebook: the one before it (All notes, when it was the only one left).
        await pilot.press("d")
        await until(pilot, lambda: cursor(tree) == "all:")
        await until(
            pilot,
            lambda: 'Moved "Work" with 1 notebook inside and 2 notes to the trash' in " ".join(said(app)),
        )


async def test_the_only_notebook_inside_another_leaves_the_cursor_on_that_one(
    services: Services, fixture: Fixture
) -> None:
    async with on_tree(services) as (app, pilot, tree):
        await pilot.press("j", "space", "j")  # Home → Work, opened, down to Projects inside it
        await until(pilot, lambda: cursor(tree) == f"folder:{fixture.projects}")
        await until(pilot, lambda: listed(app) == ["Release plan"])
        await pilot.press("d")
        await until(pilot, lambda: cursor(tree) == f"folder:{fixture.work}")
        await until(pilot, lambda: listed(app) == ["Meeting notes"])


async def test_a_tag_deleted_leaves_the_cursor_on_the_next_tag_and_the_last_on_to_dos(
    services: Services,
) -> None:
    async with on_tree(services) as (app, pilot, tree):
        assert tree._data is not None
        plan, work = (f"tag:{t.id}" for t in sorted(tree._data.tags, key=lambda t: t.title))
        await pilot.press("G", "k", "k", "space")  # up to Tags (above To-dos and Trash), opened
        await pilot.press("j")
        await until(pilot, lambda: cursor(tree) == plan)
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.press("y")
        # Not vacuous: before, the cursor went to All notes.
        await until(pilot, lambda: cursor(tree) == work)
        await until(pilot, lambda: listed(app) == ["Release plan", "Meeting notes"])
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.press("y")
        await until(pilot, lambda: cursor(tree) == "todos:")  # the last tag: the line after its heading
        await until(pilot, lambda: listed(app) == ["Groceries"])


async def test_a_notebook_restored_from_the_trash_says_what_came_back(
    services: Services, fixture: Fixture
) -> None:
    # Before: u restored it without a word, where trashing it said what went.
    async with on_tree(services) as (app, pilot, tree):
        await pilot.press("j")
        await until(pilot, lambda: cursor(tree) == f"folder:{fixture.work}")
        await pilot.press("d")
        await until(pilot, lambda: "Work" in " ".join(said(app)))
        await pilot.press("G", "space", "j")  # Trash, opened, its first notebook
        await until(pilot, lambda: cursor(tree) == f"trashed:{fixture.work}")
        await pilot.press("u")
        await until(pilot, lambda: not services.store.get_folder(fixture.work).is_trashed)
        await until(
            pilot,
            lambda: 'Restored the notebook "Work" with 1 notebook inside and 2 notes.' in said(app),
        )


async def test_a_notebook_renamed_onto_a_siblings_name_is_refused_and_says_so(services: Services) -> None:
    def top_level() -> list[str]:
        return sorted(f.title for f in services.store.list_folders() if not f.parent_id)

    async with on_tree(services) as (app, pilot, tree):
        await pilot.press("r")  # on Home, the first notebook
        await until(pilot, lambda: isinstance(app.screen, TextPrompt))
        await pilot.press("ctrl+u", *"work", "enter")  # Work is beside it (case aside)
        # Not vacuous: before, the rename went through and two notebooks were called "work"/"Work".
        refused = 'a notebook named "Work" is already at the top level'
        await until(pilot, lambda: refused in " ".join(said(app)))
        assert cursor(tree) == f"folder:{home_id(tree)}" and top_level() == ["Home", "Work"]

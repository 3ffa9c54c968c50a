"""A triage action says what became of every marked note, not only of those it changed.

Three notes marked, one of them in Work already, and moved to Work: the notice read "Moved 2 notes."
with no word of the third; a note moved to its own notebook read "Moved 0 notes.", and ``u`` on a
note not in the trash "Restored 0 notes.".
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from tests.integration.ui_support import Fixture, open_services, ready, until
from textual.pilot import Pilot
from textual.widgets import Input

from noted.ui.app import NotedApp
from noted.ui.dialogs.picker import NotebookPicker
from noted.ui.dialogs.prompt import TextPrompt
from noted.ui.widgets.note_list import NoteList


def said(app: NotedApp) -> list[str]:
    return [n.message for n in app._notifications]


@asynccontextmanager
async def on_list(fixture: Fixture) -> AsyncIterator[tuple[NotedApp, Pilot[None], NoteList]]:
    """The app on the sample profile, its note list focused."""
    services = open_services(fixture.root)
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await ready(pilot)
            notes = app.workspace.query_one(NoteList)
            notes.focus()
            yield app, pilot, notes
    finally:
        services.close()


async def test_a_move_says_which_marked_notes_were_there_already(fixture: Fixture) -> None:
    async with on_list(fixture) as (app, pilot, notes):

        async def move_to_work(*note_ids: str) -> None:
            for note_id in note_ids:
                notes.select_note(note_id)
                await pilot.press("space")
            await until(pilot, lambda: len(notes.marked) == len(note_ids))
            await pilot.press("m")
            await until(
                pilot, lambda: isinstance(app.screen, NotebookPicker) and isinstance(app.focused, Input)
            )
            await pilot.press(*"work", "enter")  # Work comes before Work / Projects
            await until(pilot, lambda: not notes.marked)

        # The meeting is in Work already (not vacuous: the other two are not, and do move).
        await move_to_work(fixture.meeting, fixture.groceries, fixture.ideas)
        await until(pilot, lambda: any(line.startswith("Moved") for line in said(app)))
        assert said(app) == ["Moved 2 notes. 1 note was there already. (z undoes)"]
        assert app.services.store.get_note(fixture.groceries).parent_id == fixture.work
        app.clear_notifications()
        await move_to_work(fixture.meeting)
        await until(pilot, lambda: bool(said(app)))
        assert said(app) == ["Nothing moved: 1 note was there already."]


async def test_restoring_notes_not_in_the_trash_says_so(fixture: Fixture) -> None:
    async with on_list(fixture) as (app, pilot, _notes):
        await pilot.press("u")
        await until(pilot, lambda: bool(said(app)))
        assert said(app) == ["Nothing restored: 1 note was not in the trash."]


async def test_completing_says_which_marked_notes_were_not_open_to_dos(fixture: Fixture) -> None:
    """A to-do and a plain note marked, ``c`` read "Completed 1 note." with no word of the other."""
    async with on_list(fixture) as (app, pilot, notes):
        for note_id in (fixture.groceries, fixture.ideas):  # a to-do, then a plain note
            notes.select_note(note_id)
            await pilot.press("space")
        await pilot.press("c")
        await until(pilot, lambda: bool(said(app)))
        assert said(app) == ["Completed 1 note. 1 note was not an open to-do. (z undoes)"]
        assert app.services.store.get_note(fixture.groceries).todo_completed


async def press_on(app: NotedApp, pilot: Pilot[None], notes: NoteList, key: str, *note_ids: str) -> list[str]:
    """Mark ``note_ids``, press ``key`` and wait for what the app says."""
    app.clear_notifications()
    for note_id in note_ids:
        notes.select_note(note_id)
        await pilot.press("space")
    await until(pilot, lambda: len(notes.marked) == len(note_ids))
    await pilot.press(key)
    await until(pilot, lambda: bool(said(app)))
    return said(app)


async def test_switching_to_dos_says_which_marked_notes_were_of_that_kind(fixture: Fixture) -> None:
    """Two plain notes and a to-do marked, ``T`` read "Made 2 notes into to-dos." with no word of the
    to-do. The first of them in the list decides the way: a plain note (by time), the to-do (by title)."""
    async with on_list(fixture) as (app, pilot, notes):
        mixed = (fixture.ideas, fixture.meeting, fixture.groceries)  # plain, plain, to-do
        said_then = await press_on(app, pilot, notes, "T", *mixed)
        assert said_then == ["Made 2 notes into to-dos. 1 note was a to-do already. (z undoes)"]
        store = app.services.store
        assert all(store.get_note(n).is_todo for n in (fixture.ideas, fixture.meeting, fixture.groceries))
        await until(pilot, lambda: not notes.marked)
        await pilot.press("z")  # two plain notes and a to-do again
        await until(pilot, lambda: not store.get_note(fixture.ideas).is_todo)
        await pilot.press("s")  # by title: Groceries, the to-do, comes first
        await until(pilot, lambda: "title" in str(notes.border_title))
        said_now = await press_on(app, pilot, notes, "T", *mixed)
        assert said_now == ["Made 1 note into a plain note. 2 notes were plain notes already. (z undoes)"]


async def test_tagging_says_which_marked_notes_needed_no_change(fixture: Fixture) -> None:
    """The meeting (tagged work) and the ideas marked, ``t work`` read "Tags changed on 1 note."
    with no word of the meeting, which had the tag already."""
    async with on_list(fixture) as (app, pilot, notes):
        for note_id in (fixture.meeting, fixture.ideas):
            notes.select_note(note_id)
            await pilot.press("space")
        await until(pilot, lambda: len(notes.marked) == 2)
        await pilot.press("t")
        await until(pilot, lambda: isinstance(app.screen, TextPrompt) and isinstance(app.focused, Input))
        await pilot.press(*"work", "enter")
        await until(pilot, lambda: bool(said(app)))
        assert said(app) == ["Tags changed on 1 note. 1 note needed no change. (z undoes)"]
        tags = {t.title for t in app.services.store.note_tags(fixture.ideas)}
        assert tags == {"work"}  # not vacuous: the other note did change

"""The note list's tag prompt (``t``): names with spaces, quotes, and what it says it changed.

Each check reads the tags the store holds afterwards, not only the line the app shows.
"""

from __future__ import annotations

from tests.integration.ui_support import Fixture, open_services, until
from textual.notifications import Notification
from textual.pilot import Pilot

from noted.models import ACTOR_USER
from noted.ops import notes as ops
from noted.ui.app import NotedApp
from noted.ui.dialogs.prompt import TextPrompt
from noted.ui.widgets.note_list import NoteList


async def _tag(pilot: Pilot[None], app: NotedApp, typed: str) -> str:
    """``t``, ``typed``, Enter on the highlighted note; the line the app said after."""
    said = _last(app)
    await pilot.press("t")
    await until(pilot, lambda: isinstance(app.screen, TextPrompt))
    await pilot.press(*typed, "enter")
    # A new last line, not a longer list: an earlier line may time out meanwhile on a slow machine.
    await until(pilot, lambda: _last(app) not in (None, said))
    last = _last(app)
    assert last is not None
    return last.message


def _last(app: NotedApp) -> Notification | None:
    return next(reversed(list(app._notifications)), None)


async def test_tags_with_spaces_are_quoted_and_only_changed_notes_count(fixture: Fixture) -> None:
    services = open_services(fixture.root)
    store = services.store
    ops.edit_tags(store, fixture.meeting, ["Q3 plan"], [], actor=ACTOR_USER)
    app = NotedApp(services, background=False)

    def tags() -> set[str]:
        return {t.title for t in store.note_tags(fixture.meeting)}

    try:
        async with app.run_test(size=(100, 30)) as pilot:
            notes = app.workspace.query_one(NoteList)
            await until(pilot, lambda: len(notes.rows) == 4)
            notes.select_note(fixture.meeting)
            assert tags() == {"work", "Q3 plan"}
            said = await _tag(pilot, app, "work")  # already tagged so: nothing changed, and it says so
            assert said == "No tags changed." and tags() == {"work", "Q3 plan"}
            # quotes group words and are never part of a name (they made `plan"`)
            said = await _tag(pilot, app, '-"Q3 plan", "Q4 goal" urgent')
            assert tags() == {"work", "Q4 goal", "urgent"}
            assert said.startswith("Tags changed on 1 note")
            said = await _tag(pilot, app, '"Q5 plan, -work')  # a quote left open: one line, no change
            assert "quote is not closed" in said and tags() == {"work", "Q4 goal", "urgent"}
            assert "Q5" not in {t.title for t in store.list_tags()}
    finally:
        services.close()


async def test_z_takes_away_the_tags_the_tagging_made(fixture: Fixture) -> None:
    services = open_services(fixture.root)
    store = services.store
    app = NotedApp(services, background=False)
    titles = {t.title for t in store.list_tags()}
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            notes = app.workspace.query_one(NoteList)
            await until(pilot, lambda: len(notes.rows) == 4)
            notes.select_note(fixture.meeting)
            said = await _tag(pilot, app, "fresh, -work")
            assert said.startswith("Tags changed on 1 note") and "fresh" in {
                t.title for t in store.list_tags()
            }
            await pilot.press("z")
            await until(pilot, lambda: "work" in {t.title for t in store.note_tags(fixture.meeting)})
            await until(pilot, lambda: (last := _last(app)) is not None and last.message.startswith("Undone"))
            # Not vacuous: before, "fresh" stayed behind as a tag no note carries (empty in the tree).
            assert {t.title for t in store.list_tags()} == titles
            assert {t.title for t in store.note_tags(fixture.meeting)} == {"work"}
    finally:
        services.close()

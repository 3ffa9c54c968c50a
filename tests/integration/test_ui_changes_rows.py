"""The Changes view's rows: where the cursor goes after ``a`` or ``r`` and at the ends of the list,
a row on a narrow screen, and the diff of a change that left the text as it was.

The proposals are made through the real tool registry as an outside AI app would, and each check
reads the store too: a cursor back on the top row made a second ``a`` trash a note nobody looked at.
"""

from __future__ import annotations

from typing import Any

from tests.integration.test_ui_changes import BOT, _open
from tests.integration.ui_support import Fixture, open_services, ready, until
from textual.pilot import Pilot
from textual.widgets import Static

from noted.models import NotePatch
from noted.ops import notes as ops
from noted.services import Services
from noted.ui.app import NotedApp
from noted.ui.screens.changes import ChangesList, ChangesScreen
from noted.ui.widgets.note_list import NoteList


async def _propose(services: Services, fixture: Fixture) -> None:
    """p1 and p2 update the ideas and the groceries, p3 trashes the meeting (newest, so on top)."""
    for tool in ("update_note", "delete_note"):
        services.settings.set(f"ai.tool.{tool}.enabled", True)
    ctx = services.tool_context(BOT)
    ctx.writes_wait = True
    for name, args in (
        ("update_note", {"id": fixture.ideas, "append": "From p1."}),
        ("update_note", {"id": fixture.groceries, "append": "From p2."}),
        ("delete_note", {"id": fixture.meeting}),
    ):
        answer = await services.registry.call(name, args, ctx)
        assert answer.ok and answer.payload is not None and answer.payload["status"] == "pending_review"


def _cursor(screen: ChangesScreen) -> str | None:
    listing = screen.query_one(ChangesList)
    assert listing.highlighted is not None
    return listing.get_option_at_index(listing.highlighted).id


async def _press(pilot: Pilot[Any], screen: ChangesScreen, key: str, gone: str) -> None:
    """``key`` on row ``gone``; back when the rows were read again without it."""
    loads = screen.loads
    await pilot.press(key)
    await until(pilot, lambda: screen.loads > loads and gone not in {r.ref for r in screen.rows})


async def test_after_a_the_cursor_stays_where_the_settled_row_was(fixture: Fixture) -> None:
    services = open_services(fixture.root)
    try:
        await _propose(services, fixture)
        app = NotedApp(services, background=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await ready(pilot)
            screen = await _open(pilot)
            assert [r.ref for r in screen.shown] == ["p3", "p2", "p1"]
            await pilot.press("j", "j")
            assert _cursor(screen) == "p1"
            await pilot.press("j")  # past the last row: it stays (wrapping round put it on p3)
            assert _cursor(screen) == "p1"
            await _press(pilot, screen, "a", "p1")
            assert "From p1." in services.store.get_note(fixture.ideas).body
            # p1 is the change it made now, in p1's place: the cursor is on it, not on p3
            became = _cursor(screen)
            assert became is not None and not became.startswith("p")
            assert next(r for r in screen.rows if r.ref == became).note_id == fixture.ideas
            await pilot.press("k")  # up to p2, the middle row
            assert _cursor(screen) == "p2"
            await _press(pilot, screen, "r", "p2")  # turned down: the row that took its place is the next one
            assert _cursor(screen) == became
            await _press(
                pilot, screen, "a", became
            )  # the change reviewed: the cursor goes to the row now there, p3
            assert _cursor(screen) == "p3"
            await pilot.press("k")  # before the first row: it stays
            assert _cursor(screen) == "p3"
        assert services.store.get_note(fixture.meeting).deleted_time == 0  # p3 was never applied
        assert "From p2." not in services.store.get_note(fixture.groceries).body
    finally:
        services.close()


async def test_accepting_a_change_mid_list_moves_to_the_next_change(fixture: Fixture) -> None:
    services = open_services(fixture.root)
    try:
        services.review.refresh()
        for note in (fixture.ideas, fixture.groceries, fixture.meeting):
            services.store.update_note(note, NotePatch(append="\nmore"), actor=BOT)
        app = NotedApp(services, background=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await ready(pilot)
            screen = await _open(pilot)
            refs = [r.ref for r in screen.shown]
            await pilot.press("j")
            assert _cursor(screen) == refs[1]
            await _press(pilot, screen, "a", refs[1])
            assert _cursor(screen) == refs[2]
    finally:
        services.close()


async def test_at_60_columns_a_proposal_row_says_what_it_would_do(fixture: Fixture) -> None:
    """Not vacuous: beside the time and the actor the summary had six columns, cut to ``waits…``,
    so an update and a delete looked alike."""
    services = open_services(fixture.root)
    try:
        await _propose(services, fixture)
        app = NotedApp(services, background=False)
        async with app.run_test(size=(60, 15)) as pilot:
            await ready(pilot)
            screen = await _open(pilot)
            listing = screen.query_one(ChangesList)
            text = {o.id: str(o.prompt) for o in listing.options}
            assert "waits for you: delete note" in text["p3"]
            assert "waits for you: update note" in text["p1"]
            for line in text["p3"].splitlines():
                assert len(line) <= listing.content_region.width
    finally:
        services.close()


async def test_the_diff_of_a_change_with_no_text_says_what_it_did(fixture: Fixture) -> None:
    """Not vacuous: a note an AI app trashed showed "(no change to the text)"."""
    services = open_services(fixture.root)
    try:
        services.review.refresh()
        ops.trash_note(services.store, fixture.ideas, actor=BOT)
        ops.move_note(services.store, fixture.groceries, fixture.work, actor=BOT)
        app = NotedApp(services, background=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: len(app.workspace.query_one(NoteList).rows) == 3)  # ideas trashed
            screen = await _open(pilot)
            diff = screen.query_one("#changes-diff", Static)
            said = {}
            for row in screen.shown:
                screen.query_one(ChangesList).highlighted = [
                    o.id for o in screen.query_one(ChangesList).options
                ].index(row.ref)
                await pilot.press("enter")
                await until(pilot, lambda: screen.diff_open and str(diff.render()).strip() != "")
                said[row.note_id] = str(diff.render())
                await pilot.press("escape")
                await until(pilot, lambda: not screen.diff_open)
                diff.update("")
            assert said[fixture.ideas].strip() == "Moved to the trash"
            assert said[fixture.groceries].strip() == 'Moved to "Work"'
    finally:
        services.close()


async def test_on_a_narrow_screen_the_empty_view_says_all_of_why(fixture: Fixture) -> None:
    """At 80 columns and less the one line saying what the view is for was cut (``to diff,…``), so
    it never said what can be done here. Not vacuous: the sentence is longer than 60 columns."""
    from noted.ui.screens.changes import NOTHING_WAITS

    assert len(NOTHING_WAITS) > 60
    services = open_services(fixture.root)
    try:
        app = NotedApp(services, background=False)
        async with app.run_test(size=(60, 20)) as pilot:
            await ready(pilot)
            await pilot.press("f3")
            await until(pilot, lambda: isinstance(app.screen, ChangesScreen) and app.screen.loads > 0)
            listing = app.screen.query_one(ChangesList)
            lines = str(listing.options[0].prompt).splitlines()
            assert " ".join(line.strip() for line in lines) == NOTHING_WAITS
            assert all(len(line) <= listing.content_region.width for line in lines)
    finally:
        services.close()

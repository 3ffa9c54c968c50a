"""The Changes view from the keyboard: F3 (or the palette), Enter for the diff, a/r/o/Space and /.

The changes are made through the store as an outside AI app (``mcp:bot``) and the assistant would,
so each key is checked against what the store holds afterwards, not only what the screen says.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from tests.integration.ui_support import Fixture, open_services, ready, until
from textual.pilot import Pilot
from textual.widgets import Static

from noted.models import ACTOR_USER, NotePatch, assistant_actor, mcp_actor
from noted.services import Services
from noted.store.review import EntryState
from noted.ui.app import NotedApp
from noted.ui.dialogs.conflict import ConflictView
from noted.ui.screens.changes import ChangesList, ChangesScreen
from noted.ui.widgets.note_viewer import NoteViewer

BOT = mcp_actor("bot")
CHAT = assistant_actor("c1")


@pytest.fixture
async def app_services(fixture: Fixture) -> AsyncIterator[tuple[NotedApp, Services]]:
    services = open_services(fixture.root)
    services.review.refresh()  # the review has read the feed up to here
    store = services.store
    store.update_note(fixture.ideas, NotePatch(append="\nA model's idea."), actor=BOT)
    store.tag_note(fixture.groceries, ["shopping"], actor=CHAT)
    store.update_note(fixture.meeting, NotePatch(title="Weekly meeting"), actor=BOT)
    app = NotedApp(services, background=False)
    try:
        yield app, services
    finally:
        services.close()


async def _open(pilot: Pilot[Any]) -> ChangesScreen:
    await pilot.press("f3")
    await until(pilot, lambda: isinstance(pilot.app.screen, ChangesScreen) and bool(pilot.app.screen.rows))
    screen = pilot.app.screen
    assert isinstance(screen, ChangesScreen)
    return screen


def _pending(services: Services) -> set[str]:
    return {e.note_id for e in services.review.pending()}


async def test_enter_shows_the_diff_and_a_accepts(
    app_services: tuple[NotedApp, Services], fixture: Fixture
) -> None:
    app, services = app_services
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        screen = await _open(pilot)
        assert [r.note_id for r in screen.shown] == [fixture.meeting, fixture.groceries, fixture.ideas]
        assert screen.query_one(ChangesList).highlighted == 1  # the first change, under its note's title
        await pilot.press("down", "down", "enter")  # the groceries' heading is skipped: the ideas
        diff = screen.query_one("#changes-diff", Static)
        await until(pilot, lambda: "A model's idea." in str(diff.render()))
        await pilot.press("a")
        await until(pilot, lambda: fixture.ideas not in {r.note_id for r in screen.rows})
        assert _pending(services) == {fixture.meeting, fixture.groceries}
        ideas = [e for e in services.review.rows.entries(state=EntryState.ACCEPTED)]
        assert [e.note_id for e in ideas] == [fixture.ideas]


async def test_space_marks_several_and_r_reverts_them(
    app_services: tuple[NotedApp, Services], fixture: Fixture
) -> None:
    app, services = app_services
    title = services.store.get_note(fixture.meeting).title
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        screen = await _open(pilot)
        await pilot.press(
            "space", "space"
        )  # the meeting, then (Space moves on, past a heading) the groceries
        assert screen.marked == {r.ref for r in screen.shown[:2]}
        await pilot.press("r")
        await until(pilot, lambda: [r.note_id for r in screen.rows] == [fixture.ideas])
    assert title == "Weekly meeting"
    assert services.store.get_note(fixture.meeting).title != "Weekly meeting"
    assert [t.title for t in services.store.note_tags(fixture.groceries)] == []


async def test_revert_after_the_person_edited_opens_the_conflict_view(
    app_services: tuple[NotedApp, Services], fixture: Fixture
) -> None:
    app, services = app_services
    services.store.update_note(fixture.ideas, NotePatch(append="\nMine."), actor=ACTOR_USER)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        screen = await _open(pilot)
        await pilot.press("/")
        await pilot.press(*"bot ideas")
        await until(pilot, lambda: [r.note_id for r in screen.shown] == [fixture.ideas])
        await pilot.press("enter", "r")  # Enter leaves the filter for the list
        await until(pilot, lambda: isinstance(pilot.app.screen, ConflictView))
        await pilot.press("enter")  # Keep both is focused
        await until(pilot, lambda: fixture.ideas not in _pending(services))
    body = services.store.get_note(fixture.ideas).body
    assert body.endswith("Mine.")  # the person's text stays the note's
    copies = [
        n
        for n in services.store.list_notes()
        if n.title.startswith(services.store.get_note(fixture.ideas).title + " (conflict")
    ]
    assert len(copies) == 1 and "A model's idea." not in services.store.get_note(copies[0].id).body


async def test_o_opens_the_note_and_escape_closes(
    app_services: tuple[NotedApp, Services], fixture: Fixture
) -> None:
    app, _ = app_services
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await _open(pilot)
        await pilot.press("o")
        await until(pilot, lambda: not isinstance(pilot.app.screen, ChangesScreen))
        viewer = app.workspace.query_one(NoteViewer)
        await until(pilot, lambda: viewer.view is not None and viewer.view.note.id == fixture.meeting)
        await _open(pilot)
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(pilot.app.screen, ChangesScreen))


async def test_a_proposal_waits_across_a_restart_and_a_applies_it(fixture: Fixture) -> None:
    """A write an AI app proposed, shown after the app starts again; ``a`` applies it as the app."""
    services = open_services(fixture.root)
    try:
        services.settings.set("ai.tool.update_note.enabled", True)
        ctx = services.tool_context(BOT)
        ctx.writes_wait = True
        answer = await services.registry.call(
            "update_note", {"id": fixture.ideas, "append": "Proposed."}, ctx
        )
        assert answer.ok and answer.payload is not None and answer.payload["status"] == "pending_review"
    finally:
        services.close()
    services = open_services(fixture.root)  # the app starts again, on the same profile
    try:
        assert "Proposed." not in services.store.get_note(fixture.ideas).body
        app = NotedApp(services, background=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await ready(pilot)
            screen = await _open(pilot)
            assert [r.ref for r in screen.shown] == [answer.payload["proposal"]]
            await pilot.press("a")
            await until(pilot, lambda: "Proposed." in services.store.get_note(fixture.ideas).body)
        assert services.store.note_history(fixture.ideas)[0].actor == BOT
    finally:
        services.close()

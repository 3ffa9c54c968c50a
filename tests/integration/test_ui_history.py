"""A note's history in the app (issue 39): ``h`` in the reader (or *Note history* in the palette)
lists the revisions newest first with actor and time; ``Enter`` diffs one against the one before,
``Space`` twice and ``d`` diffs any two, ``r`` restores one after a confirmation.

The revisions are made through the store by three actors, so each row's actor and each diff is
checked against text only one revision holds; the restore is checked in the store afterwards (a
new revision by ``user`` whose text is the restored one's), not only on the screen.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from tests.integration.ui_support import Fixture, open_services, ready, until
from textual.command import CommandList, CommandPalette
from textual.pilot import Pilot
from textual.widgets import Label, Static

from noted.models import ACTOR_USER, NotePatch, assistant_actor, mcp_actor, new_id
from noted.services import Services
from noted.ui.app import NotedApp
from noted.ui.dialogs.confirm import Confirm
from noted.ui.dialogs.keys import KeysOverlay
from noted.ui.messages import OpenNote
from noted.ui.screens.history import HistoryScreen, RevisionList
from noted.ui.widgets.note_viewer import NoteScroll, NoteViewer

BOT = mcp_actor("bot")
CHAT = assistant_actor("c1")


@pytest.fixture
async def app_services(fixture: Fixture) -> AsyncIterator[tuple[NotedApp, Services]]:
    services = open_services(fixture.root)
    store = services.store
    store.update_note(fixture.meeting, NotePatch(append="A line the bot added.\n"), actor=BOT)
    store.update_note(fixture.meeting, NotePatch(append="A line the assistant added.\n"), actor=CHAT)
    app = NotedApp(services, background=False)
    try:
        yield app, services
    finally:
        services.close()


async def _open(pilot: Pilot[Any], note_id: str) -> HistoryScreen:
    app = pilot.app
    assert isinstance(app, NotedApp)
    await ready(pilot)
    viewer = app.workspace.query_one(NoteViewer)
    app.post_message(OpenNote(note_id))
    await until(pilot, lambda: viewer.view is not None and viewer.view.note.id == note_id)
    app.workspace.query_one(NoteScroll).focus()
    await pilot.press("h")
    await until(pilot, lambda: isinstance(app.screen, HistoryScreen) and app.screen.loads > 0)
    screen = app.screen
    assert isinstance(screen, HistoryScreen)
    return screen


def _diff(screen: HistoryScreen) -> str:
    return str(screen.query_one("#history-diff", Static).render())


async def test_h_lists_the_revisions_newest_first_with_their_actors(
    app_services: tuple[NotedApp, Services], fixture: Fixture
) -> None:
    app, services = app_services
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await _open(pilot, fixture.meeting)
        assert [r.actor for r in screen.revisions] == [CHAT, BOT, "import"]
        assert screen.revisions == services.store.note_history(fixture.meeting, bodies=False)
        listing = screen.query_one(RevisionList)
        assert listing.option_count == 3
        first = str(listing.get_option_at_index(0).prompt)
        assert CHAT in first and str(screen.revisions[0].id) in first
        assert "3 revisions" in str(screen.query_one("#history-title", Label).render())
        await pilot.press("f1")  # a modal screen leaves the app's keys out: the screen has its own F1
        await until(pilot, lambda: isinstance(app.screen, KeysOverlay))
        overlay = app.screen
        assert isinstance(overlay, KeysOverlay)
        assert "marks up to two and **d** shows the diff between them" in overlay.help_text
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen)
        await pilot.press("escape")
        assert not isinstance(app.screen, HistoryScreen)


async def test_a_long_actor_is_cut_to_its_column(
    app_services: tuple[NotedApp, Services], fixture: Fixture
) -> None:
    """A conversation's actor is ``assistant:`` and a 32-character id: the row shows its first
    characters and an ellipsis, and every row's edits column starts at the same place."""
    app, services = app_services
    long_chat = assistant_actor(new_id())
    services.store.update_note(fixture.meeting, NotePatch(append="One more.\n"), actor=long_chat)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await _open(pilot, fixture.meeting)
        listing = screen.query_one(RevisionList)
        rows = [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]
        assert screen.revisions[0].actor == long_chat
        assert long_chat[:17] + "…" in rows[0] and long_chat not in rows[0]
        assert CHAT in rows[1]
        assert len({row.index(" edit") for row in rows}) == 1, rows


async def test_enter_diffs_a_revision_against_the_one_before(
    app_services: tuple[NotedApp, Services], fixture: Fixture
) -> None:
    app, _ = app_services
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await _open(pilot, fixture.meeting)
        await pilot.press("j", "enter")  # the bot's revision: against the imported one
        await until(pilot, lambda: "+A line the bot added." in _diff(screen))
        assert "assistant" not in _diff(screen)  # not the newest's change
        await pilot.press("k", "enter")  # the assistant's: only its own line is new
        await until(pilot, lambda: "+A line the assistant added." in _diff(screen))
        assert "+A line the bot added." not in _diff(screen)


async def test_space_marks_two_and_d_diffs_them(
    app_services: tuple[NotedApp, Services], fixture: Fixture
) -> None:
    app, _ = app_services
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await _open(pilot, fixture.meeting)
        await pilot.press("d")
        assert "Mark two" in str(screen.query_one("#history-message", Label).render())
        # The newest and the imported one: both added lines show, the older revision on the "-" side.
        await pilot.press("space", "j", "space", "d")
        assert screen.marked == [screen.revisions[0].id, screen.revisions[2].id]
        await until(pilot, lambda: "+A line the assistant added." in _diff(screen))
        text = _diff(screen)
        assert "+A line the bot added." in text
        assert f"--- revision {screen.revisions[2].id}" in text


async def test_r_restores_a_revision_as_a_new_one_after_asking(
    app_services: tuple[NotedApp, Services], fixture: Fixture
) -> None:
    app, services = app_services
    store = services.store
    imported = store.note_history(fixture.meeting)[-1]
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await _open(pilot, fixture.meeting)
        await pilot.press("r")  # the newest is the note as it is: nothing to ask or write
        message = screen.query_one("#history-message", Label)
        await until(pilot, lambda: "nothing to restore" in str(message.render()))
        assert not isinstance(app.screen, Confirm)
        await pilot.press("G", "r")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.press("escape")  # the harmless answer: nothing is written
        await until(pilot, lambda: app.screen is screen)
        assert len(store.note_history(fixture.meeting)) == 3
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.press("y")
        await until(pilot, lambda: len(screen.revisions) == 4)
        assert store.get_note(fixture.meeting).body == imported.body
        newest = store.note_history(fixture.meeting)[0]
        assert newest.actor == ACTOR_USER and newest.body == imported.body
        assert newest.label == f"restored from rev {imported.id}"  # and the list shows it on its row
        listing = screen.query_one(RevisionList)
        assert f"(restored from rev {imported.id})" in str(listing.get_option_at_index(0).prompt)
        assert "Restored revision" in str(screen.query_one("#history-message", Label).render())
        await pilot.press("escape")
        viewer = app.workspace.query_one(NoteViewer)
        # The reader reads the note again: the lines the restore took away are gone from it.
        await until(pilot, lambda: viewer.view is not None and "bot added" not in viewer.view.note.body)


async def test_r_on_the_top_row_after_a_save_elsewhere_restores_it(
    app_services: tuple[NotedApp, Services], fixture: Fixture
) -> None:
    """The list is read when it opens; a save from another process lands after. ``r`` on its top
    row, no longer the note as it is, said "nothing to restore", and only closing the history and
    opening it again let the person bring that text back. Not vacuous: the note's text is
    checked, and the top row's text is not the note's after the other save."""
    app, services = app_services
    store = services.store
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await _open(pilot, fixture.meeting)
        top = store.note_history(fixture.meeting)[0]
        store.update_note(fixture.meeting, NotePatch(append="A line from elsewhere.\n"), actor=BOT)
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.press("y")
        await until(pilot, lambda: len(screen.revisions) == 5)
        assert store.get_note(fixture.meeting).body == top.body
        assert "from elsewhere" in store.note_history(fixture.meeting)[1].body  # (kept in the history)


async def test_r_on_a_note_trashed_meanwhile_writes_nothing_and_says_why(
    app_services: tuple[NotedApp, Services], fixture: Fixture
) -> None:
    app, services = app_services
    store = services.store
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await _open(pilot, fixture.meeting)
        store.trash_note(fixture.meeting, actor=BOT)  # from another process, while the list is open
        await pilot.press("G", "r")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.press("y")
        message = screen.query_one("#history-message", Label)
        await until(pilot, lambda: "is in the trash; restore it first" in str(message.render()))
        assert len(store.note_history(fixture.meeting)) == 3 and store.get_note(fixture.meeting).is_trashed


async def test_the_palette_opens_the_history(
    app_services: tuple[NotedApp, Services], fixture: Fixture
) -> None:
    app, _ = app_services
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        viewer = app.workspace.query_one(NoteViewer)
        await until(pilot, lambda: viewer.view is not None)
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"note history")

        def offered() -> bool:
            option = app.screen.query_one(CommandList).highlighted_option
            return option is not None and str(option.prompt).startswith("Note history")

        await until(pilot, offered)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, HistoryScreen))

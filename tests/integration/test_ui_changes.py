"""The Changes view from the keyboard: F3 (or the palette), Enter for the diff, a/r/o/Space and /.

The changes are made through the store as an outside AI app (``mcp:bot``) and the assistant would,
so each key is checked against what the store holds afterwards, not only what the screen says.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from tests.integration.ui_support import Fixture, open_services, ready, until
from textual.pilot import Pilot
from textual.widgets import Static, TextArea

from noted.models import ACTOR_USER, NoteDraft, NotePatch, assistant_actor, mcp_actor, now_ms
from noted.services import Services
from noted.store.review import EntryState
from noted.ui.app import NotedApp
from noted.ui.dialogs.conflict import ConflictView, ProposalConflictView
from noted.ui.dialogs.keys import KeysOverlay
from noted.ui.dialogs.merge import MergeEditor
from noted.ui.screens.changes import ChangeDiff, ChangesList, ChangesScreen
from noted.ui.widgets.key_bar import KeyBar
from noted.ui.widgets.note_viewer import NoteScroll, NoteViewer

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


async def _press_o(pilot: Pilot[Any], app: NotedApp, note_id: str) -> NoteViewer:
    """``o``: the view closes and the reader shows ``note_id``."""
    await pilot.press("o")
    await until(pilot, lambda: not isinstance(pilot.app.screen, ChangesScreen))
    viewer = app.workspace.query_one(NoteViewer)
    await until(pilot, lambda: viewer.view is not None and viewer.view.note.id == note_id)
    return viewer


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


async def test_the_diff_takes_the_lists_place_with_its_own_keys_and_f1(
    app_services: tuple[NotedApp, Services], fixture: Fixture
) -> None:
    """At 80×24 the diff has the list's height (sharing it left the change below the box), the
    key bar is the view's own (not the reader's behind it), and F1 explains the view."""
    app, services = app_services
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        screen = await _open(pilot)
        listing, diff_box = screen.query_one(ChangesList), screen.query_one(ChangeDiff)
        bar = screen.query_one(KeyBar)
        assert "Accept" in str(bar.render()) and "Edit" not in str(bar.render())  # not the reader's keys
        box = screen.query_one("#changes-box").region
        assert box.bottom <= app.size.height - 2  # the status line and the key bar stay in sight
        await pilot.press("down", "down", "enter")
        diff = screen.query_one("#changes-diff", Static)
        await until(pilot, lambda: "A model's idea." in str(diff.render()) and diff_box.has_focus)
        await pilot.pause()
        assert not listing.display or listing.region.height == 0
        assert diff_box.region.height >= 15  # the list's place, not half of it
        assert "Ideas" in str(screen.query_one("#changes-title").render())
        assert "Back" in str(bar.render())
        await pilot.press("escape")  # back to the list, not out of the view
        await until(pilot, lambda: listing.has_focus)
        assert isinstance(app.screen, ChangesScreen) and listing.region.height > 0
        await pilot.press("enter")
        await until(pilot, lambda: diff_box.has_focus)
        await pilot.press("enter")  # Enter goes back too
        await until(pilot, lambda: listing.has_focus)
        await pilot.press("f1")  # a modal screen leaves the app's keys out: the view has its own F1
        await until(pilot, lambda: isinstance(app.screen, KeysOverlay))
        overlay = app.screen
        assert isinstance(overlay, KeysOverlay)
        said = " ".join(overlay.help_text.split())
        assert "shows the diff in the list's place (**Esc** or **Enter** goes back)" in said
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen)
        await pilot.press("enter")
        await until(pilot, lambda: diff_box.has_focus)
        await pilot.press("f1", "escape")  # the help over a diff: back to the diff, not the list
        await until(pilot, lambda: app.screen is screen and screen.loads >= 2)
        await pilot.pause()
        assert diff_box.display and diff_box.has_focus and not listing.display
        await pilot.press("a")  # from the diff: the change it shows
        await until(
            pilot, lambda: fixture.ideas not in {r.note_id for r in screen.rows} and listing.has_focus
        )
    assert fixture.ideas not in _pending(services)


async def test_o_opens_a_long_note_scrolled_to_the_change(fixture: Fixture) -> None:
    """The change is at the end of a long note: ``o`` shows that line, not the note's top."""
    services = open_services(fixture.root)
    services.review.refresh()
    services.store.update_note(fixture.release, NotePatch(append="\nA model's idea, at the end."), actor=BOT)
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await ready(pilot)
            await _open(pilot)
            page = (await _press_o(pilot, app, fixture.release)).query_one(NoteScroll)
            await pilot.pause()

            def shown() -> list[str]:
                top = round(page.scroll_y)
                return [page.line_text(row) for row in range(top, top + page.size.height)]

            # Not vacuous: the note runs some 130 lines, so opened at its top this line is far below.
            await until(pilot, lambda: any("A model's idea, at the end." in line for line in shown()))
            assert page.scroll_y > 50
    finally:
        services.close()


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
    rewritten = services.store.get_note(fixture.ideas).body.replace("A model's idea.", "Mine.")
    # The person rewrote the model's line: reverting it clashes (an edit of other lines merges).
    services.store.update_note(fixture.ideas, NotePatch(body=rewritten), actor=ACTOR_USER)
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


async def test_a_filter_that_leaves_no_change_says_so_in_the_list(
    app_services: tuple[NotedApp, Services],
) -> None:
    app, _ = app_services
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        screen = await _open(pilot)
        listing = screen.query_one(ChangesList)
        await pilot.press("/", *"nobody wrote this")
        await until(pilot, lambda: not screen.shown)
        assert listing.option_count == 1 and listing.get_option_at_index(0).disabled
        assert str(listing.get_option_at_index(0).prompt) == "No change matches the filter."
        await pilot.press(*["backspace"] * len("nobody wrote this"))
        await until(pilot, lambda: len(screen.shown) == 3)  # the changes again, no line about none
        assert all(
            "No change" not in str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)
        )


async def test_o_opens_the_note_and_escape_closes(
    app_services: tuple[NotedApp, Services], fixture: Fixture
) -> None:
    app, _ = app_services
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await _open(pilot)
        await _press_o(pilot, app, fixture.meeting)
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


async def test_ctrl_q_over_a_revert_conflict_reverts_nothing_copies_nothing_and_quits(
    app_services: tuple[NotedApp, Services], fixture: Fixture
) -> None:
    # Before: Ctrl+Q chose Keep both for the person (a conflict copy they never asked for) and the
    # app stayed open. A revert's conflict holds nothing of theirs unsaved: quitting chooses nothing.
    app, services = app_services
    rewritten = services.store.get_note(fixture.ideas).body.replace("A model's idea.", "Mine.")
    # The person rewrote the model's line: reverting it clashes (an edit of other lines merges).
    services.store.update_note(fixture.ideas, NotePatch(body=rewritten), actor=ACTOR_USER)
    before = {n.id for n in services.store.list_notes()}
    body = services.store.get_note(fixture.ideas).body
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        screen = await _open(pilot)
        await pilot.press("/", *"bot ideas")
        await until(pilot, lambda: [r.note_id for r in screen.shown] == [fixture.ideas])
        await pilot.press("enter", "r")
        await until(pilot, lambda: isinstance(pilot.app.screen, ConflictView))
        await pilot.press("ctrl+q")
        await until(pilot, lambda: not app.is_running)
    assert {n.id for n in services.store.list_notes()} == before  # no conflict copy
    assert services.store.get_note(fixture.ideas).body == body  # nothing reverted
    assert fixture.ideas in _pending(services)  # the change still waits for review


async def _proposal_on_a_note_changed_since(services: Services, fixture: Fixture) -> str:
    """An AI app proposes a new second line for the ideas; then the person rewrites that line."""
    services.settings.set("ai.tool.update_note.enabled", True)
    services.store.update_note(fixture.ideas, NotePatch(body="one\ntwo\nthree\n"), actor=ACTOR_USER)
    ctx = services.tool_context(BOT)
    ctx.writes_wait = True
    answer = await services.registry.call(
        "update_note", {"id": fixture.ideas, "body": "one\nTWO, said the bot\nthree\n"}, ctx
    )
    assert answer.ok and answer.payload is not None
    services.store.update_note(fixture.ideas, NotePatch(body="one\ntwo, said I\nthree\n"), actor=ACTOR_USER)
    return str(answer.payload["proposal"])


async def test_a_proposal_whose_note_changed_shows_three_sides_and_takes_the_proposal(
    fixture: Fixture,
) -> None:
    services = open_services(fixture.root)
    try:
        ref = await _proposal_on_a_note_changed_since(services, fixture)
        app = NotedApp(services, background=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await ready(pilot)
            screen = await _open(pilot)
            await pilot.press("enter")  # the diff says so, with both sides against the version proposed on
            diff = screen.query_one("#changes-diff", Static)
            await until(pilot, lambda: "changed since" in str(diff.render()))
            assert "+two, said I" in str(diff.render()) and "+TWO, said the bot" in str(diff.render())
            await pilot.press("a")
            await until(pilot, lambda: isinstance(app.screen, ConflictView))
            view = app.screen
            assert isinstance(view, ConflictView)
            assert f"changed after {ref} was proposed" in str(view.query_one(".conflict--title").render())
            assert "+two, said I" in str(view.query_one("#conflict-theirs Static").render())
            assert "+TWO, said the bot" in str(view.query_one("#conflict-mine Static").render())
            assert services.store.get_note(fixture.ideas).body == "one\ntwo, said I\nthree\n"  # nothing yet
            await pilot.click("#conflict-overwrite")  # "Take p1"
            await until(pilot, lambda: not services.review.rows.proposals())
        assert services.store.get_note(fixture.ideas).body == "one\nTWO, said the bot\nthree\n"
        history = services.store.note_history(fixture.ideas)
        assert history[0].actor == BOT
        assert any(r.body == "one\ntwo, said I\nthree\n" for r in history)  # the note as it was: kept
    finally:
        services.close()


async def test_ctrl_q_over_a_proposal_conflict_leaves_it_waiting_and_quits(fixture: Fixture) -> None:
    services = open_services(fixture.root)  # (before: a conflict copy of the proposal, no quit)
    try:
        await _proposal_on_a_note_changed_since(services, fixture)
        before = {n.id for n in services.store.list_notes()}
        app = NotedApp(services, background=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await ready(pilot)
            await _open(pilot)
            await pilot.press("a")
            await until(pilot, lambda: isinstance(app.screen, ProposalConflictView))
            await pilot.press("ctrl+q")
            await until(pilot, lambda: not app.is_running)
        assert {n.id for n in services.store.list_notes()} == before
        assert services.store.get_note(fixture.ideas).body == "one\ntwo, said I\nthree\n"
        assert services.review.rows.proposals()  # it still waits
    finally:
        services.close()


async def test_edit_a_merge_of_a_proposal_and_the_note_now(fixture: Fixture) -> None:
    services = open_services(fixture.root)
    try:
        await _proposal_on_a_note_changed_since(services, fixture)
        app = NotedApp(services, background=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await ready(pilot)
            await _open(pilot)
            await pilot.press("a")
            await until(pilot, lambda: isinstance(app.screen, ProposalConflictView))
            await pilot.press("escape")  # decide later: it still waits
            await until(pilot, lambda: isinstance(app.screen, ChangesScreen))
            assert "still waits" in str(app.screen.query_one("#changes-message").render())
            assert len(services.review.rows.proposals()) == 1
            await pilot.press("a")
            await until(pilot, lambda: isinstance(app.screen, ProposalConflictView))
            await pilot.click("#conflict-merge")
            await until(pilot, lambda: isinstance(app.screen, MergeEditor))
            editor = app.screen.query_one(TextArea)
            assert "<<<<<<< the note now\ntwo, said I\n||||||| as proposed on\ntwo\n=======\n" in editor.text
            # On the clash (the title is line 0): the screen's on_mount puts it there, which may run
            # after the screen is current (one run beside two CPU burners asserted first).
            await until(pilot, lambda: editor.cursor_location == (2, 0))
            await pilot.press("ctrl+s")  # refused: a clash is left
            await pilot.pause()
            assert isinstance(app.screen, MergeEditor) and "markers" in str(
                app.screen.query_one("#merge-message").render()
            )
            editor.load_text("# Ideas\none\ntwo, said I and the bot\nthree\n")
            await pilot.press("ctrl+s")
            await until(pilot, lambda: not services.review.rows.proposals())
        assert services.store.get_note(fixture.ideas).body == "one\ntwo, said I and the bot\nthree\n"
        bodies = [r.body for r in services.store.note_history(fixture.ideas)]
        assert "one\nTWO, said the bot\nthree\n" in bodies and "one\ntwo, said I\nthree\n" in bodies
    finally:
        services.close()


async def test_a_notebook_a_model_renamed_is_a_row_of_its_own_and_r_renames_it_back(fixture: Fixture) -> None:
    services = open_services(fixture.root)
    services.review.refresh()
    services.store.update_folder(fixture.home, title="House", actor=BOT)
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await ready(pilot)
            screen = await _open(pilot)
            (row,) = screen.shown
            assert (row.kind, row.note_id, row.summary) == (
                "notebook",
                fixture.home,
                'renamed from "Home"',
            )
            await pilot.press("enter")  # no text to diff: what it changed, field by field
            diff = screen.query_one("#changes-diff", Static)
            await until(pilot, lambda: 'title: "Home" → "House"' in str(diff.render()))
            await pilot.press("o")  # there is no note to open: the view stays
            await pilot.pause()
            assert pilot.app.screen is screen
            await pilot.press("r")
            await until(pilot, lambda: services.store.get_folder(fixture.home).title == "Home")
            await until(pilot, lambda: not screen.rows)
    finally:
        services.close()


async def test_space_r_reverts_a_notebook_the_model_made_after_the_note_it_made_in_it(
    fixture: Fixture,
) -> None:
    """The notebook's row is first (the model renamed it last), so reverting the marked rows in
    the order shown would find it holding the note and leave it: the note goes first, then the
    notebook, and both are in the trash."""
    services = open_services(fixture.root)
    services.review.refresh()
    store = services.store
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await ready(pilot)
            trip = store.create_folder("Trip", actor=BOT).id
            packing = store.create_note(NoteDraft("Packing", "tent\n", parent_id=trip), actor=BOT)
            while now_ms() <= packing.updated_time:  # the rename is later, so its row is listed first
                time.sleep(0.001)
            store.update_folder(trip, title="Trip 2027", actor=BOT)
            screen = await _open(pilot)
            assert [r.note_id for r in screen.shown] == [trip, packing.id]
            await pilot.press("space", "space")  # the notebook, then (past its heading) the note
            assert screen.marked == {r.ref for r in screen.shown}
            await pilot.press("r")
            await until(pilot, lambda: not screen.rows)
            message = str(screen.query_one("#changes-message").render())
            assert message == "Reverted 2.", message  # nothing kept
        assert store.get_note(packing.id).is_trashed and store.get_folder(trip).is_trashed
    finally:
        services.close()


async def test_the_notes_a_trashed_notebook_took_along_are_under_it_and_r_brings_all_back(
    fixture: Fixture,
) -> None:
    services = open_services(fixture.root)
    services.review.refresh()
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await ready(pilot)
            services.store.trash_folder(fixture.work, actor=BOT)  # Projects and two notes go with it
            screen = await _open(pilot)
            head, *under = screen.shown
            assert head.note_id == fixture.work
            assert {r.note_id for r in under} == {fixture.projects, fixture.release, fixture.meeting}
            assert {r.under for r in under} == {head.ref}
            said = {r.summary for r in under}
            assert {'"Meeting notes": trashed', 'notebook "Projects": moved to the trash'} <= said
            assert str(screen.query_one("#changes-title").render()) == "Changes to review · 1"
            listing = screen.query_one(ChangesList)
            assert "↳" in str(listing.get_option_at_index(2).prompt)  # under the notebook's row
            await pilot.press("r")  # on the notebook's row
            await until(pilot, lambda: not screen.rows)
        assert services.review.pending() == []
        assert not services.store.get_folder(fixture.projects).is_trashed
        assert not any(services.store.get_note(n).is_trashed for n in (fixture.release, fixture.meeting))
    finally:
        services.close()


async def test_a_folded_row_uses_the_whole_width_when_the_list_does_not_scroll(fixture: Fixture) -> None:
    # Before: the rows left room for a scrollbar the short list never showed, so at 80×24 a
    # folded row cut its title two columns early ("Meeting note…").
    services = open_services(fixture.root)
    title = "Meeting notes about the quarterly planning offsite"
    services.store.update_note(fixture.meeting, NotePatch(title=title), actor=ACTOR_USER)
    services.review.refresh()
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await ready(pilot)
            services.store.trash_folder(fixture.work, actor=BOT)
            screen = await _open(pilot)
            listing = screen.query_one(ChangesList)
            prompts = [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]
            (row,) = [p for p in prompts if "Meeting" in p]
            width = listing.content_region.width
            assert "↳" in row and '"Meeting notes…": trashed' in row and len(row) <= width
            await pilot.pause()
            assert not listing.show_vertical_scrollbar
            assert listing.virtual_size.height == listing.option_count  # not one row wrapped
    finally:
        services.close()

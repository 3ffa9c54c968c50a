"""The Changes view follows what happens while it is open, starts afresh when opened again, says a
revert's conflict in a revert's words, and fits its rows and its diff's heading at 80×24.

The changes come from a second ``Services`` on the profile (its own connection, as an AI app's
process would write) and reach the view through the app's real follower of the change feed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from tests.integration.ui_support import Fixture, open_services, ready, until
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Button, Label, Static

from noted.models import ACTOR_USER, NotePatch, assistant_actor, mcp_actor
from noted.services import Services
from noted.ui.app import NotedApp
from noted.ui.dialogs.conflict import ConflictView
from noted.ui.screens.changes import ChangesList, ChangesScreen
from noted.ui.screens.changes_rows import when_of
from noted.ui.widgets.key_bar import KeyBar

BOT = mcp_actor("bot")


@pytest.fixture
async def services(fixture: Fixture) -> AsyncIterator[Services]:
    """The app's services, the model's changes to the meeting, the groceries and the ideas made."""
    services = open_services(fixture.root)
    services.review.refresh()  # the review has read the feed up to here
    store = services.store
    store.update_note(fixture.meeting, NotePatch(append="\nA model's line."), actor=BOT)
    store.update_note(fixture.groceries, NotePatch(append="\nMore bread."), actor=BOT)
    store.update_note(fixture.ideas, NotePatch(append="\nA model's idea."), actor=BOT)
    try:
        yield services
    finally:
        services.close()


@pytest.fixture
def outside(fixture: Fixture) -> Iterator[Services]:
    """Another writer of the profile, as an AI app's process is."""
    other = open_services(fixture.root)
    yield other
    other.close()


async def _open(pilot: Pilot[Any]) -> ChangesScreen:
    """F3, until the view shows the rows it read on this opening."""
    app = pilot.app
    built = app.get_screen("changes") if app.is_screen_installed("changes") else None
    loads = built.loads if isinstance(built, ChangesScreen) else 0
    await pilot.press("f3")
    await until(pilot, lambda: isinstance(app.screen, ChangesScreen) and app.screen.loads > loads)
    screen = app.screen
    assert isinstance(screen, ChangesScreen)
    return screen


def _cursor(screen: ChangesScreen) -> str | None:
    row = screen._current()
    return row.note_id if row else None


def _drawn(widget: Widget) -> list[str]:
    return [strip.text for strip in widget.render_lines(widget.region.reset_offset)]


async def test_the_view_follows_a_change_made_while_it_is_open(
    services: Services, outside: Services, fixture: Fixture
) -> None:
    """Rows a model adds while the view is open show in it, above a cursor that stays on its entry;
    a mark stays on its entry too."""
    app = NotedApp(services)  # with its follower of the change feed
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        screen = await _open(pilot)
        assert [r.note_id for r in screen.shown] == [fixture.ideas, fixture.groceries, fixture.meeting]
        await pilot.press("down", "space")  # the groceries marked, the cursor on to the meeting
        assert _cursor(screen) == fixture.meeting
        marked = set(screen.marked)
        outside.store.update_note(fixture.release, NotePatch(append="\nA model's plan."), actor=BOT)
        # Not vacuous: read only on opening, the view kept its three rows (the status bar said 4).
        await until(pilot, lambda: fixture.release in {r.note_id for r in screen.shown})
        assert screen.shown[0].note_id == fixture.release  # the newest, above the cursor
        assert _cursor(screen) == fixture.meeting and screen.marked == marked
        assert "Changes to review · 4" in str(screen.query_one("#changes-title", Label).render())


async def test_the_view_follows_a_proposal_made_while_it_is_open(
    services: Services, outside: Services, fixture: Fixture
) -> None:
    """A write an AI app in review mode makes waits as a proposal, which is in no change feed: the
    view follows the count of what waits, as the status bar does."""
    app = NotedApp(services)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        screen = await _open(pilot)
        outside.settings.set("ai.tool.update_note.enabled", True)
        ctx = outside.tool_context(BOT)
        ctx.writes_wait = True
        answer = await outside.registry.call("update_note", {"id": fixture.release, "append": "Later."}, ctx)
        assert answer.ok and answer.payload is not None and answer.payload["status"] == "pending_review"
        # Not vacuous: with the feed alone to follow, the view never read the rows again.
        await until(
            pilot, lambda: answer.payload is not None and screen.shown[0].ref == answer.payload["proposal"]
        )


async def test_opened_again_the_view_starts_on_the_newest_row_with_nothing_left_of_before(
    services: Services, outside: Services, fixture: Fixture
) -> None:
    """Closed with the cursor low, a line said and a mark made, then a model changes another note:
    opened again, the cursor is on that newest change, and ``r`` reverts it, not the row the
    cursor was on before."""
    app = NotedApp(services, background=False)  # nothing follows the feed: only the reopening reads
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        screen = await _open(pilot)
        await pilot.press("down", "down", "a")  # the meeting accepted: a line says so
        message = screen.query_one("#changes-message", Label)
        await until(pilot, lambda: "Accepted 1" in str(message.render()))
        await until(pilot, lambda: len(screen.shown) == 2)
        await pilot.press("down", "space")
        assert screen.marked and _cursor(screen) is not None
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, ChangesScreen))
        before = outside.store.get_note(fixture.release).body
        outside.store.update_note(fixture.release, NotePatch(append="\nA model's plan."), actor=BOT)
        screen = await _open(pilot)
        assert screen.shown[0].note_id == fixture.release
        assert _cursor(screen) == fixture.release
        assert str(message.render()) == "" and not screen.marked
        await pilot.press("r")
        await until(pilot, lambda: services.store.get_note(fixture.release).body == before)
    pending = {e.note_id for e in services.review.pending()}
    assert pending == {fixture.groceries, fixture.ideas}  # what the cursor was on before: untouched


async def test_after_an_action_with_a_filter_typed_the_rows_are_the_filters(
    services: Services, fixture: Fixture
) -> None:
    """``a`` on the one row a filter leaves: the rows read after it answer the filter (none)."""
    app = NotedApp(services, background=False)  # only the view's own reading after the action
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        screen = await _open(pilot)
        await pilot.press("/", *"ideas", "enter")
        await until(pilot, lambda: [r.note_id for r in screen.shown] == [fixture.ideas])
        await pilot.press("a")
        await until(pilot, lambda: fixture.ideas not in {e.note_id for e in services.review.pending()})
        # Not vacuous: the rows read after an action were those of no filter, dropped as stale,
        # so the accepted row stayed in the list.
        await until(pilot, lambda: not screen.shown)
        listing = screen.query_one(ChangesList)
        assert str(listing.get_option_at_index(0).prompt) == "No change matches the filter."


async def test_a_revert_that_meets_a_later_change_says_so_in_a_reverts_words(
    services: Services, fixture: Fixture
) -> None:
    """No editor is involved: the view names the revert and its sides, Esc cancels it (nothing is
    written), and *Revert anyway* brings back the text from before the change."""
    rewritten = services.store.get_note(fixture.ideas).body.replace("A model's idea.", "Mine.")
    # The person rewrote the model's line: reverting it clashes (an edit of other lines merges).
    services.store.update_note(fixture.ideas, NotePatch(body=rewritten), actor=ACTOR_USER)
    mine = services.store.get_note(fixture.ideas)
    app = NotedApp(services, background=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        screen = await _open(pilot)
        await pilot.press("/", *"ideas", "enter")
        await until(pilot, lambda: [r.note_id for r in screen.shown] == [fixture.ideas])
        ref = screen.shown[0].ref
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, ConflictView))
        view = app.screen
        said = " ".join(str(label.render()) for label in view.query(Label))
        assert f'Revert change {ref}: "{mine.title}" has changed since' in said
        assert "edited" not in said and "Back to editing" not in said and "Your changes" not in said
        assert [s.border_title for s in view.query(".conflict--side")] == ["Now", "Before the change"]
        assert "+Mine." in str(view.query_one("#conflict-theirs Static").render())
        buttons = [str(b.label) for b in view.query(Button)]
        assert buttons == ["Keep both", "Keep the note now", "Revert anyway", "Cancel"]
        assert "Cancel the revert" in str(view.query_one(KeyBar).render())
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen)
        assert "Nothing was reverted." in str(screen.query_one("#changes-message", Label).render())
        assert services.store.get_note(fixture.ideas).body == mine.body
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, ConflictView))
        await pilot.click("#conflict-overwrite")  # Revert anyway
        await until(pilot, lambda: "Mine." not in services.store.get_note(fixture.ideas).body)
    assert "A model's idea." not in services.store.get_note(fixture.ideas).body


async def test_at_80x24_a_long_actor_and_title_leave_the_time_in_sight(fixture: Fixture) -> None:
    """The assistant's 32-character conversation id is cut short in the diff's heading and a long
    title gives way there, so the time shows; a long old title gives way inside its quotes, not at
    the row's edge."""
    services = open_services(fixture.root)
    store = services.store
    store.update_note(
        fixture.ideas,
        NotePatch(title="Ideas for the spring garden and the long summer evenings"),
        actor=ACTOR_USER,
    )
    services.review.refresh()
    actor = assistant_actor("53982a00b3bf4ad3986c96762054a438")
    short = "assistant:53982a0…"  # as the rows' actor column shows it
    store.update_note(
        fixture.ideas,
        NotePatch(title="Garden plans for the spring and the summer", append="\nTomatoes."),
        actor=actor,
    )
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await ready(pilot)
            screen = await _open(pilot)
            listing = screen.query_one(ChangesList)
            await pilot.pause()
            lines = _drawn(listing)
            (line,) = [text for text in lines if "retitled from" in text]
            # Not vacuous: drawn as it was, the row broke inside the quote ("Ideas for the" / "spring…"),
            # then (a part at a time) after "lines;", the row taking two lines of the list.
            assert line.rstrip(" ▎").endswith(" lines; retitled from…")
            assert sum(1 for text in lines if text.strip(" ▊▎▔▁")) == listing.option_count  # a line a row
            (row,) = screen.shown
            await pilot.press("enter")
            diff = screen.query_one("#changes-diff", Static)
            await until(pilot, lambda: "Tomatoes." in str(diff.render()))
            await pilot.pause()
            heading = _drawn(screen.query_one("#changes-title", Label))[0]
            assert heading.strip().startswith("Garden plans for the")  # cut, to leave room for the rest
            assert f" · {row.ref} · {short} · {when_of(row.time)}" in heading
    finally:
        services.close()

"""A search result opens where its words are: at the matched line when it lies deep in the section
the result names, the find's marks kept (Pilot, real profile).

A word found 120 lines into a section opened the note at the section's heading: the reader's
header said ``find: zanzibar · 1/1`` with the match nowhere on screen.
"""

from __future__ import annotations

import threading

import pytest
from tests.integration.test_ui_filter_find import FILLER, header_says, keyword_search
from tests.integration.ui_support import T0, Fixture, open_services, ready, until
from textual.pilot import Pilot

from noted.models import ACTOR_IMPORT, NoteDraft
from noted.ui.app import NotedApp
from noted.ui.widgets import markdown_page, page_drawing
from noted.ui.widgets.note_viewer import NoteScroll, NoteViewer
from noted.ui.widgets.page_drawing import Drawn, Look

BODY = f"# Intro\n\nThe opening words.\n\n{FILLER}\n\nHere the zanzibar word hides.\n\n{FILLER}\n\n# Outro\n\nEnd.\n"


async def until_header(pilot: Pilot[None], page: NoteScroll, status: str) -> None:
    """Wait until the line under the note's header says ``status``; on a timeout, say what it said."""
    try:
        await until(pilot, lambda: header_says(page) == status, what=f"the header to say {status!r}")
    except AssertionError as error:
        raise AssertionError(f"{error}; it said {header_says(page)!r}") from None


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_a_result_deep_in_its_section_opens_at_the_matched_line(
    fixture: Fixture, size: tuple[int, int]
) -> None:
    services = open_services(fixture.root)
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=size) as pilot:
            await ready(pilot)  # the sample's four notes; then the deep one, found by search
            draft = NoteDraft(title="Deep", body=BODY, parent_id=fixture.home, user_updated_time=T0)
            services.store.create_note(draft, actor=ACTOR_IMPORT)
            screen = await keyword_search(pilot)
            await pilot.press(*"zanzibar")
            await until(pilot, lambda: [row.title for row in screen.rows] == ["Deep"])
            assert [s.heading for s in screen.rows[0].sections] == ["Intro"]  # the section, not the line
            await pilot.press("enter")
            viewer = app.workspace.query_one(NoteViewer)
            page = viewer.query_one(NoteScroll)
            await until(pilot, lambda: viewer.view is not None and viewer.view.note.title == "Deep")
            await until_header(pilot, page, "find: zanzibar · 1/1")
            assert page.find is not None and page.find.hit is not None
            row = page.find.hit.row
            # Not vacuous: the match is far below the heading, out of a page opened at it.
            assert row > page.scrollable_content_region.height
            await until(
                pilot,
                lambda: round(page.scroll_y) <= row < page.scroll_y + page.scrollable_content_region.height,
            )
    finally:
        services.close()


async def test_a_result_opened_then_left_before_its_rest_is_drawn_shows_its_match_on_return(
    fixture: Fixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # At 80x24 the rest of the note (the match is in it) is drawn in a thread while the reader shows
    # the opening; it landed while the reader was hidden (here the list shown in its place; in CI a reflow as the
    # search screen closed) and was dropped, and back in the reader the note stayed cut short, the
    # header saying "find: zanzibar · no match". The gate makes that order certain.
    gate, real = threading.Event(), page_drawing.draw

    def gated(body: str, look: Look, limit: int | None = None) -> Drawn:
        if threading.current_thread() is not threading.main_thread():
            gate.wait(30)
        return real(body, look, limit)

    monkeypatch.setattr(markdown_page, "draw", gated)
    services = open_services(fixture.root)
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await ready(pilot)
            draft = NoteDraft(title="Deep", body=BODY, parent_id=fixture.home, user_updated_time=T0)
            services.store.create_note(draft, actor=ACTOR_IMPORT)
            screen = await keyword_search(pilot)
            await pilot.press(*"zanzibar")
            await until(pilot, lambda: [row.title for row in screen.rows] == ["Deep"])
            await pilot.press("enter")
            viewer = app.workspace.query_one(NoteViewer)
            page = viewer.query_one(NoteScroll)
            await until(pilot, lambda: page.find is not None and page.has_focus, what="the opening shown")
            assert not page.covers(BODY.count("\n"))  # not vacuous: the rest waits at the gate
            # Hidden as Esc hides it, back to the list (pressed, the list would open its own note:
            # it has not listed "Deep" yet), then shown as Enter on the note in the list shows it.
            app.workspace.reading = False
            await until(pilot, lambda: page.look() is None, what="the reader hidden (the list shown)")
            gate.set()
            await until(pilot, lambda: all(w.is_finished for w in app.workers if w.group == "page-draw"))
            await pilot.pause()  # the rest, landed while hidden, handled
            app.workspace.reading = True
            await until(pilot, lambda: page.look() is not None, what="the reader shown again")
            await until_header(pilot, page, "find: zanzibar · 1/1")
            assert page.covers(BODY.count("\n"))
    finally:
        gate.set()
        services.close()

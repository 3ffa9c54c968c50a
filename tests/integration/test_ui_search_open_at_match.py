"""A search result opens where its words are: at the matched line when it lies deep in the section
the result names, the find's marks kept (Pilot, real profile).

A word found 120 lines into a section opened the note at the section's heading: the reader's
header said ``find: zanzibar · 1/1`` with the match nowhere on screen.
"""

from __future__ import annotations

import pytest
from tests.integration.test_ui_filter_find import FILLER, header_says, keyword_search
from tests.integration.ui_support import T0, Fixture, open_services, ready, until

from noted.models import ACTOR_IMPORT, NoteDraft
from noted.ui.app import NotedApp
from noted.ui.widgets.note_viewer import NoteScroll, NoteViewer

BODY = f"# Intro\n\nThe opening words.\n\n{FILLER}\n\nHere the zanzibar word hides.\n\n{FILLER}\n\n# Outro\n\nEnd.\n"


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
            await until(pilot, lambda: header_says(page) == "find: zanzibar · 1/1")
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

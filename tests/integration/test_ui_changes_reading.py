"""The Changes view says it is reading while the first read of the feed is under way.

On a busy machine (the index's model loading beside it) the first read took seconds, and the view
showed an empty list titled "Changes to review" with no count and no word: a person took it for
"nothing waits", and `a` pressed then did nothing, silently.
"""

from __future__ import annotations

import threading

from tests.integration.ui_support import Fixture, open_services, ready, until

from noted.models import NotePatch, mcp_actor
from noted.ui.app import NotedApp
from noted.ui.screens.changes import ChangesList, ChangesScreen


async def test_the_view_says_it_reads_until_the_rows_come(fixture: Fixture) -> None:
    services = open_services(fixture.root)
    services.review.refresh()
    services.store.update_note(fixture.ideas, NotePatch(append="\nA model's idea."), actor=mcp_actor("bot"))
    held, reading = threading.Event(), threading.Event()
    refresh = services.review.refresh

    def slow_refresh() -> int:  # the read of a busy machine: it waits until the test lets it go
        reading.set()
        held.wait(30)
        return refresh()

    services.review.refresh = slow_refresh  # type: ignore[method-assign]
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await ready(pilot)
            await pilot.press("f3")
            await until(pilot, lambda: isinstance(app.screen, ChangesScreen) and reading.is_set())
            await pilot.pause()
            listing = app.screen.query_one(ChangesList)
            # Not vacuous: before, the list had no option at all while the read was under way.
            assert listing.option_count == 1, listing.option_count
            assert "Reading the changes" in str(listing.get_option_at_index(0).prompt)
            held.set()
            await until(pilot, lambda: bool(app.screen.rows))  # type: ignore[attr-defined]
            assert "Reading" not in str(listing.get_option_at_index(0).prompt)
    finally:
        held.set()
        services.close()

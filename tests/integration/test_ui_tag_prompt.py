"""The note list's tag prompt (``t``): names with spaces, quotes, and what it says it changed.

Each check reads the tags the store holds afterwards, not only the line the app shows.
"""

from __future__ import annotations

from tests.integration.ui_support import Fixture, open_services, until
from textual.pilot import Pilot

from noted.models import ACTOR_USER
from noted.ops import notes as ops
from noted.ui.app import NotedApp
from noted.ui.dialogs.prompt import TextPrompt
from noted.ui.widgets.note_list import NoteList


async def _tag(pilot: Pilot[None], app: NotedApp, typed: str) -> str:
    """``t``, ``typed``, Enter on the highlighted note; the line the app said after."""
    said = len(app._notifications)
    await pilot.press("t")
    await until(pilot, lambda: isinstance(app.screen, TextPrompt))
    await pilot.press(*typed, "enter")
    await until(pilot, lambda: len(app._notifications) > said)
    return list(app._notifications)[-1].message


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

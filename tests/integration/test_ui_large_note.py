"""The app opens a note larger than ``notes.largeNoteChars`` showing its opening, says so, and
will not load it whole into the editor (a 39 MB note stalled the app for minutes at 5 GB)."""

from __future__ import annotations

from tests.integration.ui_support import Fixture, open_services, until
from tests.unit.test_large_notes import long_body

from noted.models import ACTOR_USER, NoteDraft
from noted.ui.app import NotedApp
from noted.ui.widgets.note_editor import NoteEditor
from noted.ui.widgets.note_viewer import NoteScroll, NoteViewer
from noted.ui.widgets.outline import OutlineList

PART = 10_000


async def test_a_large_note_opens_in_part_and_says_how_to_see_it_all(fixture: Fixture) -> None:
    services = open_services(fixture.root, notes_largenotechars=str(PART))
    body = long_body(60_000)
    note = services.store.create_note(
        NoteDraft("Huge manual", body, parent_id=fixture.home), actor=ACTOR_USER
    )
    app = NotedApp(services)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            viewer = app.workspace.query_one(NoteViewer)
            await until(pilot, lambda: viewer.view is not None)
            viewer.show(note.id)
            await until(pilot, lambda: viewer.view is not None and viewer.view.note.id == note.id)
            page = app.workspace.query_one(NoteScroll)
            view = viewer.view
            assert view is not None  # drawn whole (its opening comes first, the rest from a thread)
            await until(pilot, lambda: page.line_count > 0 and page.covers(view.text.count("\n")))
            assert view is not None and view.partial and len(view.text) <= PART
            header = str(app.workspace.query_one("#note-header").render())
            assert f"first {len(view.text):,} of {len(body):,} characters shown" in header
            outline = app.workspace.query_one(OutlineList)  # its last line says it is partial
            said_last = str(outline.get_option_at_index(outline.option_count - 1).prompt)
            assert said_last == view.outline.partial and said_last.startswith("Partial outline: of the first")
            last = "".join(page.line_text(row) for row in range(page.line_count - 6, page.line_count))
            assert f"notedshow{note.id}" in last.replace(" ", "")  # (the page wraps the line)
            assert "quokkatail" not in " ".join(page.line_text(r) for r in range(page.line_count))
            # Without the limit the note's end would be drawn: the test can fail.
            page.focus()
            await pilot.press("e")
            said = "Too large to edit in the app."
            await until(pilot, lambda: any(n.message.startswith(said) for n in app._notifications))
            assert (
                not app.workspace.query_one(NoteEditor).display
                or app.workspace.query_one(NoteEditor).note is None
            )
            assert services.store.get_note(note.id).body == body
            await pilot.press("y")  # nor copies megabytes through the terminal
            said = "Too large to copy from the app."
            await until(pilot, lambda: any(n.message.startswith(said) for n in app._notifications))
    finally:
        services.close()

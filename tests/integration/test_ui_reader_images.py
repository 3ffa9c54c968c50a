"""The reader draws an image where it stands in its paragraph ("🌆 alt text"), not before it."""

from __future__ import annotations

from tests.integration.ui_support import Fixture, open_services, until

from noted.models import ACTOR_IMPORT, NoteDraft
from noted.ui.app import NotedApp
from noted.ui.widgets.note_viewer import NoteViewer


def screen_text(app: NotedApp) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def test_an_inline_image_keeps_its_place_in_the_text(fixture: Fixture) -> None:
    services = open_services(fixture.root)
    folder = services.store.list_folders()[0].id
    body = "See [a](b) and ![diagram](x.png) end"
    note = services.store.create_note(NoteDraft("Img", body, parent_id=folder), actor=ACTOR_IMPORT).id
    app = NotedApp(services, background=False)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: bool(app.workspace.query(NoteViewer)))
            viewer = app.workspace.query_one(NoteViewer)  # the newest note, Img, opens at the start
            await until(pilot, lambda: viewer.view is not None and viewer.view.note.id == note)
            # Not vacuous: before, the reader drew "🌆 diagram See a and  end".
            await until(pilot, lambda: "See a and 🌆 diagram end" in screen_text(app))
    finally:
        services.close()

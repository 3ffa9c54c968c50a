"""A note the page already shows whole is not drawn again when it is read again with the same text:
shown again (``NoteViewer.show``, the editor closing) or reloaded for a change that left its text
as it was (a tag added). Drawing is the costly part of opening a long note: a 20 MB note's
200,000-character opening took about half a second of a thread's time, and the large-note
benchmark's ``show`` of the note open since start-up drew it whole a second time."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.integration.ui_support import Fixture, open_services, until

from noted.models import ACTOR_USER, NoteDraft, NotePatch
from noted.ops.notes import set_tags
from noted.ui.app import NotedApp
from noted.ui.widgets import markdown_page, note_viewer, page_drawing
from noted.ui.widgets.note_scroll import NoteScroll
from noted.ui.widgets.note_viewer import NoteViewer
from noted.ui.widgets.page_drawing import Drawn, Look

LONG = "The zebracorn opening.\n\n" + "".join(
    f"## Section {n}\n\n" + "".join(f"Line {i} of section {n}, a few words.\n" for i in range(8)) + "\n"
    for n in range(300)  # longer than the page draws at first (``opening_chars``)
)

DRAWING = ("viewer-load", "viewer-ahead", "page-draw")


def drawing_done(app: NotedApp) -> bool:
    """No worker of the reader's is reading or drawing a note."""
    return not any(w.group in DRAWING and not w.is_finished for w in app.workers)


@pytest.fixture
def whole_draws(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The length of every text ``draw`` draws whole, wherever it is called from (the viewer's
    worker, the page's own thread)."""
    drawn: list[int] = []
    real = page_drawing.draw

    def counted(body: str, look: Look, limit: int | None = None) -> Drawn:
        result = real(body, look, limit)
        if result.upto is None:
            drawn.append(len(body))
        return result

    monkeypatch.setattr(markdown_page, "draw", counted)
    monkeypatch.setattr(note_viewer, "draw", counted)
    yield drawn


async def test_the_open_note_read_again_with_the_same_text_is_not_drawn_again(
    fixture: Fixture, whole_draws: list[int]
) -> None:
    services = open_services(fixture.root)
    try:  # the newest note: the one the app opens at start-up
        note = services.store.create_note(NoteDraft("Long", LONG, parent_id=fixture.home), actor=ACTOR_USER)
        shown: list[str] = []

        def hook(message: object) -> None:
            if isinstance(message, NoteViewer.Shown):
                shown.append(message.note_id)

        app = NotedApp(services)
        async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
            viewer = app.workspace.query_one(NoteViewer)
            page = app.workspace.query_one(NoteScroll)
            await until(pilot, lambda: note.id in shown and page.covers(10**9), what="the note drawn whole")
            await until(pilot, lambda: drawing_done(app))  # the read ahead of the list's next notes too
            long = [n for n in whole_draws if n >= len(LONG)]
            assert len(long) == 1, whole_draws  # not vacuous: the start-up's drawing is counted

            shown.clear()
            viewer.show(note.id)  # read afresh: the same text
            await until(pilot, lambda: note.id in shown and page.covers(10**9), what="shown again")
            await until(pilot, lambda: drawing_done(app))
            assert [n for n in whole_draws if n >= len(LONG)] == long, whole_draws
            assert "quokka" not in page.line_text(0) and page.line_text(0).startswith("The zebracorn")

            shown.clear()
            set_tags(services.store, note.id, ["kept"], actor=ACTOR_USER)  # the header changes, not the text
            await until(pilot, lambda: note.id in shown, what="the note reloaded")
            await until(pilot, lambda: "#kept" in str(app.workspace.query_one("#note-header").render()))
            await until(pilot, lambda: drawing_done(app))
            assert [n for n in whole_draws if n >= len(LONG)] == long, whole_draws
            assert page.covers(10**9)

            # A changed text is drawn again (waited for by its end: a late Shown of the tag's reload
            # could come first).
            services.store.update_note(note.id, NotePatch(append="The quokkatail ending."), actor=ACTOR_USER)
            await until(
                pilot,
                lambda: any("quokkatail" in page.line_text(r) for r in range(page.line_count)),
                what="its end",
            )
            await until(pilot, lambda: drawing_done(app))
            assert [n for n in whole_draws if n >= len(LONG)][:-1] == long, whole_draws  # and once more
    finally:
        services.close()

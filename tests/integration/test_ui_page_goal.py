"""A row the page is asked to show is kept until it can be shown, and no longer once the person moves."""

from __future__ import annotations

from textual.app import App, ComposeResult

from noted.ui.widgets.note_scroll import NoteScroll

BODY = "\n\n".join(f"Paragraph {n} of the page." for n in range(60))


class PageApp(App[None]):
    def compose(self) -> ComposeResult:
        yield NoteScroll(id="page")


async def test_a_row_past_the_end_waits_until_the_person_moves() -> None:
    app = PageApp()
    async with app.run_test(size=(40, 30)) as pilot:
        page = app.query_one(NoteScroll)
        page.focus()
        page.update(BODY)
        await pilot.pause()
        last = page.line_count - 1
        page.show_row(last)  # past the last full page: as far as the page goes, and kept
        await pilot.pause()
        assert page.scroll_y == page.max_scroll_y < last
        await pilot.resize_terminal(40, 20)  # a shorter page goes further towards it
        await pilot.pause()
        assert page.scroll_y == page.max_scroll_y
        await pilot.press("k")  # the person moves: their place from now on
        await pilot.pause()
        moved = page.scroll_y
        assert moved == page.max_scroll_y - 1
        await pilot.resize_terminal(40, 12)
        await pilot.pause()
        assert page.scroll_y == moved

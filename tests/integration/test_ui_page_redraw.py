"""A page drawn again for a new width (a resize, a theme) is drawn in a thread: the old drawing
stays on screen and the keys keep working until the new one is ready (the page's main-thread
redraw froze the app for seconds on a long note)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from tests.integration.ui_support import until
from textual.app import App, ComposeResult
from textual.pilot import Pilot

from noted.ui.widgets import markdown_page
from noted.ui.widgets.markdown_page import Drawn, Look
from noted.ui.widgets.note_scroll import NoteScroll

BODY = "\n\n".join(
    f"## Part {n}\n\nParagraph {n} of the page, with words enough to wrap at fifty columns."
    for n in range(80)
)


class PageApp(App[None]):
    def compose(self) -> ComposeResult:
        yield NoteScroll(id="page")


@pytest.fixture
def gated(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[threading.Event, list[tuple[int, bool]]]]:
    """``draw`` that says where it ran (width, on the main thread) and, off it, waits for the gate:
    a drawing on the main thread would be seen (and not wait, so the test ends)."""
    gate, calls, real = threading.Event(), [], markdown_page.draw

    def watched(body: str, look: Look) -> Drawn:
        main = threading.current_thread() is threading.main_thread()
        calls.append((look.width, main))
        if not main:
            gate.wait(30)
        return real(body, look)

    monkeypatch.setattr(markdown_page, "draw", watched)
    yield gate, calls
    gate.set()


async def drawn(
    pilot: Pilot[None], app: PageApp, gated: tuple[threading.Event, list[tuple[int, bool]]]
) -> NoteScroll:
    """The page with ``BODY`` drawn, focused, the gate closed and the calls so far forgotten."""
    gate, calls = gated
    page = app.query_one(NoteScroll)
    page.focus()
    gate.set()
    page.update(BODY)
    await until(pilot, lambda: page.line_count > 0 and page.look() is not None)
    gate.clear()
    calls.clear()
    return page


async def test_a_resize_or_a_theme_keeps_the_old_drawing_and_the_keys_until_the_new_one_is_ready(
    gated: tuple[threading.Event, list[tuple[int, bool]]],
) -> None:
    gate, calls = gated
    app = PageApp()
    async with app.run_test(size=(100, 30)) as pilot:
        page = await drawn(pilot, app, gated)
        old = page.line_count
        await pilot.resize_terminal(50, 30)
        await pilot.pause()
        assert calls and not any(main for _, main in calls), calls  # drawn off the main thread
        assert page.line_count == old and page.line_text(0).strip() == "Part 0"  # the old drawing
        await pilot.press("j", "j")  # the keys work meanwhile
        assert page.scroll_y == 2
        gate.set()
        width = page.scrollable_content_region.width
        await until(pilot, lambda: page.line_count > old, what="the drawing at the new width")
        assert max(len(page.line_text(row).rstrip()) for row in range(page.line_count)) <= width
        assert page.scroll_y == 2  # the place kept
        calls.clear()
        gate.clear()
        app.theme = "textual-light"  # a theme's colours are drawn off the main thread too
        await pilot.pause()
        assert calls and not any(main for _, main in calls), calls
        assert page.line_count > 0
        gate.set()
        look = page.look()
        await until(pilot, lambda: page._drawn is not None and page._drawn.look == look)

"""Scroll views repaint their scrollbars when something changed, not after every layout."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import OptionList

from noted.ui import patches
from noted.ui.patches.steady_scrollbars import SteadyScrollbars


class Steady(SteadyScrollbars, OptionList):
    pass


class Plain(OptionList):
    pass


class Two(App[None]):
    def compose(self) -> ComposeResult:
        yield Steady(*[f"steady {n}" for n in range(40)], id="steady")
        yield Plain(*[f"plain {n}" for n in range(40)], id="plain")


async def test_only_a_change_repaints_the_scrollbars() -> None:
    app = Two()
    async with app.run_test(size=(40, 20)) as pilot:
        await pilot.pause()
        steady, plain = app.query_one(Steady), app.query_one(Plain)
        updates = {"steady": 0, "plain": 0}
        for view in (steady, plain):
            original = view._scroll_update

            def counted(size: object, name: str = str(view.id), original: object = original) -> None:
                updates[name] += 1
                original(size)  # type: ignore[operator]

            view._scroll_update = counted  # type: ignore[assignment]
        for _ in range(3):
            app.screen.refresh(layout=True)
            await pilot.pause()
        assert updates["plain"] >= 3  # Textual's own: every layout
        assert updates["steady"] == 0
        steady.add_options([f"more {n}" for n in range(40)])  # its virtual size grows
        await pilot.pause()
        assert updates["steady"] >= 1
        assert steady.vertical_scrollbar.window_virtual_size == steady.virtual_size.height == 80
        steady.scroll_end(animate=False)
        await pilot.pause()
        assert steady.scroll_y == steady.max_scroll_y > 0  # scrolling reaches the new end


async def test_with_the_patch_off_a_steady_view_refreshes_as_textual_does() -> None:
    # The guard's fallback: off (as on a Textual it was not written for), the mixin must not
    # keep a view from following its sizes; it refreshes after every layout like ``Plain``.
    patches.uninstall()
    app = Two()
    async with app.run_test(size=(40, 20)) as pilot:
        await pilot.pause()
        steady = app.query_one(Steady)
        updates = 0
        original = steady._scroll_update

        def counted(size: object) -> None:
            nonlocal updates
            updates += 1
            original(size)  # type: ignore[arg-type]

        steady._scroll_update = counted  # type: ignore[assignment]
        for _ in range(3):
            app.screen.refresh(layout=True)
            await pilot.pause()
        assert updates >= 3

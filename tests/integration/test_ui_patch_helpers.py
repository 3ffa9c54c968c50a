"""The helpers of ``noted.ui.patches`` that widgets call, with their patch on and off."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.content import Content
from textual.widgets import OptionList

from noted.ui import patches
from noted.ui.patches.option_rows import option_lines
from noted.ui.patches.pending_layout import paint_whole_when_layout_pending


class Rows(App[None]):
    def compose(self) -> ComposeResult:
        yield OptionList(*[Content(f"title {n}\n time {n}") for n in range(30)])


async def test_option_lines_says_where_each_two_line_option_is_drawn() -> None:
    app = Rows()
    async with app.run_test(size=(40, 12)) as pilot:
        await pilot.pause()
        options = app.query_one(OptionList)
        # Not a constant: the tenth option starts on line 18 because each before it takes two.
        assert option_lines(options, 0) == (0, 2)
        assert option_lines(options, 9) == (18, 2)
        assert option_lines(options, None) is None
        assert option_lines(options, 99) is None  # no such option: nothing to repaint
        patches.uninstall()
        assert option_lines(options, 9) is None  # off: the caller does what Textual does


async def test_a_pending_layout_takes_the_repaint_only_while_the_patch_is_on() -> None:
    app = Rows()
    async with app.run_test(size=(40, 12)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert not paint_whole_when_layout_pending(screen)  # nothing pending: Textual's refresh
        screen.refresh(layout=True)
        assert paint_whole_when_layout_pending(screen)
        patches.uninstall()
        screen.refresh(layout=True)
        assert not paint_whole_when_layout_pending(screen)
        patches.install()
        await pilot.pause()
        assert not paint_whole_when_layout_pending(screen)  # the layout ran and painted

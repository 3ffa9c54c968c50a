"""``patches.same_rules`` and ``patches.focus_within``: moving the focus restyles what the move changes, and nothing else.

A small Textual app with a ``:focus-within`` box: the box's border and a rule that depends on
it (``#box:focus-within .marked``) must still follow the focus; a widget whose rules stay the
same must not be restyled (which would drop its rendered lines and ask for a layout).
"""

from __future__ import annotations

from collections import Counter

from textual.app import App, ComposeResult
from textual.color import Color
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Input, Label

from noted.ui import patches


class Boxed(App[None]):
    CSS = """
    #box { border: round red; height: auto; }
    #box:focus-within { border: round green; }
    #box:focus-within .marked { color: blue; }
    .loud { color: yellow; }
    """

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            yield Input(id="inside")
            yield Label("marked", classes="marked", id="marked")
            yield Label("plain", id="plain")
        yield Input(id="outside")


def _count_style_updates(monkeypatch: object, counts: Counter[str]) -> None:
    original = Widget.notify_style_update

    def counting(self: Widget) -> None:
        counts[self.id or ""] += 1
        original(self)

    monkeypatch.setattr(Widget, "notify_style_update", counting)  # type: ignore[attr-defined]


async def test_focus_within_rules_follow_the_focus_and_touch_nothing_else(monkeypatch: object) -> None:
    patches.install()
    app = Boxed()
    async with app.run_test() as pilot:
        box, marked = app.query_one("#box"), app.query_one("#marked")
        app.query_one("#outside", Input).focus()
        await pilot.pause()
        assert box.styles.border_top[1] == Color.parse("red")
        counts: Counter[str] = Counter()
        _count_style_updates(monkeypatch, counts)
        app.query_one("#inside", Input).focus()
        await pilot.pause()
        assert box.styles.border_top[1] == Color.parse("green")
        assert marked.styles.color == Color.parse("blue")
        app.query_one("#outside", Input).focus()
        await pilot.pause()
        assert box.styles.border_top[1] == Color.parse("red")
        assert marked.styles.color != Color.parse("blue")
        # The box and the marked label changed each time; the plain label never did.
        assert counts["box"] == 2 and counts["marked"] == 2
        assert counts["plain"] == 0


async def test_without_the_patches_textual_restyles_the_whole_box(monkeypatch: object) -> None:
    # The counterpart of the test above: it shows the count there can fail (Textual's own code
    # restyles the plain label on every focus move), and that ``uninstall`` gives that code back.
    patches.uninstall()
    try:
        app = Boxed()
        async with app.run_test() as pilot:
            app.query_one("#outside", Input).focus()
            await pilot.pause()
            counts: Counter[str] = Counter()
            _count_style_updates(monkeypatch, counts)
            app.query_one("#inside", Input).focus()
            await pilot.pause()
            assert app.query_one("#marked").styles.color == Color.parse("blue")
            assert counts["plain"] >= 1
    finally:
        patches.install()


async def test_a_rule_that_changes_still_applies(monkeypatch: object) -> None:
    patches.install()
    app = Boxed()
    async with app.run_test() as pilot:
        plain = app.query_one("#plain", Label)
        before = plain.styles.color
        plain.add_class("loud")
        await pilot.pause()
        assert plain.styles.color == Color.parse("yellow")
        plain.remove_class("loud")
        await pilot.pause()
        assert plain.styles.color == before


async def test_styles_changed_behind_its_back_are_set_again() -> None:
    patches.install()
    app = Boxed()
    async with app.run_test() as pilot:
        plain = app.query_one("#plain", Label)
        app.stylesheet.update(plain)
        width = plain.styles.width
        plain.styles.base.clear_rule("width")  # as a reset or an animation would
        app.stylesheet.update(plain)  # the same rules as last time: applied all the same
        await pilot.pause()
        assert plain.styles.width == width

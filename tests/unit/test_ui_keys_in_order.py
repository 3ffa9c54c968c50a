"""``patches.keys_in_order``: keys that reach a text field together act in the order they were typed.

A small app with an ``Input`` and a ``TextArea``: the keys are posted to the app all at once, as a
burst read from the terminal arrives, and the field must end as a person typing them slowly leaves it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from noted.ui import patches
from noted.ui.patches import keys_in_order

# "abc", Backspace, "d", ←, "X", Home, "Q": "QabXd"
BURST = ["a", "b", "c", "backspace", "d", "left", "X", "home", "Q"]
TYPED = "QabXd"


class Fields(App[None]):
    def compose(self) -> ComposeResult:
        yield Input(id="line")
        yield TextArea(id="area")


def _key(key: str) -> events.Key:
    return events.Key(key, key if len(key) == 1 else None)


async def _typed(app: Fields, pilot: Pilot[None], selector: str, keys: list[str]) -> None:
    """Focus ``selector``, post ``keys`` to the app at once (no pause between them, as a burst read
    from the terminal arrives), then let it take them all."""
    app.query_one(selector).focus()
    await pilot.pause()
    for key in keys:
        app.post_message(_key(key))
    await pilot.pause()


@pytest.fixture
def patched() -> Iterator[None]:
    patches.install()
    yield
    patches.uninstall()


@pytest.mark.usefixtures("patched")
async def test_an_inputs_own_keys_act_in_the_order_they_came() -> None:
    app = Fields()
    async with app.run_test() as pilot:
        await _typed(app, pilot, "#line", BURST)
        assert app.query_one("#line", Input).value == TYPED
        await _typed(app, pilot, "#line", ["ctrl+e", "ctrl+u", "n", "e", "w"])  # Ctrl+U, a new query
        assert app.query_one("#line", Input).value == "new"


@pytest.mark.usefixtures("patched")
async def test_a_text_areas_own_keys_act_in_the_order_they_came() -> None:
    app = Fields()
    async with app.run_test() as pilot:
        await _typed(app, pilot, "#area", [*BURST, "end", "enter", "z", "up", "end", "!"])
        assert app.query_one("#area", TextArea).text == f"{TYPED}!\nz"


async def test_without_the_patch_textual_runs_them_late() -> None:
    """The upstream behaviour the patch is for: when this fails, Textual has mended it and the
    patch can go (``noted.ui.patches.keys_in_order``)."""
    patches.uninstall()
    assert not patches.enabled(keys_in_order.PATCH)
    app = Fields()
    async with app.run_test() as pilot:
        await _typed(app, pilot, "#line", BURST)
        assert app.query_one("#line", Input).value != TYPED


class Above(Fields):
    """A binding of Ctrl+C above the fields, as the chat pane's stop is."""

    BINDINGS = [("ctrl+c", "above", "Above")]
    reached = 0

    def action_above(self) -> None:
        self.reached += 1


@pytest.mark.usefixtures("patched")
async def test_a_fields_own_key_that_skips_goes_on_to_the_widgets_above() -> None:
    # A text field's Ctrl+C copies its selection and skips without one: the patch ran it and then
    # stopped the key, so nothing above the field (the chat's stop, Textual's screen copy) ever saw it.
    app = Above()
    async with app.run_test() as pilot:
        await _typed(app, pilot, "#area", ["h", "i", "ctrl+c"])
        assert app.reached == 1
        app.query_one("#area", TextArea).select_all()
        await _typed(app, pilot, "#area", ["ctrl+c"])
        assert app.reached == 1 and app.clipboard == "hi"  # with a selection the field's copy acts alone

"""``Confirm``: a yes/no question; ``y`` or Enter on the focused button answers, Esc says no."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label


class Confirm(ModalScreen[bool]):
    """Returns True when the person confirms."""

    CSS_PATH = "dialogs.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes", id="dialog.yes", tooltip="Confirm"),
        Binding("n,escape", "answer(False)", "No", id="dialog.no", tooltip="Cancel"),
    ]

    def __init__(self, question: str, *, yes: str = "Yes") -> None:
        super().__init__()
        self._question = question
        self._yes = yes

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self._question, classes="dialog--title")
            with Horizontal(classes="dialog--buttons"):
                yield Button("No", id="no")
                yield Button(self._yes, id="yes", variant="warning")

    def on_mount(self) -> None:
        self.query_one("#yes", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

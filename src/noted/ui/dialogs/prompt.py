"""``TextPrompt``: ask for one line of text (a notebook name, tags), Enter to accept, Esc to cancel."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label


class TextPrompt(ModalScreen[str | None]):
    """Returns the text typed (stripped), or None when cancelled or left empty."""

    CSS_PATH = "dialogs.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="dialog.cancel", tooltip="Close without changing anything"),
    ]

    def __init__(self, title: str, *, value: str = "", placeholder: str = "", hint: str = "") -> None:
        super().__init__()
        self._title = title
        self._value = value
        self._placeholder = placeholder
        self._hint = hint

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self._title, classes="dialog--title")
            field = Input(self._value, placeholder=self._placeholder, select_on_focus=True)
            field.cursor_blink = not self.app.is_headless  # screenshots must not catch a blink
            yield field
            yield Label(self._hint or "Enter to accept · Esc to cancel", classes="dialog--hint")

    @on(Input.Submitted)
    def _accept(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)

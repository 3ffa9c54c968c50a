"""``Confirm``: a question whose harmless answer is the default.

The harmless button ("Cancel", "Keep it"…) has the focus, so Enter, like Esc and ``n``, changes
nothing. What cannot be taken back needs a key aimed at it: ``y``, or Tab to its button and
Enter. A person who pressed Enter out of habit (or typed ahead) loses nothing; the question
itself says exactly what would go.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label

from noted.ui.dialogs.over import Over


class Confirm(Over[bool]):
    """Returns True only when the person chose ``yes`` (``y``, or its button)."""

    CSS_PATH = "dialogs.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "dismiss(True)", "Yes", id="dialog.yes", tooltip="Do what the question asks"),
        Binding("n,escape", "dismiss(False)", "No", id="dialog.no", tooltip="Change nothing"),
    ]

    def __init__(self, question: str, *, yes: str = "Yes", no: str = "Cancel") -> None:
        """``yes``: what the button that acts says ("Delete"); ``no``: the harmless one's label."""
        super().__init__()
        self._question = question
        self._yes = yes
        self._no = no

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self._question, classes="dialog--title")
            with Horizontal(classes="dialog--buttons"):
                yield Button(self._no, id="no", variant="primary")
                yield Button(f"{self._yes} (y)", id="yes", variant="error")
            yield Label(f"Enter or Esc: {self._no} · y: {self._yes}", classes="dialog--hint")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

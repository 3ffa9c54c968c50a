"""``Over``: the base of every screen pushed over the others (dialogs, search, the Changes view).

Textual stops the app's keys at a modal screen, so F2 (settings) and F3 (changes to review), which
the README says work anywhere, are bound here too, with the app's ids: a remap in ``ui.keymap``
moves them on every screen. The app opens the screen over the one on top, which stays as it was
under it (a prompt keeps what is typed in it), and Esc comes back to it.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.screen import ModalScreen, ScreenResultType

ANYWHERE: list[Binding] = [
    Binding("f2", "settings", "Settings", id="app.settings", tooltip="Settings, tools and the MCP server"),
    Binding("f3", "changes", "Changes", id="app.changes", tooltip="Review what assistants and AI apps changed, and the writes that wait"),
]  # fmt: skip
"""The app's keys that work over any screen (the app binds them; ``Over`` repeats them)."""


class Over(ModalScreen[ScreenResultType]):
    """A modal screen that lets the app's ``ANYWHERE`` keys through."""

    BINDINGS: ClassVar[list[BindingType]] = [
        dataclasses.replace(binding, action=f"app.{binding.action}", show=False) for binding in ANYWHERE
    ]

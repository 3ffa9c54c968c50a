"""``TextPrompt``: ask for one line of text (a notebook name, tags), Enter to accept, Esc to cancel."""

from __future__ import annotations

import asyncio
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.suggester import Suggester
from textual.widgets import Input, Label

from noted.ui.attachment_files import complete_path
from noted.ui.dialogs.over import Over


class PathSuggester(Suggester):
    """Suggests the rest of a path as far as the files there agree (read in a thread)."""

    def __init__(self) -> None:
        super().__init__(use_cache=False, case_sensitive=True)

    async def get_suggestion(self, value: str) -> str | None:
        return await asyncio.to_thread(complete_path, value) if value else None


class PathField(Input):
    """A path: the completion shows in grey as you type, and Tab takes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "complete", "Complete", id="dialog.complete",
                tooltip="Complete the path as far as the files there agree"),
    ]  # fmt: skip

    def action_complete(self) -> None:
        # Reads the folder afresh rather than waiting on the grey suggestion, which a quick Tab
        # can beat (it is read in a thread too).
        self.run_worker(
            self._complete(self.value), exclusive=True, group="complete-path", exit_on_error=False,
            description="completing the path",
        )  # fmt: skip

    async def _complete(self, typed: str) -> None:
        done = await asyncio.to_thread(complete_path, typed) if typed else None
        if done and self.value == typed:  # nothing typed meanwhile
            self.value = done
            self.cursor_position = len(done)


class TextPrompt(Over[str | None]):
    """Returns the text typed (stripped), or None when cancelled or left empty.

    ``path=True``: the text is a file's path, completed with Tab (``PathField``).
    """

    CSS_PATH = "dialogs.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Cancel", id="dialog.cancel", tooltip="Close without changing anything"),
    ]

    def __init__(
        self, title: str, *, value: str = "", placeholder: str = "", hint: str = "", path: bool = False
    ) -> None:
        super().__init__()
        self._path = path
        self._title = title
        self._value = value
        self._placeholder = placeholder
        self._hint = hint

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self._title, classes="dialog--title")
            if self._path:
                field: Input = PathField(
                    self._value, placeholder=self._placeholder, suggester=PathSuggester()
                )
            else:
                field = Input(self._value, placeholder=self._placeholder, select_on_focus=True)
            yield field
            yield Label(self._hint or "Enter to accept · Esc to cancel", classes="dialog--hint")

    @on(Input.Submitted)
    def _accept(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

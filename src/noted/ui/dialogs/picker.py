"""``NotebookPicker``: the "move to…" dialog; type to filter the notebooks, Enter to choose."""

from __future__ import annotations

from collections.abc import Collection
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from noted.models import descendants
from noted.ops.resolve import folder_paths
from noted.store.protocol import Store
from noted.ui.workers import ReportsWorkerFailures

TOP_LEVEL = ""
"""What the picker returns for "no parent" (only offered with ``allow_top``)."""


class NotebookPicker(ReportsWorkerFailures, ModalScreen[str | None]):
    """Returns the chosen notebook id (``TOP_LEVEL`` for the top level), or None when cancelled."""

    CSS_PATH = "dialogs.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="dialog.cancel", tooltip="Close without moving anything"),
        Binding("down", "move(1)", "Next", show=False, id="picker.down", tooltip="Next notebook"),
        Binding("up", "move(-1)", "Previous", show=False, id="picker.up", tooltip="Previous notebook"),
    ]

    class _Loaded(Message, bubble=False):
        def __init__(self, choices: list[tuple[str, str]]) -> None:
            super().__init__()
            self.choices = choices

    def __init__(
        self, store: Store, *, title: str, exclude_branches: Collection[str] = (), allow_top: bool = False
    ) -> None:
        """``exclude_branches``: notebooks left out with everything below them (a notebook being moved)."""
        super().__init__()
        self._store = store
        self._title = title
        self._exclude = frozenset(exclude_branches)
        self._allow_top = allow_top
        self._choices: list[tuple[str, str]] = []

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self._title, classes="dialog--title")
            field = Input(placeholder="type to filter notebooks")
            field.cursor_blink = not self.app.is_headless  # screenshots must not catch a blink
            yield field
            yield OptionList()
            yield Label("↑↓ to choose · Enter to move · Esc to cancel", classes="dialog--hint")

    def on_mount(self) -> None:
        self._load()

    @work(thread=True, exclusive=True, group="picker", exit_on_error=False, description="listing notebooks")
    def _load(self) -> None:
        folders = self._store.list_folders()
        paths = folder_paths(folders, " / ")
        # A notebook cannot move into itself or below itself: drop the excluded branches.
        blocked = {fid for root in self._exclude for fid in descendants(folders, root)}
        choices = sorted(((fid, path) for fid, path in paths.items() if fid not in blocked), key=_fold)
        if self._allow_top:
            choices.insert(0, (TOP_LEVEL, "(top level)"))
        self.post_message(self._Loaded(choices))

    @on(_Loaded)
    def _show(self, message: _Loaded) -> None:
        self._choices = message.choices
        self._filter(self.query_one(Input).value)

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        self._filter(event.value)

    def _filter(self, text: str) -> None:
        words = text.casefold().split()
        options = self.query_one(OptionList)
        options.set_options(
            Option(path, id=f"f{fid}")
            for fid, path in self._choices
            if all(word in path.casefold() for word in words)
        )
        options.highlighted = 0 if options.option_count else None

    def action_move(self, step: int) -> None:
        options = self.query_one(OptionList)
        if options.option_count:
            options.highlighted = ((options.highlighted or 0) + step) % options.option_count

    @on(Input.Submitted)
    def _submit(self) -> None:
        option = self.query_one(OptionList).highlighted_option
        if option is not None and option.id is not None:
            self.dismiss(option.id[1:])

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.dismiss(event.option.id[1:])

    def action_cancel(self) -> None:
        self.dismiss(None)


def _fold(choice: tuple[str, str]) -> str:
    return choice[1].casefold()

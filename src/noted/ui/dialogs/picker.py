"""``ChoicePicker``: type to filter a list, Enter to choose; ``NotebookPicker`` (the "move to…"
dialog) is one, the chat's model list another (``noted.ui.chat.models``)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option
from textual.worker import Worker

from noted.models import descendants
from noted.ops.resolve import folder_paths, paths_apart
from noted.store.protocol import Store
from noted.ui.dialogs.over import Over
from noted.ui.workers import ReportsWorkerFailures, thread_work


def fit_list(screen: Screen[Any]) -> None:
    """Give ``screen``'s dialog list only the rows its box has left (the box's ``max-height`` less
    its frame and the lines around the list), so the hint under the list stays in the box: on a
    short screen a long list took every row and the box cut the hint off."""
    box, options = screen.query_one(".dialog"), screen.query_one(OptionList)
    box_most, list_most = box.styles.max_height, options.styles.base.max_height
    if box_most is None or list_most is None:
        return
    size = screen.size
    others = sum(child.outer_size.height for child in box.children if child is not options and child.display)
    room = int(box_most.resolve(size, size)) - box.styles.gutter.height - others
    options.styles.max_height = max(3, min(int(list_most.resolve(size, size)), room))


TOP_LEVEL = ""
"""What the picker returns for "no parent" (only offered with ``allow_top``)."""


class ChoicePicker(ReportsWorkerFailures, Over[str | None]):
    """A list loaded in a worker, filtered as the person types; returns the chosen id, or None.

    A subclass starts its worker in ``load`` and posts ``Loaded`` with ``(id, text)`` choices, or
    with a ``problem`` line when there is nothing to choose from.
    """

    CSS_PATH = Path(__file__).with_name("dialogs.tcss")  # absolute: subclasses live elsewhere
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Cancel", id="dialog.cancel", tooltip="Close without choosing anything"),
        Binding("down", "move(1)", "Next", show=False, id="picker.down", tooltip="Next in the list"),
        Binding("up", "move(-1)", "Previous", show=False, id="picker.up", tooltip="Previous in the list"),
    ]
    FILTER = "type to filter"
    HINT = "↑↓ to choose · Enter to choose · Esc to cancel"

    @dataclass
    class Loaded(Message, bubble=False):
        """The choices, or why there are none."""

        choices: list[tuple[str, str]]
        problem: str | None = None

    def __init__(self, *, title: str) -> None:
        super().__init__()
        self._title = title
        self._choices: list[tuple[str, str]] = []
        self.problem: str | None = None
        """The line saying why nothing can be chosen, once loaded."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self._title, classes="dialog--title")
            yield Input(placeholder=self.FILTER)
            yield OptionList()
            yield Label("", classes="dialog--error -hidden")
            yield Label(self.HINT, classes="dialog--hint")

    def on_mount(self) -> None:
        self.load()

    def on_resize(self) -> None:
        self.call_after_refresh(fit_list, self)

    def load(self) -> Worker[None]:
        """Start the worker that posts ``Loaded`` (a ``@work`` method in each subclass)."""
        raise NotImplementedError

    @on(Loaded)
    def _show(self, message: Loaded) -> None:
        self._choices, self.problem = message.choices, message.problem
        label = self.query_one(".dialog--error", Label)
        label.update(message.problem or "")
        label.set_class(message.problem is None, "-hidden")
        self.query_one(OptionList).set_class(message.problem is not None, "-hidden")
        self._filter(self.query_one(Input).value)

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        self._filter(event.value)

    def _filter(self, text: str) -> None:
        words = text.casefold().split()
        options = self.query_one(OptionList)
        options.set_options(
            Option(shown, id=f"f{cid}")
            for cid, shown in self._choices
            if all(word in shown.casefold() for word in words)
        )
        options.highlighted = self._first(options)

    def _first(self, options: OptionList) -> int | None:
        """The option highlighted when the list is shown or filtered."""
        return 0 if options.option_count else None

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


class NotebookPicker(ChoicePicker):
    """Returns the chosen notebook id (``TOP_LEVEL`` for the top level), or None when cancelled."""

    FILTER = "type to filter notebooks"
    HINT = "↑↓ to choose · Enter to move · Esc to cancel"

    def __init__(
        self, store: Store, *, title: str, exclude_branches: Collection[str] = (), allow_top: bool = False
    ) -> None:
        """``exclude_branches``: notebooks left out with everything below them (a notebook being moved)."""
        super().__init__(title=title)
        self._store = store
        self._exclude = frozenset(exclude_branches)
        self._allow_top = allow_top

    @thread_work("picker", "listing notebooks")
    def load(self) -> None:
        folders = self._store.list_folders()
        paths = paths_apart(folder_paths(folders, " / "))  # two of one name: told apart by id
        # A notebook cannot move into itself or below itself: drop the excluded branches.
        blocked = {fid for root in self._exclude for fid in descendants(folders, root)}
        choices = sorted(((fid, path) for fid, path in paths.items() if fid not in blocked), key=_fold)
        if self._allow_top:
            choices.insert(0, (TOP_LEVEL, "(top level)"))
        self.post_message(self.Loaded(choices))


def _fold(choice: tuple[str, str]) -> str:
    return choice[1].casefold()

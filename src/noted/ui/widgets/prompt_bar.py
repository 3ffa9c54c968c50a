"""``PromptBar``: the one-line field at the foot of the workspace where ``/`` filters the note list or
finds in the open note, as ``/`` asks at the foot of the screen in less, vim and lazygit.

It takes the key bar's row while open (``workspace.tcss``), so the panes keep their size. It is
mounted on the first ``/`` (``ask``), so the app starts without it.
What is typed goes to the pane that opened it (a ``Prompted``), live on every key; ``Enter`` keeps it
and gives the focus back, ``Esc`` clears it and gives the focus back. The pane shows the outcome in
its own title (``12 of 340 · filter: foo``, ``find: foo · 3/7``); this bar only asks.
"""

from __future__ import annotations

from typing import ClassVar, Protocol, runtime_checkable

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, Label

from noted.ui.typeahead import release_keys


@runtime_checkable
class Prompted(Protocol):
    """A pane that asks through the bar (the note list's filter, the reader's find)."""

    def prompt_changed(self, text: str) -> None:
        """The text is now ``text`` (each key): narrow, or find, at once (in memory: no I/O)."""

    def prompt_kept(self, text: str) -> None:
        """``Enter``: keep ``text`` in force; the focus is back on the pane."""

    def prompt_cleared(self) -> None:
        """``Esc``: drop what the text did and show the pane as it was; the focus is back on it."""


class PaneFilter(Protocol):
    """What ``FiltersInPlace`` needs of a pane's filter (``ListFilter``, ``TreeFilter``)."""

    kept: bool

    @property
    def active(self) -> bool:
        """A filter is open or kept."""

    @property
    def narrowing(self) -> bool:
        """A filter is active and has words."""


class FiltersInPlace:
    """For a pane whose ``/`` filters it through the bar: ``Enter`` keeps a filter with words (one
    without is cleared), and the pane's ``Esc`` (``action_clear_filter``) clears a kept one; with none
    it is the screen's ``Esc``. The pane says what clearing puts back (``prompt_cleared``)."""

    filter: PaneFilter

    def prompt_cleared(self) -> None:
        raise NotImplementedError

    def prompt_kept(self, text: str) -> None:
        if self.filter.narrowing:
            self.filter.kept = True
        else:
            self.prompt_cleared()  # nothing typed: nothing to keep

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.filter.active if action == "clear_filter" else True

    def action_clear_filter(self) -> None:
        self.prompt_cleared()


class PromptField(Input):
    """The bar's text field (``Enter`` keeps what it says)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "submit", "Keep", id="prompt.keep",
                tooltip="Keep the filter or the find, and go back to the pane"),
    ]  # fmt: skip


class PromptBar(Horizontal):
    """The field, with a word before it saying what it does (``Filter``, ``Find``)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "clear", "Clear", id="prompt.clear",
                tooltip="Clear the filter or the find, and go back to the pane"),
    ]  # fmt: skip

    DEFAULT_CSS = """
    PromptBar {
        dock: bottom;
        height: 1;
        display: none;
        background: $footer-background;
    }
    PromptBar > Label {
        padding: 0 1;
        text-style: bold;
    }
    PromptBar > PromptField, PromptBar > PromptField:focus {
        height: 1;
        border: none;
        padding: 0;
        width: 1fr;
    }
    """

    def __init__(self) -> None:
        super().__init__(id="prompt-bar")
        self._owner: Widget | None = None

    def compose(self) -> ComposeResult:
        yield Label()
        yield PromptField(select_on_focus=False)

    @property
    def owner(self) -> Widget | None:
        """The pane asking now (None while the bar is closed)."""
        return self._owner

    def open(self, owner: Widget, label: str, text: str, placeholder: str, *, selected: bool = False) -> None:
        """Open the bar for ``owner`` (a ``Prompted``) with ``text`` in the field, and focus it;
        ``selected``: the text is selected, so typing replaces it (the cursor is after it otherwise)."""
        self._owner = owner
        self.query_one(Label).update(label)
        field = self.query_one(PromptField)
        with field.prevent(Input.Changed):  # the text is already in force: nothing to tell
            field.value = text
        field.cursor_position = len(text)
        if selected:
            field.select_all()
        field.placeholder = placeholder
        self.screen.add_class("-prompting")
        field.focus()
        release_keys(self.app)  # keys typed after "/" go into the field (queued after the focus)

    def _close(self, *, refocus: bool = True) -> Prompted | None:
        owner, self._owner = self._owner, None
        self.screen.remove_class("-prompting")
        if owner is not None and refocus:
            owner.focus()
            release_keys(self.app)  # keys typed after Enter or Esc go to the pane (after the focus)
        return owner if isinstance(owner, Prompted) else None

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        if isinstance(self._owner, Prompted):
            self._owner.prompt_changed(event.value)

    @on(Input.Submitted)
    def _kept(self, event: Input.Submitted) -> None:
        event.stop()
        if (owner := self._close()) is not None:
            owner.prompt_kept(event.value)

    def action_clear(self) -> None:
        if (owner := self._close()) is not None:
            owner.prompt_cleared()

    def on_descendant_blur(self) -> None:
        # The focus went elsewhere (a click on another pane): keep what was typed, as Enter does.
        if self._owner is not None and (owner := self._close(refocus=False)) is not None:
            owner.prompt_kept(self.query_one(PromptField).value)


def asked_words(screen: Screen[object]) -> str:
    """The words in ``screen``'s bar while it is open (a filter or a find), else "": the search
    (``app.search``) starts from them."""
    bar = next(iter(screen.query(PromptBar)), None)
    return bar.query_one(PromptField).value.strip() if bar is not None and bar.owner is not None else ""


async def ask(owner: Widget, label: str, text: str, placeholder: str, *, selected: bool = False) -> None:
    """Open the screen's bar for ``owner`` (a ``Prompted``): ``label`` before the field, ``text`` in
    it (``selected``: typing replaces it).

    The bar is mounted on first use: the app starts without it, as fast as before it existed.
    """
    screen = owner.screen
    bar = next(iter(screen.query(PromptBar)), None)
    if bar is None:
        bar = PromptBar()
        await screen.mount(bar)
    bar.open(owner, label, text, placeholder, selected=selected)

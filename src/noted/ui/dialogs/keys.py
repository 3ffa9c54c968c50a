"""``KeysOverlay``: every key that works where the focus is, which-key style (``?`` or F1).

The keys are read from the screen's live bindings when the overlay opens, so what it lists is
what the keys do now: a key remapped with ``ui.keymap.*`` shows its new key, a key another pane
shadows is not listed twice, an action that does not apply at the moment (``check_action``
returning False) is left out. They are grouped by who offers them, the focused pane first, then
its screen, then the keys that work everywhere, and end with the pane's own help text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Label, Markdown, Static

from noted.ui.dialogs.over import Over
from noted.ui.patches.binding_chain import working_bindings

EVERYWHERE = "Everywhere"


@dataclass(frozen=True, slots=True)
class KeyRow:
    """One action and the keys that run it."""

    keys: tuple[str, ...]
    """As the key bar shows them (``^n``, ``/``, ``f1``)."""
    description: str
    tooltip: str
    binding_id: str | None
    """The id that ``ui.keymap.<id>`` remaps, if the binding has one."""


@dataclass(frozen=True, slots=True)
class KeyGroup:
    """The keys one pane, screen or the app offers."""

    title: str
    rows: tuple[KeyRow, ...]


def group_title(node: DOMNode, app: App[object]) -> str:
    """A person's name for ``node``: the heading of its help or of the nearest pane around it that
    has one (a text box inside the search screen is "Search"), else its class name in words."""
    if node is app:
        return EVERYWHERE
    for owner in node.ancestors_with_self:
        heading = re.match(r"\s*#+\s*(.+)", getattr(owner, "HELP", None) or "")
        if owner is not app and heading:
            return heading.group(1).strip()
    words = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", type(node).__name__).lower()
    return words[:1].upper() + words[1:]


def key_groups(screen: Screen[object]) -> tuple[KeyGroup, ...]:
    """The active bindings of ``screen`` (focused widget first, the app last), grouped by their owner.

    Several keys for one action (``ctrl+f`` and ``/``) make one row; groups with the same title
    (a pane and the scroller inside it) are one group.
    """
    app = screen.app
    rows: dict[DOMNode, dict[str, tuple[list[str], Binding]]] = {}
    for node, binding in _working_bindings(screen):
        by_action = rows.setdefault(node, {})
        keys, _ = by_action.setdefault(binding.id or binding.action, ([], binding))
        shown = app.get_key_display(binding)
        if shown not in keys:
            keys.append(shown)
    groups: list[KeyGroup] = []
    for node, actions in rows.items():
        found = tuple(
            KeyRow(tuple(keys), binding.description or binding.action, binding.tooltip, binding.id)
            for keys, binding in actions.values()
        )
        title = group_title(node, app)
        if groups and groups[-1].title == title:
            groups[-1] = KeyGroup(title, groups[-1].rows + found)
        else:
            groups.append(KeyGroup(title, found))
    # In each group the app's own keys (they have ids) before those its widgets inherit from Textual.
    return tuple(
        KeyGroup(g.title, tuple(sorted(g.rows, key=lambda row: row.binding_id is None))) for g in groups
    )


_SCROLLS = {
    "scroll_up": "vertical", "scroll_down": "vertical", "page_up": "vertical", "page_down": "vertical",
    "scroll_home": "vertical", "scroll_end": "vertical", "page_left": "horizontal", "page_right": "horizontal",
}  # fmt: skip
"""Scrolling actions, and the direction a widget must scroll in for them to do anything."""


def _pointless(node: DOMNode, binding: Binding) -> bool:
    """True for a scrolling key Textual's widgets inherit, on a widget that cannot scroll that way
    (a one-line text field's "Scroll Up"): Textual passes the key on to the next in line, so that
    one's binding is listed. noted's own keys (they have ids) are always listed."""
    direction = _SCROLLS.get(binding.action)
    if direction is None or binding.id or not isinstance(node, Widget):
        return False
    return not (node.allow_vertical_scroll if direction == "vertical" else node.allow_horizontal_scroll)


def _working_bindings(screen: Screen[object]) -> list[tuple[DOMNode, Binding]]:
    """What each key does on ``screen`` now, leaving out the keys that would do nothing."""
    return working_bindings(screen, _pointless)


def pane_help(screen: Screen[object]) -> str:
    """The help text of the focused widget or its nearest ancestor that has one ("" if none)."""
    node: DOMNode | None = screen.focused or screen
    while node is not None:
        text = getattr(node, "HELP", None)
        if isinstance(text, str) and text.strip():
            return text
        node = node.parent
    return ""


def _table(group: KeyGroup) -> Table:
    table = Table(box=None, show_header=False, padding=(0, 1), expand=True)
    table.add_column(no_wrap=True, style="bold")
    # Both texts wrap, the tooltip given twice the room: a long description (Textual's "Move
    # cursor right or accept the completion suggestion") must not leave the tooltips a `…` each
    # at 80 columns.
    table.add_column(ratio=1)
    table.add_column(ratio=2)
    for row in group.rows:
        what = Text(row.tooltip)
        if row.binding_id:
            what.append(f"  {row.binding_id}", style="dim")
        table.add_row(" ".join(row.keys), row.description, what)
    return table


class KeysOverlay(Over[None]):
    """The keys of the pane that had the focus, then the rest, and the pane's help; Esc closes."""

    CSS_PATH = "keys.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "dismiss", "Close", id="keys.close", tooltip="Close the list of keys"),
        # Same id as the app's: the key that opened the overlay closes it, remapped or not.
        Binding("f1,question_mark", "dismiss", "Close", id="app.help", tooltip="Close the list of keys"),
        Binding("j", "scroll('down')", "Down", show=False, id="keys.down", tooltip="Scroll down"),
        Binding("k", "scroll('up')", "Up", show=False, id="keys.up", tooltip="Scroll up"),
    ]

    def __init__(self, groups: tuple[KeyGroup, ...], help_text: str) -> None:
        """``groups``: from ``key_groups`` on the screen below, read before this one covers it."""
        super().__init__()
        self.groups = groups
        self.help_text = help_text

    def compose(self) -> ComposeResult:
        where = self.groups[0].title if self.groups else EVERYWHERE
        with VerticalScroll(classes="dialog keys", id="keys-scroll") as scroll:
            scroll.border_title = f"Keys · {where}"
            scroll.border_subtitle = "Esc closes · ↑↓ PgUp PgDn scroll"
            for group in self.groups:
                yield Label(group.title, classes="keys--group")
                yield Static(_table(group), classes="keys--table")
            yield Label(
                "Change a key: noted config set ui.keymap.<id> <key>   (ids in grey)", classes="dialog--hint"
            )
            if self.help_text:
                yield Markdown(self.help_text, id="pane-help")

    def on_mount(self) -> None:
        self.query_one("#keys-scroll").focus()

    def action_scroll(self, direction: str) -> None:
        scroll = self.query_one("#keys-scroll", VerticalScroll)
        if direction == "down":
            scroll.scroll_down()
        else:
            scroll.scroll_up()

"""``SettingsScreen``: every setting of the registry, grouped by section, changed in place.

Switches, choices and text fields save as soon as they change (a text field on Enter or when it
loses focus) through ``Settings.set``, which validates and writes ``config.toml``; a value it refuses
shows its message under the field and nothing is saved. The write runs in a thread worker. A
setting an environment variable overrides is shown read-only, naming the variable. The Tools
section (a checklist of read and write tools) and the MCP section (the server's address, its state,
and what to paste into each AI app) are built in ``settings_sections``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Label, Select, Static, Switch

from noted.errors import ConfigError
from noted.services import Services
from noted.settings import Kind, ResolvedSetting, SettingChange, SettingValue, Source
from noted.settings.handles import MCP, TOOLS, UI_THEME
from noted.ui.screens.settings_nav import SectionProvider, jump
from noted.ui.screens.settings_sections import (
    MCP_KEYS,
    SECTIONS,
    mcp_info,
    mcp_state_text,
    snippets_text,
    tool_rows,
    widget_id,
)
from noted.ui.typeahead import release_keys
from noted.ui.widgets.key_bar import KeyBar
from noted.ui.workers import ReportsWorkerFailures, in_thread

_LEFT_OUT_WHEN_EMPTY = frozenset({Kind.LIST, Kind.INT, Kind.TABLE})
"""Kinds whose emptied text field means the setting left out (a text setting's ``""`` is a value,
but for a limit ``Setting.empty_means`` refuses as text)."""


def as_text(value: SettingValue) -> str:
    """A value as a text field holds it, in a form ``Setting.parse`` reads back."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | str):
        return str(value)
    if isinstance(value, tuple):
        return ", ".join(value)
    return json.dumps(dict(value), ensure_ascii=False) if value else ""


class SettingsScreen(ReportsWorkerFailures, Screen[None]):
    """Settings, tools and the MCP server; changes apply at once and persist."""

    HELP = """\
## Settings

Changes apply at once and are saved in the profile's `config.toml`: a switch or a choice when it
changes, a text field on **Enter** or when you leave it. A value that is not allowed says why
under its field, and nothing is saved. A setting an environment variable (`NOTED_…`) sets is
read-only here. The help under each setting says what it does.

**Type** to find a setting (its name, key, section or help; **Enter** goes to the first shown),
{settings.next_section}/{settings.previous_section} go to the next or previous section (the command
palette lists them too), **Tab**/**Shift+Tab** move between settings, **Space** flips a switch,
{settings.close} goes back.
The setting with focus has a heavy bar down its left side and its name reversed.
From a shell: `noted config list`, `noted config set KEY VALUE`.
"""

    CSS_PATH = "settings.tcss"
    AUTO_FOCUS = "#settings-filter"
    """The filter: type to find a setting (Tab goes on to the first one shown)."""
    COMMANDS = Screen.COMMANDS | {SectionProvider}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close", id="settings.close", tooltip="Back to your notes"),
        Binding("ctrl+down", "section(1)", "Next section", id="settings.next_section",
                tooltip="Go to the first setting of the next section"),
        Binding("ctrl+up", "section(-1)", "Previous section", id="settings.previous_section",
                tooltip="Go to the first setting of the previous section"),
    ]  # fmt: skip

    @dataclass
    class Saved(Message, bubble=False):
        """A write finished: ``error`` is the refusal's message, or None when it was saved."""

        key: str
        error: str | None

    @dataclass
    class Touched(Message, bubble=False):
        """Settings in effect changed (here, in another process, or by the app)."""

        keys: tuple[str, ...]

    def __init__(self, services: Services) -> None:
        super().__init__()
        self.services = services
        self._unsubscribe: Any = None
        self.saving = 0
        """Writes in flight (tests wait for 0)."""
        self._findable: list[tuple[Widget, str]] = []
        """Each setting's row and the words the filter looks for in it."""
        self._section = ""

    # Building ------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        title = "Settings · changes apply at once and are saved in the profile's config.toml"
        yield Label(Content(title), id="settings-title")
        yield Input(
            placeholder="Type to find a setting (mcp, timeout, theme…) · Enter goes to it",
            id="settings-filter",
        )
        # Not a Tab stop of its own (it shows no focus): Tab goes from the filter to the first setting,
        # and the page scrolls to the focused one (its keys still scroll it, from the setting).
        with VerticalScroll(id="settings", can_focus=False):
            self.services.registry.all()  # built on first use, it declares the tool switches listed below
            entries = self.services.settings.entries()
            sections: dict[str, list[ResolvedSetting]] = {}
            for resolved in entries:
                sections.setdefault(resolved.spec.section, []).append(resolved)
            for section, items in sections.items():
                with SECTIONS.get(section, Vertical)(classes="section"):
                    yield Label(section, classes="section--title")
                    self._section = section.lower()
                    if section == TOOLS:
                        yield from tool_rows(self.services, items, self._findable)
                    else:
                        for resolved in items:
                            yield self._row(resolved)
                    if section == MCP:
                        yield from mcp_info(self.services, getattr(self.app, "mcp_status", ""))
        yield KeyBar()  # keeps F1 and the palette whole at 80 columns, as the workspace's does

    def _row(self, resolved: ResolvedSetting) -> Widget:
        spec = resolved.spec
        control = self._control(resolved)
        control.disabled = resolved.source is Source.ENV
        label = Label(self._label(resolved), classes="setting--label")
        parts: list[Widget] = (
            [Horizontal(control, self._state(spec.key, bool(resolved.value)), label, classes="setting--head")]
            if spec.kind is Kind.BOOL
            else [label, control]
        )
        error = Label("", classes="setting--error", id=widget_id(spec.key) + "-error")
        error.display = False
        row = Vertical(*parts, error, Label(Content(spec.help), classes="setting--help"), classes="setting")
        self._findable.append((row, f"{self._section} {spec.key} {spec.label}\n{spec.help}".lower()))
        return row

    @staticmethod
    def _state(key: str, on: bool) -> Label:
        """A switch's state in words, beside it: its colour alone is lost with NO_COLOR."""
        return Label("on " if on else "off", classes="setting--state", id=widget_id(key) + "-state")

    def _show_state(self, key: str | None, on: bool) -> None:
        if key is not None:
            for state in self.query(f"#{widget_id(key)}-state").results(Label):
                state.update("on " if on else "off")

    def _label(self, resolved: ResolvedSetting) -> Content:
        pieces: list[str | tuple[str, str]] = [(resolved.spec.label, "bold")]
        if resolved.source is Source.ENV:
            pieces.append((f"  set by {resolved.env_var}: read-only here", "$text-warning"))
        return Content.assemble(*pieces)

    def _control(self, resolved: ResolvedSetting) -> Widget:
        spec, value, wid = resolved.spec, resolved.value, widget_id(resolved.spec.key)
        if spec.kind is Kind.BOOL:
            return Switch(bool(value), animate=False, name=spec.key, id=wid)
        if spec.kind is Kind.ENUM or spec.key == UI_THEME.key:
            choices = list(spec.choices) if spec.kind is Kind.ENUM else self._themes(str(value))
            return Select(
                ((c, c) for c in choices), value=str(value), allow_blank=False, name=spec.key, id=wid
            )
        return Input(as_text(value), placeholder=spec.allowed(), name=spec.key, id=wid)

    def _themes(self, current: str) -> list[str]:
        names = set(self.app.available_themes) | {current}
        return sorted(names, key=lambda n: (not n.startswith("noted"), n))

    # Life cycle ---------------------------------------------------------------------------------
    def on_screen_resume(self) -> None:
        release_keys(self.app)  # the first field has focus (AUTO_FOCUS): keys typed after F2 go there

    def on_mount(self) -> None:
        self._unsubscribe = self.services.settings.subscribe(self._settings_touched)
        self.set_interval(0.5, self._refresh_mcp_state)  # the app's server reports to the app, not here

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()

    def _settings_touched(self, changes: tuple[SettingChange, ...]) -> None:
        self.post_message(self.Touched(tuple(change.key for change in changes)))  # any thread

    def _refresh_mcp_state(self) -> None:
        """Show the server's state if it changed: an update lays the whole screen out again."""
        state = self.query_one("#mcp-state", Static)
        text = Content(mcp_state_text(self.services, getattr(self.app, "mcp_status", "")))
        if text != state.content:
            state.update(text)

    # Changing ------------------------------------------------------------------------------------
    @on(Switch.Changed)
    def _switched(self, event: Switch.Changed) -> None:
        self._show_state(event.switch.name, event.value)
        self._save(event.switch.name, event.value)

    @on(Checkbox.Changed)
    def _checked(self, event: Checkbox.Changed) -> None:
        self._save(event.checkbox.name, event.value)

    @on(Select.Changed)
    def _chosen(self, event: Select.Changed) -> None:
        if isinstance(event.value, str):
            self._save(event.select.name, event.value)

    @on(Input.Changed, "#settings-filter")
    def _filter(self, event: Input.Changed) -> None:
        """Show only the settings whose section, name, key or help hold every word typed."""
        event.stop()
        words = event.value.lower().split()
        for widget, text in self._findable:
            widget.display = all(word in text for word in words)
        for section in self.query(".section"):
            rows = [w for w, _ in self._findable if section in w.ancestors]
            section.display = not words or any(w.display for w in rows)

    @on(Input.Submitted, "#settings-filter")
    def _to_first_shown(self, event: Input.Submitted) -> None:
        event.stop()
        # The row whose name holds the words typed, the shortest such name first (the closest to
        # the words), before those that hold them only in their help: `model` goes to *Model*, not
        # to *Use the assistant* (whose help mentions a model) nor *Allow remote models*.
        words = self.query_one("#settings-filter", Input).value.lower().split()

        def rank(row: tuple[Widget, str]) -> tuple[bool, int]:
            name = row[1].partition("\n")[0]
            named = all(word in name for word in words)
            return not named, len(name) if named else 0

        shown = sorted(((w, t) for w, t in self._findable if w.display), key=rank)
        for widget, _ in shown:
            if widget.display:
                target = (
                    widget if widget.focusable else next((w for w in widget.query("*") if w.focusable), None)
                )
                if target is not None:
                    target.focus()
                    return

    @on(Input.Submitted)
    @on(Input.Blurred)
    def _typed(self, event: Input.Submitted | Input.Blurred) -> None:
        self._save(event.input.name, event.value)

    def _save(self, key: str | None, value: SettingValue) -> None:
        if key is None:
            return
        settings = self.services.settings
        resolved = settings.resolve(key)
        emptied = isinstance(value, str) and not value.strip()
        if emptied and (resolved.spec.kind in _LEFT_OUT_WHEN_EMPTY or resolved.spec.empty_means):
            self._show_error(key, None)  # an emptied field is the setting left out: its default applies
            if resolved.source is Source.DEFAULT:
                self._sync(key)  # shows the default again once the field is left
            else:
                self.saving += 1
                in_thread(self, lambda: self._write(key, None), "settings", f"unsetting {key}")
            return
        try:  # checked here (no I/O) so a refused value never reaches the file
            typed = resolved.spec.parse(value) if isinstance(value, str) else resolved.spec.coerce(value)
        except ConfigError as exc:
            self._show_error(key, str(exc))
            return
        self._show_error(key, None)
        if typed == resolved.value:  # a redraw or a re-submit, not a change
            return
        self.saving += 1
        in_thread(self, lambda: self._write(key, typed), "settings", f"saving {key}")

    def _write(self, key: str, value: SettingValue | None) -> None:
        """Save ``value``, or remove the key from the file when it is None."""
        try:
            if value is None:
                self.services.settings.unset(key)
            else:
                self.services.settings.set(key, value)
            error = None
        except ConfigError as exc:
            error = str(exc)
        self.post_message(self.Saved(key, error))

    @on(Saved)
    def _saved(self, message: Saved) -> None:
        self.saving -= 1
        self._show_error(message.key, message.error)

    def _show_error(self, key: str, error: str | None) -> None:
        """Show ``error`` under the setting, or hide it; an update lays the whole screen out again,
        so a line that already says it (no error, every save) is left alone."""
        found = self.query(f"#{widget_id(key)}-error")
        label = found.first(Label) if found else self.query_one("#tools-error", Label)
        text = Content(error or "")
        if text != label.content:
            label.update(text)
        label.display = error is not None

    @on(Touched)
    def _touched(self, message: Touched) -> None:
        for key in message.keys:
            self._sync(key)
        if MCP_KEYS.intersection(message.keys):
            self._refresh_mcp_state()
            self.query_one("#mcp-snippet-text", Static).update(snippets_text(self.services))

    def _sync(self, key: str) -> None:
        """Show a value changed elsewhere (``noted config``, the file, the command palette)."""
        found = self.query(f"#{widget_id(key)}")
        if not found:
            return
        control, value = found.first(), self.services.settings.resolve(key).value
        if isinstance(control, Switch | Checkbox) and control.value != value:
            with control.prevent(Switch.Changed, Checkbox.Changed):
                control.value = bool(value)
            self._show_state(key, bool(value))
        elif isinstance(control, Select) and control.value != value:
            with control.prevent(Select.Changed):
                control.value = value
        elif isinstance(control, Input) and not control.has_focus:
            with control.prevent(Input.Changed):
                control.value = as_text(value)

    def action_section(self, step: int) -> None:
        """Go to the first setting of the next (``step`` 1) or previous (-1) section."""
        jump(self, step)

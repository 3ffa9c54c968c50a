"""``SettingsScreen``: every setting of the registry, grouped by section, changed in place.

Switches, choices and text fields save as soon as they change (a text field on Enter or when it
loses focus) through ``Settings.set``, which validates and writes ``config.toml``; a value it refuses
shows its message under the field and nothing is saved. The write runs in a thread worker. A
setting an environment variable overrides is shown read-only, naming the variable. The Tools
section (a checklist of read and write tools) and the MCP section (the server's address, its state,
and what to paste into each AI app) are built in ``settings_sections``.

The app builds the screen once and keeps it: opened again, it shows as a new one would
(``SettingsScreen.afresh``), its values kept current meanwhile by its subscription to the settings.
The first frame holds the first section only, which fills it; the others, six times its widgets,
are added right after (``_build_rest``), so F2 shows the screen at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import AwaitMount, Widget
from textual.widgets import Checkbox, Input, Label, Select, Static, Switch

from noted.errors import ConfigError
from noted.services import Services
from noted.settings import Kind, ResolvedSetting, SettingChange, SettingValue, Source
from noted.ui.screens.settings_nav import SectionProvider, close_choices, fit_choices, jump
from noted.ui.screens.settings_sections import (
    MCP_KEYS,
    as_text,
    build_section,
    mcp_state_text,
    snippets_text,
    state_word,
    widget_id,
)
from noted.ui.typeahead import release_keys
from noted.ui.widgets.hint_field import HintField
from noted.ui.widgets.key_bar import KeyBar
from noted.ui.workers import ReportsWorkerFailures, in_thread

_LEFT_OUT_WHEN_EMPTY = frozenset({Kind.LIST, Kind.INT, Kind.TABLE})
"""Kinds whose emptied text field means the setting left out (a text setting's ``""`` is a value,
but for a limit ``Setting.empty_means`` refuses as text)."""


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
palette lists them too), {settings.next_setting}/{settings.previous_setting} move between settings,
**Space** flips a switch, {settings.close} goes back.
The setting with focus has a heavy bar down its left side and its name reversed.
From a shell: `noted config list`, `noted config set KEY VALUE`.
"""

    CSS_PATH = "settings.tcss"
    NOTICES_AT_FOOT = "setting"
    """Notices keep to the key bar's row, off the focused setting (``noted.ui.notices``)."""
    AUTO_FOCUS = "#settings-filter"
    """The filter: type to find a setting (Tab goes on to the first one shown)."""
    COMMANDS = Screen.COMMANDS | {SectionProvider}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close", id="settings.close", tooltip="Back to your notes"),
        Binding("ctrl+down", "section(1)", "Next section", id="settings.next_section",
                tooltip="Go to the first setting of the next section"),
        Binding("ctrl+up", "section(-1)", "Previous section", id="settings.previous_section",
                tooltip="Go to the first setting of the previous section"),
        Binding("tab", "step(1)", "Move", show=False, id="settings.next_setting",
                tooltip="Go to the next setting shown"),
        Binding("shift+tab", "step(-1)", "Move", show=False, id="settings.previous_setting",
                tooltip="Go to the previous setting shown"),
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
        self._pending: list[tuple[str, list[ResolvedSetting]]] = []
        """The sections not built yet: each with its settings."""
        self._rest: list[Widget] = []
        self._mounting: AwaitMount | None = None
        self._mcp_timer: Timer | None = None
        self._refused: set[str] = set()
        """The settings whose field shows why its value was refused."""

    # Building ------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        title = "Settings · changes apply at once and are saved in the profile's config.toml"
        yield Label(Content(title), id="settings-title")
        yield HintField(
            "Type to find a setting (mcp, timeout, theme…) · Enter goes to it",
            "Find a setting (mcp, theme…) · Enter goes to it",
            "Find a setting · Enter goes to it",
            id="settings-filter",
        )
        self.services.registry.all()  # built on first use, it declares the tool switches listed below
        sections: dict[str, list[ResolvedSetting]] = {}
        for resolved in self.services.settings.entries():
            sections.setdefault(resolved.spec.section, []).append(resolved)
        # The first section fills the first screen; the others (six times its widgets) are built
        # once it is painted (``_build_rest``), so F2 shows the screen at once.
        first, *self._pending = sections.items()
        # Not a Tab stop of its own (it shows no focus): Tab goes from the filter to the first setting,
        # and the page scrolls to the focused one (its keys still scroll it, from the setting).
        room = Widget(id="settings-room")  # blank a list of choices may need under the last setting
        yield VerticalScroll(self._section(*first), room, id="settings", can_focus=False)
        yield KeyBar()  # keeps F1 and the palette whole at 80 columns, as the workspace's does

    def _section(self, section: str, items: list[ResolvedSetting]) -> Widget:
        status = getattr(self.app, "mcp_status", "")
        return build_section(self.services, section, items, self._findable, self.app.available_themes, status)

    def _build_rest(self) -> None:
        """Add the sections left out of the first frame, shown or hidden by the filter typed so far."""
        if self._pending:
            self._rest = [self._section(*pending) for pending in self._pending]
            self._pending = []
            self._mounting = self.query_one("#settings", VerticalScroll).mount_all(
                self._rest, before="#settings-room"
            )
            self._show_matching()

    async def _built(self) -> None:
        """Wait until every section is on the screen (what looks through them all needs them)."""
        self._build_rest()
        if self._mounting is not None:
            await self._mounting

    @property
    def built(self) -> bool:
        """Every section is on the screen (tests wait for it)."""
        return not self._pending and all(section.is_mounted for section in self._rest)

    def _show_state(self, key: str | None, on: bool) -> None:
        if key is not None:
            for state in self.query(f"#{widget_id(key)}-state").results(Label):
                state.update(state_word(on))

    # Life cycle ---------------------------------------------------------------------------------
    def on_screen_resume(self) -> None:
        if self._mcp_timer is not None:  # (opened again: the first opening starts it on mount)
            self._refresh_mcp_state()
            self._mcp_timer.resume()
        release_keys(self.app)  # the first field has focus (AUTO_FOCUS): keys typed after F2 go there

    def on_mount(self) -> None:
        self._unsubscribe = self.services.settings.subscribe(self._settings_touched)
        # The app's server reports to the app, not here: look while the screen shows.
        self._mcp_timer = self.set_interval(0.5, self._refresh_mcp_state)
        self.call_after_refresh(self._build_rest)

    def on_screen_suspend(self) -> None:
        if self._mcp_timer is not None:
            self._mcp_timer.pause()

    def afresh(self) -> None:
        """Opened again (the app keeps the screen): as a new one shows, with no filter, at the
        top, the filter focused, and a field that showed a refused value back to the saved one."""
        finder = self.query_one("#settings-filter", Input)
        with finder.prevent(Input.Changed):
            finder.value = ""
        self._show_matching()
        self.set_focus(None)  # the filter takes it on resume (AUTO_FOCUS)
        self.query_one("#settings", VerticalScroll).scroll_home(animate=False, immediate=True)
        for key in list(self._refused):
            self._show_error(key, None)
            self._sync(key)

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()

    def _settings_touched(self, changes: tuple[SettingChange, ...]) -> None:
        self.post_message(self.Touched(tuple(change.key for change in changes)))  # any thread

    def _refresh_mcp_state(self) -> None:
        """Show the server's state if it changed: an update lays the whole screen out again."""
        found = self.query("#mcp-state")
        if not found:
            return  # not built yet: it is built with the state of the moment
        state = found.first(Static)
        text = Content(mcp_state_text(self.services, getattr(self.app, "mcp_status", "")))
        if text != state.content:
            state.update(text)

    # Changing ------------------------------------------------------------------------------------
    @on(events.DescendantFocus, "SelectOverlay")
    def _choices_opened(self, event: events.DescendantFocus) -> None:
        """A list of choices opened (it takes the focus): under its field, above the key bar."""
        select = event.widget.parent
        if isinstance(select, Select):  # once the page has scrolled to the field focused just before
            page = self.query_one("#settings", VerticalScroll)
            self.call_after_refresh(fit_choices, page, select, self.query_one("#settings-room"))

    @on(events.DescendantBlur, "SelectOverlay")
    def _choices_closed(self) -> None:
        close_choices(self.query_one("#settings-room"))

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
        event.stop()
        self._show_matching()

    def _show_matching(self) -> None:
        """Show only the settings whose section, name, key or help hold every word typed."""
        words = self.query_one("#settings-filter", Input).value.lower().split()
        for widget, text in self._findable:
            widget.display = all(word in text for word in words)
        for section in self.query(".section"):
            rows = [w for w, _ in self._findable if section in w.ancestors]
            section.display = not words or any(w.display for w in rows)

    @on(Input.Submitted, "#settings-filter")
    async def _to_first_shown(self, event: Input.Submitted) -> None:
        event.stop()
        await self._built()  # Enter typed ahead of the sections built after the first frame
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
        (self._refused.add if error is not None else self._refused.discard)(key)

    @on(Touched)
    def _touched(self, message: Touched) -> None:
        for key in message.keys:
            self._sync(key)
        if MCP_KEYS.intersection(message.keys):
            self._refresh_mcp_state()
            for snippets in self.query("#mcp-snippet-text").results(Static):  # (once built)
                snippets.update(snippets_text(self.services))

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

    async def action_section(self, step: int) -> None:
        """Go to the first setting of the next (``step`` 1) or previous (-1) section."""
        await self._built()
        jump(self, step)

    async def action_step(self, step: int) -> None:
        """Tab (``step`` 1) and Shift+Tab (-1), once the sections shown are laid out: Textual
        orders the focus by place on the screen, and a section mounted but not laid out yet sits
        at the top (a Tab typed as the screen opened went from the filter to the Tools section)."""
        await self._built()
        move = self.focus_next if step > 0 else self.focus_previous
        if any(section.display and not section.virtual_region for section in self._rest):
            self.call_after_refresh(move)  # the next frame lays them out
        else:
            move()

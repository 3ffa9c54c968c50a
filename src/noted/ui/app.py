"""``NotedApp``: themes, keymap, the app-wide keys, and the long-lived work behind the screens.

The panes live on the ``Workspace`` screen and do their own work. The app starts what runs for
as long as it does when it mounts (the indexer, and a follower of the store's change feed that
repaints what another process changed) and stops it when it unmounts; that work itself is in
``background``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from pathlib import PurePath
from typing import TYPE_CHECKING, ClassVar

from textual import events, on
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.theme import Theme
from textual.worker import Worker, WorkerState

from noted.errors import NotedError
from noted.services import Services
from noted.settings import SettingChange
from noted.settings.handles import MCP_ENABLED, MCP_HOST, MCP_PORT, UI_KEYMAP, UI_THEME
from noted.ui import crash, memory, patches, setting_checks
from noted.ui.background import RunsInBackground
from noted.ui.clipboard import CopiesThroughTmux
from noted.ui.commands import (
    MoveToProvider,
    OpenNoteProvider,
    SwitchThemeProvider,
    ToggleToolProvider,
    open_theme_palette,
)
from noted.ui.dialogs.conflict import ConflictView
from noted.ui.dialogs.keys import KeysOverlay, key_groups, pane_help
from noted.ui.messages import (
    IndexerStatusChanged,
    OpenNote,
    ReadAhead,
    SettingsChanged,
    StatusPart,
    StoreChanged,
    WorkFailed,
)
from noted.ui.palette import key_hints, system_commands
from noted.ui.slots import search_screen, settings_screen
from noted.ui.themes import DEFAULT_THEME, load_themes, user_theme_dirs
from noted.ui.typeahead import HoldsKeys
from noted.ui.widgets.markdown_page import code_theme
from noted.ui.widgets.note_editor import CONFLICT, NoteEditor
from noted.ui.widgets.note_list import NoteList
from noted.ui.widgets.status_bar import StatusBar
from noted.ui.workers import ReportsWorkerFailures
from noted.ui.workspace import Workspace

if TYPE_CHECKING:
    from noted.mcp.embedded import EmbeddedMcpServer
    from noted.ui.launch import FirstLook

log = logging.getLogger(__name__)

MCP_RESTART_KEYS = frozenset({MCP_HOST.key, MCP_PORT.key})
"""Settings the running MCP server must restart to follow (``mcp.enabled`` starts or stops it)."""

KEYS_HELP = "Every key of the focused pane and of the app, and the pane's help"
"""The palette's "Keys" (Textual's opens its help panel; this opens ``KeysOverlay``)."""


class NotedApp(ReportsWorkerFailures, HoldsKeys, CopiesThroughTmux, crash.LastResort, RunsInBackground):
    """The terminal notebook."""

    # The default screen's own CSS_PATH is not read by Textual (only pushed screens' are), so the
    # app loads the workspace's stylesheet for it.
    CSS_PATH: ClassVar[list[str | PurePath]] = ["app.tcss", "workspace.tcss"]
    TITLE = "noted"
    COMMANDS = App.COMMANDS | {OpenNoteProvider, MoveToProvider, ToggleToolProvider, SwitchThemeProvider}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", id="app.quit", tooltip="Save what is being edited and quit", priority=True),
        Binding("ctrl+f,slash", "search", "Search", id="app.search", tooltip="Find notes by keyword or meaning"),
        Binding("f1,question_mark", "help", "Help", id="app.help", tooltip="Every key of the focused pane, and its help"),
        Binding("f2", "settings", "Settings", id="app.settings", tooltip="Settings, tools and the MCP server"),
    ]  # fmt: skip

    def __init__(
        self, services: Services, *, background: bool = True, first_look: FirstLook | None = None
    ) -> None:
        """``background=False`` starts neither the indexer nor the followers of changes and of
        ``config.toml`` (for snapshots);
        ``first_look``: the first screen's rows, being read ahead (``launch.open_app``)."""
        self.first_look = first_look
        self._current_theme: tuple[str, Theme] | None = None
        patches.install()
        self._collector = memory.Collector()
        super().__init__()
        self.services = services
        self._background = background
        self._unsubscribe: Callable[[], None] | None = None
        self._mcp: EmbeddedMcpServer | None = None
        self._mcp_lock = asyncio.Lock()
        self._restore_hooks: Callable[[], None] = lambda: None
        self._settings: Screen[object] | None = None
        self.mcp_status = ""
        """The MCP server's status-bar text (the settings screen shows it too)."""
        setting_checks.install(services.settings)  # what the core cannot check: themes, key names
        found = load_themes(user_theme_dirs(services.settings.path))
        for theme in found.themes.values():
            self.register_theme(theme)
        self._problems = list(found.problems) + list(services.settings.problems)
        self.theme = self._theme_name(services.settings.get(UI_THEME))

    def get_default_screen(self) -> Workspace:
        return Workspace(self.services, self.first_look)

    @property
    def workspace(self) -> Workspace:
        """The main screen, whichever screen is on top."""
        screen = self.screen_stack[0]
        assert isinstance(screen, Workspace)
        return screen

    @property
    def current_theme(self) -> Theme:
        """As in ``App``, but remembered: Textual asks for it for every line it paints, and looks it up
        in a dictionary it builds afresh each time (an eighth of the time a note took to open)."""
        cached = self._current_theme
        if cached is None or cached[0] != self.theme:
            cached = self._current_theme = (self.theme, super().current_theme)
        return cached[1]

    def register_theme(self, theme: Theme) -> None:
        super().register_theme(theme)
        self._current_theme = None

    def _theme_name(self, wanted: str) -> str:
        if wanted in self.available_themes:
            return wanted
        fallback = DEFAULT_THEME if DEFAULT_THEME in self.available_themes else "textual-dark"
        self._problems.append(f'theme "{wanted}" not found; using {fallback}')
        return fallback

    # Life cycle ----------------------------------------------------------------------------
    def on_mount(self) -> None:
        self._restore_hooks = self.catch_background_errors()
        settings = self.services.settings
        self.set_keymap(dict(settings.get(UI_KEYMAP)))
        self._unsubscribe = settings.subscribe(self._settings_touched)
        for problem in self._problems:  # each broken theme file or setting is reported once, at start
            self.notify(problem, title="Settings", severity="warning", timeout=8)
        if self._background:
            self.follow_settings()
            self.follow_changes()
            self.start_indexer()
        if settings.get(MCP_ENABLED):
            self.apply_mcp()
        # The tools (and their imports) are built once the app is up, so the settings screen, the
        # palette's "Toggle tool…" and the chat pane do not wait for them.
        self.set_timer(1.0, self._warm_up)
        self.set_interval(1.0, self._collector.tick)

    def _warm_up(self) -> None:
        code = code_theme(self.current_theme.dark)

        def warm_up() -> None:
            _ = self.services.registry
            from noted.ui.widgets.markdown_draw import warm_up as warm_up_code  # Rich Markdown, Pygments

            warm_up_code(code)  # the first note with a code block then opens as fast as the next

        self.run_worker(
            warm_up, thread=True, group="warm-up", exit_on_error=False,
            description="loading the assistant's tools and the code highlighter",
        )  # fmt: skip

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        super().on_worker_state_changed(event)
        if event.worker.group == "warm-up" and event.state is WorkerState.SUCCESS:
            self._collector.settle()  # the app is up: later collections need not walk all of it again

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.InputEvent):
            self._collector.input_seen()
        await super().on_event(event)

    def _settings_touched(self, changes: tuple[SettingChange, ...]) -> None:
        # Runs in whichever thread changed the setting: only post, never touch widgets.
        self.post_message(SettingsChanged(tuple(change.key for change in changes)))

    async def on_unmount(self) -> None:
        self._restore_hooks()
        self._collector.stop()
        if self._unsubscribe is not None:
            self._unsubscribe()
        if self._mcp is not None:
            await self._mcp.stop()
        indexer = self.services.indexer
        if indexer is not None:
            indexer.stop(timeout=2.0)

    # Errors nothing caught ---------------------------------------------------------------
    def crash_report(self, error: BaseException) -> str:
        """Keep the editor's unsaved text, then say what happened and where to look."""
        unsaved = self._unsaved()
        rescued = crash.rescue(self.services.profile.root, unsaved) if unsaved is not None else None
        return crash.one_line(error, self.services.profile.log_path, rescued)

    def _unsaved(self) -> crash.Unsaved | None:
        """The editor's text if it is not saved (None too if the app is too broken to say)."""
        try:
            editors = self.screen_stack[0].query(NoteEditor) if self.screen_stack else None
            editor = editors.first() if editors else None
            if editor is None or editor.note is None or not editor.dirty:
                return None
            return crash.Unsaved(editor.note.id, editor.title_text or editor.note.title, editor.body_text)
        except Exception:  # on the way out after an error: the line must still be shown
            log.exception("could not read the editor's text after an error")
            return None

    # App-wide messages ---------------------------------------------------------------------
    @property
    def status(self) -> StatusBar:
        return self.workspace.query_one(StatusBar)

    def set_status(self, part: str, text: str) -> None:
        """Set one part of the status bar (``"mcp"``, ``"tokens"``, ``"model"``); ``""`` hides it."""
        self.status.set_part(part, text)

    @on(StoreChanged)
    def _store_changed(self, event: StoreChanged) -> None:
        self.workspace.store_changed(event)

    @on(OpenNote)
    async def _open_note(self, event: OpenNote) -> None:
        await self.workspace.open_requested(event)

    @on(ReadAhead)
    def _read_ahead(self, event: ReadAhead) -> None:
        self.workspace.read_ahead(event.note_ids)

    @on(IndexerStatusChanged)
    def _index_status(self, event: IndexerStatusChanged) -> None:
        self.status.set_index(event.status)

    @on(StatusPart)
    def _status_part(self, event: StatusPart) -> None:
        self.set_status(event.part, event.text)

    @on(WorkFailed)
    def _work_failed(self, event: WorkFailed) -> None:
        error = event.error
        if isinstance(error, NotedError):
            self.notify(f"{event.description}: {error}", severity="error", timeout=8)
            return
        log.error("%s failed", event.description, exc_info=(type(error), error, error.__traceback__))
        where = self.services.profile.log_path
        self.notify(
            f"{event.description} failed ({type(error).__name__}); details in {where}", severity="error"
        )

    @on(SettingsChanged)
    def _settings_changed(self, event: SettingsChanged) -> None:
        settings = self.services.settings
        if UI_THEME.key in event.keys:
            self.theme = self._theme_name(settings.get(UI_THEME))
        if any(key.startswith(UI_KEYMAP.key) for key in event.keys):
            self.set_keymap(dict(settings.get(UI_KEYMAP)))
        if any(key.startswith(("ai.", "mcp.")) for key in event.keys):
            self.workspace.show_settings()
        moved = bool(MCP_RESTART_KEYS.intersection(event.keys))
        if MCP_ENABLED.key in event.keys or (moved and self._mcp is not None):
            self.apply_mcp(restart=moved)

    # Actions -------------------------------------------------------------------------------
    async def action_quit(self) -> None:
        if isinstance(self.screen, ConflictView):
            self.screen.keep_and_quit()  # asked to quit again: the safe choice, then quit
            return
        if await self.workspace.query_one(NoteEditor).flush(quitting=True) == CONFLICT:
            return  # the editor shows the conflict; it quits once the person's text is safe
        self.exit()

    def action_search(self) -> None:
        try:
            if not self.is_screen_installed("search"):
                # Built once and kept: closing a screen Textual must also remove repaints the whole
                # workspace a second time (after pruning its widgets), 30-40 ms on every note opened.
                self.install_screen(search_screen(self.services), "search")
            self.push_screen("search")  # it opens the chosen note itself, before it closes
        except NotedError as exc:
            self.notify(str(exc), severity="warning")

    def action_settings(self) -> None:
        if self._settings is not None and self._settings in self.screen_stack:
            self.release_keys()
            return  # F2 inside the settings (or a dialog over them): they are open already
        try:
            self._settings = settings_screen(self.services)
            self.push_screen(self._settings)  # it hands on the keys typed ahead once it has focus
        except NotedError as exc:
            self.notify(str(exc), severity="warning")

    def action_new_note(self) -> None:
        self.workspace.action_new_note()

    async def action_toggle_chat(self) -> None:
        await self.workspace.action_toggle_chat()

    def action_toggle_sidebar(self) -> None:
        self.workspace.action_toggle_sidebar()

    def action_focus_tree(self) -> None:
        self.workspace.action_focus_tree()

    def action_focus_list(self) -> None:
        self.workspace.action_back()

    def action_empty_trash(self) -> None:
        self.workspace.action_empty_trash()

    def list_shown(self) -> bool:
        """Whether the note list is on screen (the palette's list commands need it)."""
        workspace = self.workspace
        return workspace.shows(workspace.query_one(NoteList))

    def move_targets_to(self, folder_id: str) -> None:
        """Move the list's marked notes (or its highlighted one) to ``folder_id``."""
        self.workspace.move_targets_to(folder_id)

    def action_change_theme(self) -> None:
        """Textual's "Theme" command: the chosen theme is saved as ``ui.theme`` (Textual's is not)."""
        open_theme_palette(self)

    def action_help(self) -> None:
        """F1 or ``?``: the keys of the focused pane and its help (again: close them)."""
        if isinstance(self.screen, KeysOverlay):
            self.screen.dismiss(None)
        else:
            self.push_screen(KeysOverlay(key_groups(self.screen), pane_help(self.screen)))

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        for command in super().get_system_commands(screen):
            if command.callback in (self.action_show_help_panel, self.action_hide_help_panel):
                command = SystemCommand(
                    "Keys", key_hints(self).for_callback(KEYS_HELP, self.action_help), self.action_help
                )
            yield command
        if isinstance(screen, Workspace):
            yield from system_commands(self, screen)

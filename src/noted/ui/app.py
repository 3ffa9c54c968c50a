"""``NotedApp``: themes, keymap, the app-wide keys, and the parts the app owns.

The panes live on the ``Workspace`` screen and do their own work. The app owns, and starts when it
mounts and stops when it unmounts: its long-lived work (``background``: the indexer, a follower of
the store's change feed that repaints what another process changed, the MCP server), its speed-ups
(``speed``), the keys held for an opening pane (``typeahead``) and what it does with an error
nothing caught (``crash``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events, on
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.notifications import Notify
from textual.screen import Screen
from textual.widgets import Input, TextArea
from textual.worker import Worker, WorkerFailed

from noted.errors import NotedError
from noted.services import Services
from noted.settings import SettingChange
from noted.settings.handles import MCP_ENABLED, UI_KEYMAP, UI_THEME
from noted.ui import crash, notices, setting_checks
from noted.ui.background import Background
from noted.ui.clipboard import pass_through_tmux
from noted.ui.commands import (
    MoveToProvider,
    OpenNoteProvider,
    SwitchThemeProvider,
    ToggleToolProvider,
    open_theme_palette,
)
from noted.ui.dialogs.confirm import Confirm
from noted.ui.dialogs.conflict import ConflictView
from noted.ui.dialogs.keys import KeysOverlay, key_groups, pane_help
from noted.ui.dialogs.over import ANYWHERE
from noted.ui.messages import (
    FirstNotesListed,
    IndexerStatusChanged,
    OpenNote,
    ReadAhead,
    SettingsChanged,
    StatusPart,
    StoreChanged,
    WorkFailed,
)
from noted.ui.palette import key_hints, system_commands
from noted.ui.patches.key_parser import parse_keys
from noted.ui.speed import FirstLook, Speedups, log_ready, process_age
from noted.ui.themes import DEFAULT_THEME, load_themes, user_theme_dirs
from noted.ui.typeahead import TypeAhead
from noted.ui.widgets.markdown_theme import code_theme
from noted.ui.widgets.note_editor import CONFLICT, NoteEditor
from noted.ui.widgets.prompt_bar import asked_words
from noted.ui.widgets.status_bar import StatusBar
from noted.ui.workers import report_failure
from noted.ui.workspace import Workspace

if TYPE_CHECKING:
    from noted.ui.screens.settings import SettingsScreen

log = logging.getLogger(__name__)

KEYS_HELP = "Every key of the focused pane and of the app, and the pane's help"
"""The palette's "Keys" (Textual's opens its help panel; this opens ``KeysOverlay``)."""


class NotedApp(App[None]):
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
        *ANYWHERE,
    ]  # fmt: skip

    def __init__(
        self,
        services: Services,
        *,
        background: bool = True,
        first_look: FirstLook | None = None,
        notices: Iterable[str] = (),
    ) -> None:
        """``background=False`` starts neither the indexer nor the followers of changes and of
        ``config.toml`` (for snapshots);
        ``first_look``: the first screen's rows, being read ahead (``launch.open_app``);
        ``notices``: what opening the services found to say, shown at start."""
        self.speed = Speedups(first_look)
        super().__init__()
        self.services = services
        self.background = Background(self, services)
        self.typeahead = TypeAhead(self)
        self.crash = crash.CrashReport(self, self._crash_line)
        self._run_background = background
        self._unsubscribe: Callable[[], None] | None = None
        self._restore_hooks: Callable[[], None] = lambda: None
        self._settings: SettingsScreen | None = None
        setting_checks.install(services.settings)  # what the core cannot check: themes, key names
        found = load_themes(user_theme_dirs(services.settings.path))
        for theme in found.themes.values():
            self.register_theme(theme)
        self._problems = list(found.problems) + list(services.settings.problems)
        self._notices = list(notices)
        self.theme = self._theme_name(services.settings.get(UI_THEME))

    def typed_before_start(self, typed: str) -> None:
        """The keys typed before the app took the terminal (``noted.cli.early_keys``), to go first."""
        self.typeahead.typed_before_start(parse_keys(typed))

    def get_default_screen(self) -> Workspace:
        return Workspace(self.services, self.speed.first_look)

    @property
    def workspace(self) -> Workspace:
        """The main screen, whichever screen is on top."""
        screen = self.screen_stack[0]
        assert isinstance(screen, Workspace)
        return screen

    @property
    def mcp_status(self) -> str:
        """The MCP server's status-bar text (the settings screen shows it too)."""
        return self.background.mcp_status

    def _theme_name(self, wanted: str) -> str:
        if wanted in self.available_themes:
            return wanted
        fallback = DEFAULT_THEME if DEFAULT_THEME in self.available_themes else "textual-dark"
        self._problems.append(f'theme "{wanted}" not found; using {fallback}')
        return fallback

    # Life cycle ----------------------------------------------------------------------------
    def on_mount(self) -> None:
        self._restore_hooks = self.crash.catch_background_errors()
        settings = self.services.settings
        self.set_keymap(dict(settings.get(UI_KEYMAP)))
        self._unsubscribe = settings.subscribe(self._settings_touched)
        for problem in self._problems:  # each broken theme file or setting is reported once, at start
            self.notify(problem, title="Settings", severity="warning", timeout=8)
        for said in self._notices:  # a killed edit's text kept: where it is, with time to read it
            self.notify(said, severity="warning", timeout=30)
        if self._run_background:
            first = self.speed.first_look
            self.background.start(cursor=None if first is None else first.cursor)
        if settings.get(MCP_ENABLED):
            self.background.apply_mcp()
        self.speed.start(self, self._warm_up)
        self.call_later(self.typeahead.start)

    def _warm_up(self) -> None:
        """Build the assistant's tools (and their imports), so the settings screen, the palette's
        "Toggle tool…" and the chat pane do not wait for them; load the code highlighter, so the
        first note with a code block opens as fast as the next. Runs in a thread."""
        _ = self.services.registry
        from noted.ui.widgets.markdown_draw import warm_up  # Rich Markdown, Pygments

        warm_up(code_theme(self.current_theme.dark))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        report_failure(self, event)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.InputEvent):
            self.speed.input_seen()
        if isinstance(event, events.Key) and not event.is_forwarded:
            await self.typeahead.key(event, super().on_event)
        else:
            await super().on_event(event)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """Headless (tests, screenshots), a focused field's cursor is drawn steadily (a slow run would catch it off)."""
        if self.is_headless and isinstance(event.widget, (Input, TextArea)):
            event.widget.cursor_blink = False
        self.call_after_refresh(self._place_notices)  # once a pane shown for the focus is laid out

    @on(Notify)
    @on(TextArea.SelectionChanged)
    def _place_notices(self) -> None:
        """A notice, a focus move or a line typed: notices go where they hide no typing."""
        if self._live():
            notices.place(self.screen)

    def _settings_touched(self, changes: tuple[SettingChange, ...]) -> None:
        # Runs in whichever thread changed the setting: only post, never touch widgets.
        self.post_message(SettingsChanged(tuple(change.key for change in changes)))

    async def on_unmount(self) -> None:
        self._restore_hooks()
        self.speed.stop()
        if self._unsubscribe is not None:
            self._unsubscribe()
        await self.background.stop()

    def copy_to_clipboard(self, text: str) -> None:
        """Copy ``text``: Textual's OSC 52, and inside tmux the same once more through passthrough."""
        super().copy_to_clipboard(text)
        pass_through_tmux(self, text)

    # Errors nothing caught ---------------------------------------------------------------
    def _crash_line(self, error: BaseException) -> str:
        """Keep the editor's unsaved text, then say what happened and where to look."""
        unsaved = crash.unsaved(self)
        rescued = crash.rescue(self.services.profile.root, unsaved) if unsaved is not None else None
        return crash.one_line(error, self.services.profile.log_path, rescued)

    # App-wide messages ---------------------------------------------------------------------
    @property
    def status(self) -> StatusBar:
        return self.workspace.query_one(StatusBar)

    def _live(self) -> bool:
        """Whether the screens are still there: a message from a thread (the change feed, a
        worker's status) can arrive while the app closes, as its screens are taken down or after
        they are gone; it is dropped. (Textual stops running before it takes them down; Pilot's
        ``run_test`` takes them down while the app still handles messages.)"""
        return self.is_running and bool(self.screen_stack)

    def _status_bar(self) -> StatusBar | None:
        """The status bar, or None while the app closes (see ``_live``) or once it is removed."""
        return next(iter(self.workspace.query(StatusBar)), None) if self._live() else None

    @on(StoreChanged)
    def _store_changed(self, event: StoreChanged) -> None:
        if self._live():
            self.workspace.store_changed(event)
            self._review_moved()

    def _review_moved(self) -> None:
        """The feed moved or what waits was counted anew: the Changes view, while open, follows."""
        if self.is_screen_installed("changes"):  # built on F3; loaded with it
            from noted.ui.screens.changes import ChangesScreen

            screen = self.get_screen("changes")
            if isinstance(screen, ChangesScreen):
                screen.follow()

    @on(OpenNote)
    async def _open_note(self, event: OpenNote) -> None:
        if self._live():
            await self.workspace.open_requested(event)

    @on(ReadAhead)
    def _read_ahead(self, event: ReadAhead) -> None:
        if self._live():
            self.workspace.read_ahead(event.note_ids)

    @on(FirstNotesListed)
    def _first_notes(self, event: FirstNotesListed) -> None:
        log_ready(event.listed, event.cpu, process_age())

    @on(IndexerStatusChanged)
    def _index_status(self, event: IndexerStatusChanged) -> None:
        if (bar := self._status_bar()) is not None:
            bar.set_index(event.status)

    @on(StatusPart)
    def _status_part(self, event: StatusPart) -> None:
        if (bar := self._status_bar()) is not None:
            if event.part == "review" and bar.part("review") != event.text:
                self._review_moved()  # a proposal made or settled elsewhere is in no feed
            bar.set_part(event.part, event.text)

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
        self.background.settings_changed(event.keys)

    # Actions -------------------------------------------------------------------------------
    async def action_quit(self) -> None:
        if isinstance(self.screen, ConflictView) and not self.screen.leave_for_quit():
            return  # asked to quit again over the editor's conflict: the safe choice, then it quits
        try:
            if await self.workspace.query_one(NoteEditor).flush(quitting=True) == CONFLICT:
                return  # the editor shows the conflict; it quits once the person's text is safe
        except WorkerFailed as failed:  # Joplin stopped, say: its line is shown already
            said = " ".join(str(failed.error).split())
            question = f"Your text is not saved: {said}. Quit, keeping it in a file in {crash.RESCUE_DIR}/?"
            self.push_screen(Confirm(question, yes="Quit", no="Keep editing"), self._quit_unsaved)
            return
        self.exit()

    def _quit_unsaved(self, quit_: bool | None) -> None:
        """Quit with the editor's text kept in the profile's ``rescued/``, saying where."""
        unsaved = crash.unsaved(self) if quit_ else None
        rescued = crash.rescue(self.services.profile.root, unsaved) if unsaved is not None else None
        if quit_ and (unsaved is None or rescued is not None):  # never quit with the text lost
            self.exit(message=f"Your unsaved text is in {rescued}." if rescued else None)
        elif quit_:
            self.notify("The text could not be written to a file either; noted stays open.", severity="error")

    def action_search(self) -> None:
        from noted.ui.screens.search import SearchScreen  # loaded when first opened, not at start

        try:
            if not self.is_screen_installed("search"):
                # Built once and kept: closing a screen Textual must also remove repaints the whole
                # workspace a second time (after pruning its widgets), 30-40 ms on every note opened.
                self.install_screen(SearchScreen(self.services), "search")
            screen = self.get_screen("search")
            assert isinstance(screen, SearchScreen)
            screen.afresh(asked_words(self.screen))  # from the words of an open filter or find
            self.push_screen("search")  # it opens the chosen note itself, before it closes
        except NotedError as exc:
            self.notify(str(exc), severity="warning")

    def action_changes(self) -> None:
        from noted.ui.screens.changes import ChangesScreen

        if not self.is_screen_installed("changes"):  # built once: opening again only reloads its rows
            self.install_screen(ChangesScreen(self.services), "changes")
        screen = self.get_screen("changes")
        if self._may_open(screen, "The Changes view is open under this screen; Esc goes back to it."):
            self.push_screen(screen)

    def action_settings(self) -> None:
        from noted.ui.screens.settings import SettingsScreen  # loaded when first opened

        try:
            built = self._settings is not None
            if self._settings is None:  # built once (a few hundred widgets): opening again shows it afresh
                self._settings = SettingsScreen(self.services)
                self.install_screen(self._settings, "settings")
            if not self._may_open(
                self._settings, "The settings are open under this screen; Esc goes back to them."
            ):
                self.typeahead.release()
                return
            if built:
                self._settings.afresh()
            self.push_screen(self._settings)  # it hands on the keys typed ahead once it has focus
        except NotedError as exc:
            self.notify(str(exc), severity="warning")

    def _may_open(self, screen: Screen[Any], under: str) -> bool:
        """Whether F2 or F3 may push ``screen`` over the one on top, which stays as it is under it (a
        prompt keeps what is typed in it). The keys' help gives way first. Not when ``screen`` shows
        already, nor when it is open under other screens (it cannot show twice: ``under`` says so)."""
        if isinstance(self.screen, KeysOverlay):
            self.screen.dismiss(None)
        if screen in self.screen_stack:
            if screen is not self.screen:
                self.notify(under, timeout=4)
            return False
        return True

    def action_change_theme(self) -> None:
        """Textual's "Theme" command: the chosen theme is saved as ``ui.theme`` (Textual's is not)."""
        open_theme_palette(self)

    def action_help(self) -> None:
        """F1 or ``?``: the keys of the focused pane and its help (again: close them)."""
        if isinstance(self.screen, KeysOverlay):
            self.screen.dismiss(None)
        else:
            help_text = key_hints(self).fill(pane_help(self.screen))  # the keys as the keymap has them
            self.push_screen(KeysOverlay(key_groups(self.screen), help_text))

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        for command in super().get_system_commands(screen):
            if command.callback in (self.action_show_help_panel, self.action_hide_help_panel):
                command = SystemCommand(
                    "Keys", key_hints(self).for_callback(KEYS_HELP, self.action_help), self.action_help
                )
            yield command
        if isinstance(screen, Workspace):
            yield from system_commands(self, screen)

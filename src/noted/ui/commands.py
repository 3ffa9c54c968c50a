"""Command palette providers: "open note…", "move to notebook…", "toggle tool…", "switch theme…".

The first two read what they search once, when the palette opens, in a thread worker (10,000
titles take a few milliseconds to read and no body is read); each keystroke then filters in
memory: a cheap word filter first, then Textual's fuzzy matcher on the survivors for the score
and highlight. Tools and themes are settings in memory; choosing one writes its setting
(``ai.tool.<id>.enabled``, ``ui.theme``) in a thread worker, so it persists, and the app follows
the change as it follows one made on the settings screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, cast

from textual.command import CommandPalette, DiscoveryHit, Hit, Hits, Provider
from textual.worker import WorkerFailed

from noted.ops.resolve import folder_paths, paths_apart
from noted.services import Services
from noted.settings import Source
from noted.settings.handles import TOOLS, UI_THEME
from noted.ui.messages import OpenNote
from noted.ui.widgets.note_list import NoteList
from noted.ui.workers import in_thread
from noted.wording import one_line

if TYPE_CHECKING:
    from noted.ui.app import NotedApp

_MAX_HITS = 40
_DISCOVER = 12


def _candidates(entries: list[tuple[str, str]], query: str) -> list[tuple[str, str]]:
    """The entries whose text holds every word of ``query`` (case-insensitive), in order."""
    words = query.casefold().split()
    return [(key, text) for key, text in entries if all(w in text.casefold() for w in words)][: _MAX_HITS * 5]


class OpenNoteProvider(Provider):
    """Open a note by (part of) its title; the notebook is shown beside it."""

    async def startup(self) -> None:
        app = cast("NotedApp", self.app)
        store = app.services.store

        def load() -> list[tuple[str, str]]:
            paths = folder_paths(store.list_folders(), " / ")
            return [
                (
                    m.id,
                    one_line(f"Open note: {m.listed_title or '(untitled)'}  ·  {paths.get(m.parent_id, '')}"),
                )
                for m in store.list_notes()
            ]

        worker = in_thread(app, load, "palette", "listing notes")
        self._entries: list[tuple[str, str]] = await worker.wait() or []

    def _open(self, note_id: str) -> None:
        self.app.post_message(OpenNote(note_id))

    async def discover(self) -> Hits:
        for note_id, text in self._entries[:_DISCOVER]:  # the most recently updated first
            yield DiscoveryHit(text, partial(self._open, note_id), help="recently updated")

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        scored = []
        for note_id, text in _candidates(self._entries, query):
            score = matcher.match(text)
            if score > 0:
                scored.append((score, note_id, text))
        scored.sort(key=lambda item: -item[0])
        for score, note_id, text in scored[:_MAX_HITS]:
            yield Hit(score, matcher.highlight(text), partial(self._open, note_id), text=text)


class MoveToProvider(Provider):
    """Move the marked notes (or the highlighted one) to a notebook chosen by name."""

    async def startup(self) -> None:
        app = cast("NotedApp", self.app)
        store = app.services.store
        self._folders: list[tuple[str, str]] = []
        if not app.workspace.shows(app.workspace.query_one(NoteList)):
            return  # it moves what the list has marked or highlighted: not while the list is hidden

        def load() -> list[tuple[str, str]]:
            paths = sorted(
                paths_apart(folder_paths(store.list_folders(), " / ")).items(),
                key=lambda item: item[1].casefold(),
            )
            return [(folder_id, f"Move to notebook: {path}") for folder_id, path in paths]

        worker = in_thread(app, load, "palette", "listing notebooks")
        self._folders = await worker.wait() or []

    def _move(self, folder_id: str) -> None:
        cast("NotedApp", self.app).workspace.move_targets_to(folder_id)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for folder_id, text in _candidates(self._folders, query):
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), partial(self._move, folder_id), text=text,
                          help="moves the marked notes, or the highlighted one")  # fmt: skip

    async def discover(self) -> Hits:
        for folder_id, text in self._folders[:_DISCOVER]:
            yield DiscoveryHit(text, partial(self._move, folder_id))


# Settings from the palette -----------------------------------------------------------------------


def _set_setting(app: NotedApp, key: str, value: bool | str, done: str) -> None:
    """Write one setting in a thread (the file is written), then say ``done``; failures are the app's."""
    settings = app.services.settings

    def write() -> None:
        settings.set(key, value)
        app.call_from_thread(app.notify, done)

    in_thread(app, write, "settings", f"saving {key}")


@dataclass(frozen=True, slots=True)
class ToolSwitch:
    """One switch of the Tools settings: the tools it turns on or off and its state."""

    key: str
    label: str
    names: tuple[str, ...]
    writes: bool
    on: bool
    env_var: str | None
    """The environment variable that sets it (it cannot change here), if any."""

    @property
    def text(self) -> str:
        kind = "write" if self.writes else "read"
        return f"Toggle tool: {self.label} · {kind} · {'on' if self.on else 'off'}"

    @property
    def help(self) -> str:
        if self.env_var:
            return f"{', '.join(self.names)} · set by {self.env_var}, so it cannot change here"
        return f"{', '.join(self.names)} · choose to switch it {'off' if self.on else 'on'}"


def tool_switches(services: Services) -> list[ToolSwitch]:
    """The Tools section of the settings, as the settings screen lists it (several editor tools share one)."""
    tools = services.registry.all()
    return [
        ToolSwitch(
            r.key, r.spec.label, tuple(t.name for t in tools if t.setting_key == r.key), bool(r.spec.writes_notes),
            bool(r.value), r.env_var if r.source is Source.ENV else None,
        )
        for r in services.settings.entries()
        if r.spec.section == TOOLS
    ]  # fmt: skip


TOOL_HIT_WEIGHT = 0.9
"""A tool switch's match score is scaled by this (see ``ToggleToolProvider.search``)."""


class ToggleToolProvider(Provider):
    """Switch one of the assistant's tools on or off, as the settings screen's Tools list does."""

    async def startup(self) -> None:
        app = cast("NotedApp", self.app)
        # In a thread: the first use of the registry imports every tool (a second on a slow machine).
        worker = in_thread(app, partial(tool_switches, app.services), "palette", "listing tools")
        try:
            self._switches: list[ToolSwitch] = await worker.wait()
        except WorkerFailed:  # the app has said why
            self._switches = []

    def _toggle(self, switch: ToolSwitch) -> None:
        app = cast("NotedApp", self.app)
        if switch.env_var:
            app.notify(f'"{switch.label}" is set by {switch.env_var}; change it there.', severity="warning")
            return
        on = not app.services.settings.resolve(switch.key).value  # flip what is in effect now
        _set_setting(app, switch.key, on, f'Tool "{switch.label}" is now {"on" if on else "off"}')

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for switch in self._switches:
            # The tool names count too (typing "delete_note" finds "Delete a note").
            score = matcher.match(switch.text) or matcher.match(" ".join(switch.names))
            if score > 0:
                shown = matcher.highlight(switch.text) if matcher.match(switch.text) else switch.text
                # Just below an equal match elsewhere: "toggle tool" matches "Toggle tool…" (the
                # picker) as well as every switch; Enter must open the picker, not flip a tool.
                score *= TOOL_HIT_WEIGHT
                yield Hit(score, shown, partial(self._toggle, switch), text=switch.text, help=switch.help)


class _EveryTool(ToggleToolProvider):
    """The tool palette: every switch before anything is typed."""

    async def discover(self) -> Hits:
        for switch in self._switches:
            yield DiscoveryHit(switch.text, partial(self._toggle, switch), help=switch.help)


def open_tool_palette(app: NotedApp) -> None:
    """A palette of the tool switches alone (the "Toggle tool…" command)."""
    app.push_screen(CommandPalette(providers=[_EveryTool], placeholder="Toggle which tool? Type to filter…"))


class SwitchThemeProvider(Provider):
    """Choose a theme by name; it is saved as ``ui.theme`` (Textual's own theme picker does not save)."""

    async def startup(self) -> None:
        app = cast("NotedApp", self.app)
        self._current = app.theme
        self._themes = sorted(app.available_themes, key=lambda name: (not name.startswith("noted"), name))

    def _text(self, name: str) -> str:
        return f"Switch theme: {name}" + ("  (current)" if name == self._current else "")

    def _choose(self, name: str) -> None:
        app = cast("NotedApp", self.app)
        resolved = app.services.settings.resolve(UI_THEME)
        if resolved.source is Source.ENV:
            app.notify(f"The theme is set by {resolved.env_var}; change it there.", severity="warning")
            return
        _set_setting(app, UI_THEME.key, name, f'Theme "{name}" (saved in the settings)')

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name in self._themes:
            text = self._text(name)
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), partial(self._choose, name), text=text)


class _EveryTheme(SwitchThemeProvider):
    """The theme palette: every theme before anything is typed."""

    async def discover(self) -> Hits:
        for name in self._themes:
            yield DiscoveryHit(self._text(name), partial(self._choose, name))


def open_theme_palette(app: NotedApp) -> None:
    """A palette of the themes alone; what is chosen is saved (``NotedApp.action_change_theme``)."""
    app.push_screen(CommandPalette(providers=[_EveryTheme], placeholder="Switch theme… Type to filter"))

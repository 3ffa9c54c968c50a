"""Keys typed while a pane or a screen opens belong to what is opening.

A key that opens something (``Ctrl+T`` the chat, ``F2`` the settings, ``Ctrl+F`` search) runs
its action on the focused widget's queue, while the app goes on forwarding the next keys to the
widget that had focus: typed ahead, ``Ctrl+T Ctrl+N hello`` made a new *note* "hello" instead of a
new chat. So after such a key the app's ``TypeAhead`` holds the keys that follow, and hands them
on, in order, once the opened thing has focus (the opener calls ``release_keys``), or after
``HOLD_SECONDS`` at the latest so that no key is ever lost.

The keys typed before Textual took the terminal (``noted.cli.early_keys``) come first: the app
hands them on when it mounts, or before the first key it reads itself, whichever comes first.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from textual import events
from textual.app import App

OPENERS = frozenset(
    {
        "app.chat", "app.settings", "app.search", "list.filter", "tree.filter", "note.find",
        "prompt.keep", "prompt.clear",
    }
)  # fmt: skip
"""Binding ids whose action opens a pane or a screen that takes the focus (or, the filter's and the
find's field, closes and gives the focus back to its pane: ``Enter n`` steps to the next match)."""
HOLD_SECONDS = 2.0
"""The longest keys are held: an opener that fails or does nothing must not swallow them."""


class TypeAhead:
    """Holds the keys typed ahead of an opening pane or screen (``NotedApp.typeahead``)."""

    def __init__(self, app: App[Any]) -> None:
        self._app = app
        self._held: list[events.Key] | None = None
        self._early: list[events.Key] = []

    def typed_before_start(self, keys: list[events.Key]) -> None:
        """Keys typed before the app read any: handed on first (``start``, or the first ``key``)."""
        self._early = keys

    async def start(self) -> None:
        """The app has mounted: hand on the keys typed before it started."""
        early, self._early = self._early, []
        for typed in early:
            await self._app.on_event(typed)

    async def key(self, event: events.Key, deliver: Callable[[events.Event], Awaitable[None]]) -> None:
        """Hand ``event`` on with ``deliver`` (the app's own event handling), or hold it."""
        if self._early:
            await self.start()  # a key read before the mount's turn: the earlier ones go first
        if self._held is not None:
            self._held.append(event)
            return
        opens = self._opens(event.key)
        await deliver(event)
        if opens:
            self.hold()

    def hold(self) -> None:
        """Hold the keys typed from now until ``release`` (or ``HOLD_SECONDS``)."""
        if self._held is None:
            self._held = []
            self._app.set_timer(HOLD_SECONDS, self.release)

    def _opens(self, key: str) -> bool:
        try:
            active = self._app.screen.active_bindings.get(key)
        except Exception:  # no screen yet (starting): nothing to open over  # noqa: BLE001
            return False
        return active is not None and active.enabled and active.binding.id in OPENERS

    def release(self) -> None:
        """The opened pane or screen has focus: hand it the keys held meanwhile (after the
        messages already queued, such as the focus change itself)."""
        if self._held is not None:
            self._app.call_later(self._replay)

    async def _replay(self) -> None:
        held, self._held = self._held or [], None
        for index, key in enumerate(held):
            if self._held is not None:  # a held key opened something else: hold the rest again
                self._held.extend(held[index:])
                return
            await self._app.on_event(key)


def _of(app: App[Any]) -> TypeAhead | None:
    found = getattr(app, "typeahead", None)
    return found if isinstance(found, TypeAhead) else None


def release_keys(app: App[Any]) -> None:
    """Hand the keys held for an opening pane or screen on to it (where the app holds keys)."""
    if (typeahead := _of(app)) is not None:
        typeahead.release()


def hold_keys(app: App[Any]) -> None:
    """Hold the keys typed from now on for a pane about to take the focus (see ``release_keys``)."""
    if (typeahead := _of(app)) is not None:
        typeahead.hold()

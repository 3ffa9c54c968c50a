"""Keys typed while a pane or a screen opens belong to what is opening.

A key that opens something (``Ctrl+T`` the chat, ``F2`` the settings, ``Ctrl+F`` search) runs
its action on the focused widget's queue, while the app goes on forwarding the next keys to the
widget that had focus: typed ahead, ``Ctrl+T Ctrl+N hello`` made a new *note* "hello" instead of a
new chat. So after such a key the app holds the keys that follow, and hands them on, in order,
once the opened thing has focus (the opener calls ``release_keys``), or after ``HOLD_SECONDS`` at
the latest so that no key is ever lost.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.app import App

OPENERS = frozenset({"app.chat", "app.settings", "app.search"})
"""Binding ids whose action opens a pane or a screen that takes the focus."""
HOLD_SECONDS = 2.0
"""The longest keys are held: an opener that fails or does nothing must not swallow them."""


class HoldsKeys(App[Any]):
    """An app that holds keys typed ahead of an opening pane or screen (mixed into the app)."""

    _held: list[events.Key] | None = None

    async def on_event(self, event: events.Event) -> None:
        if not isinstance(event, events.Key) or event.is_forwarded:
            await super().on_event(event)
            return
        if self._held is not None:
            self._held.append(event)
            return
        opens = self._opens(event.key)
        await super().on_event(event)
        if opens:
            self.hold_keys()

    def hold_keys(self) -> None:
        """Hold the keys typed from now until ``release_keys`` (or ``HOLD_SECONDS``)."""
        if self._held is None:
            self._held = []
            self.set_timer(HOLD_SECONDS, self.release_keys)

    def _opens(self, key: str) -> bool:
        try:
            active = self.screen.active_bindings.get(key)
        except Exception:  # no screen yet (starting): nothing to open over  # noqa: BLE001
            return False
        return active is not None and active.enabled and active.binding.id in OPENERS

    def release_keys(self) -> None:
        """The opened pane or screen has focus: hand it the keys held meanwhile (after the
        messages already queued, such as the focus change itself)."""
        if self._held is not None:
            self.call_later(self._replay)

    async def _replay(self) -> None:
        held, self._held = self._held or [], None
        for index, key in enumerate(held):
            if self._held is not None:  # a held key opened something else: hold the rest again
                self._held.extend(held[index:])
                return
            await self.on_event(key)


def release_keys(app: App[Any]) -> None:
    """Hand the keys held for an opening pane or screen on to it (where the app holds keys)."""
    if isinstance(app, HoldsKeys):
        app.release_keys()


def hold_keys(app: App[Any]) -> None:
    """Hold the keys typed from now on for a pane about to take the focus (see ``release_keys``)."""
    if isinstance(app, HoldsKeys):
        app.hold_keys()

"""The screens other parts of the UI provide, looked up when first opened.

The search and settings screens live in their own modules; this keeps the app importable (and
says so in one line) on a tree where one of them is missing, instead of failing to start.
"""

from __future__ import annotations

import importlib
from typing import Any

from textual.screen import Screen

from noted.errors import UnavailableError
from noted.services import Services


def _screen(module: str, name: str, services: Services, what: str) -> Screen[Any]:
    try:
        found = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module:  # the module is there but one of its imports is not: a real bug
            raise
        raise UnavailableError(f"the {what} screen is not part of this build") from exc
    factory = getattr(found, name)
    screen = factory(services)
    if not isinstance(screen, Screen):
        raise TypeError(f"{module}.{name} did not make a screen")
    return screen


def search_screen(services: Services) -> Screen[Any]:
    """``SearchScreen(services)``: opens the chosen note (``OpenNote``) and dismisses with
    ``(note_id, section | None)``, or None."""
    return _screen("noted.ui.screens.search", "SearchScreen", services, "search")


def settings_screen(services: Services) -> Screen[Any]:
    """``SettingsScreen(services)``."""
    return _screen("noted.ui.screens.settings", "SettingsScreen", services, "settings")

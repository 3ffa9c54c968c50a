"""Remember an app's current theme instead of looking it up again for every line painted.

Upstream (Textual 8.2, ``app.py``, ``App.current_theme``): the property looks the theme up with
``get_theme``, which splits the name and tests it against ``available_themes``, a dictionary built
afresh from every registered theme on each call. Textual reads ``current_theme`` for every line it
paints (the styles' theme variables), so the lookups were an eighth of the time a note took to open
on a 10,000-note profile. To report: "App.current_theme rebuilds available_themes on every read".

The patch keeps the theme found for the app's theme name on the app, until the name changes or a
theme is registered or unregistered (``register_theme``, ``unregister_theme``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from noted.ui.patches.guard import Patch, Private, Swap

if TYPE_CHECKING:
    from textual.app import App
    from textual.theme import Theme

_CACHE = "_noted_current_theme"
"""Where an app keeps its theme name and the theme found for it."""


def _current_theme(self: App[Any]) -> Theme:
    """``App.current_theme``, looked up once per theme name."""
    cached: tuple[str, Theme] | None = self.__dict__.get(_CACHE)
    if cached is None or cached[0] != self.theme:
        cached = self.__dict__[_CACHE] = (self.theme, _SWAP.original("current_theme").fget(self))
    return cached[1]


def _register_theme(self: App[Any], theme: Theme) -> None:
    _SWAP.original("register_theme")(self, theme)
    self.__dict__.pop(_CACHE, None)


def _unregister_theme(self: App[Any], theme_name: str) -> None:
    _SWAP.original("unregister_theme")(self, theme_name)
    self.__dict__.pop(_CACHE, None)


_SWAP = Swap(
    "textual.app:App",
    {
        "current_theme": property(_current_theme),
        "register_theme": _register_theme,
        "unregister_theme": _unregister_theme,
    },
)
PATCH = Patch(
    name="theme_cache",
    module=__name__,
    written_for="8.2",
    speed=True,
    touches=(  # public names, listed so that the upgrade canary checks what the swap replaces
        Private("textual.app:App", "current_theme"),
        Private("textual.app:App", "register_theme", "(self, theme: 'Theme') -> 'None'"),
        Private("textual.app:App", "unregister_theme", "(self, theme_name: 'str') -> 'None'"),
    ),
    swap=_SWAP,
)

"""Find an app's current theme by its name, without copying every registered theme first.

Upstream (Textual 8.2, ``app.py``, ``App.current_theme``): the property looks the theme up with
``get_theme``, which splits the name and tests it against ``available_themes``, a dictionary built
afresh from every registered theme on each call. Textual reads ``current_theme`` for every line it
paints (the styles' theme variables), so the lookups were an eighth of the time a note took to open
on a 10,000-note profile. To report: "App.current_theme rebuilds available_themes on every read".

The patch reads the theme of that name from the registered ones (``App._registered_themes``); a
name it does not find there goes to Textual's own lookup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from noted.ui.patches.guard import Patch, Private, Swap

if TYPE_CHECKING:
    from textual.app import App
    from textual.theme import Theme


def _current_theme(self: App[Any]) -> Theme:
    """``App.current_theme``, looked up in one step."""
    theme: Theme | None = self._registered_themes.get(self.theme)
    return theme if theme is not None else _SWAP.original("current_theme").fget(self)


_SWAP = Swap("textual.app:App", {"current_theme": property(_current_theme)})
PATCH = Patch(
    name="theme_cache",
    module=__name__,
    written_for="8.2",
    speed=True,
    touches=(Private("textual.app:App", "current_theme"), Private("textual.app:App", "_registered_themes")),
    swap=_SWAP,
)

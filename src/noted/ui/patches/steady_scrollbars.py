"""``SteadyScrollbars``: scroll views that repaint their scrollbars only when something changed.

Upstream (Textual 8.2, ``scroll_view.py``, ``ScrollView._size_updated``): after every layout of the
screen Textual tells each widget its size, and a ``ScrollView`` compares the virtual size the layout
worked out for it with its own. For a scroll view the two never agree (the layout gives it the size
of its window), so every scroll view refreshes its scrollbars (``_scroll_update``) after every
layout. Opening a note lays out the screen; the note list's and the tree's scrollbars then repainted
too, and since a frame repaints the box around everything dirty, the frame spanned the whole screen:
half the time a note took to open. To report: "ScrollView._size_updated compares the layout's
virtual size with its own, which never match, so scrollbars refresh after every layout".

The views here skip the refresh when their size, their own virtual size and their container's size
are what they were last time; with the patch off they do what Textual does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.geometry import Size
from textual.scroll_view import ScrollView

from noted.ui.patches.guard import Patch, Private, enabled

# A plain mixin at run time: Textual gathers CSS and component classes along the widget classes of
# the hierarchy, and a widget class here would stand between a widget and its own.
if TYPE_CHECKING:
    _Base = ScrollView
else:
    _Base = object

PATCH = Patch(
    name="steady_scrollbars",
    module=__name__,
    written_for="8.2",
    speed=True,
    touches=(
        Private(
            "textual.scroll_view:ScrollView",
            "_size_updated",
            "(self, size: 'Size', virtual_size: 'Size', container_size: 'Size', layout: 'bool' = True)"
            " -> 'bool'",
        ),
    ),
)


class SteadyScrollbars(_Base):
    """Mix in before a Textual scroll view (``OptionList``, ``Tree``, ``ScrollView`` itself)."""

    _sized_for: tuple[Size, Size, Size] | None = None

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        sized_for = (size, self.virtual_size, container_size) if enabled(PATCH) else None
        if sized_for is not None and sized_for == self._sized_for:
            return False  # nothing changed for this view: no resize, no scrollbar repaint
        self._sized_for = sized_for
        return super()._size_updated(size, virtual_size, container_size, layout)

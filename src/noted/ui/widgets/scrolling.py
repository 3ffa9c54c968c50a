"""``SteadyScrollbars``: scroll views that repaint their scrollbars only when something changed.

After every layout of the screen Textual tells each widget its size, and a ``ScrollView`` compares
the virtual size the layout worked out for it with its own. For a scroll view the two never agree
(the layout gives it the size of its window), so every scroll view refreshed its scrollbars after
every layout. Opening a note lays out the screen; the note list's and the tree's scrollbars then
repainted too, and since a frame repaints the box around everything dirty, the frame spanned the
whole screen: half the time a note took to open. The views here skip the refresh when their size,
their own virtual size and their container's size are what they were last time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.geometry import Size
from textual.scroll_view import ScrollView

# A plain mixin at run time: Textual gathers CSS and component classes along the widget classes of
# the hierarchy, and a widget class here would stand between a widget and its own.
if TYPE_CHECKING:
    _Base = ScrollView
else:
    _Base = object


class SteadyScrollbars(_Base):
    """Mix in before a Textual scroll view (``OptionList``, ``Tree``, ``ScrollView`` itself)."""

    _sized_for: tuple[Size, Size, Size] | None = None

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        sized_for = (size, self.virtual_size, container_size)
        if sized_for == self._sized_for:
            return False  # nothing changed for this view: no resize, no scrollbar repaint
        self._sized_for = sized_for
        return super()._size_updated(size, virtual_size, container_size, layout)

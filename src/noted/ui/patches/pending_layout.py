"""A screen whose layout is pending paints once, whole, rather than in part and then whole.

Upstream (Textual 8.2, ``widget.py`` ``Widget.refresh`` and ``screen.py``
``Screen._on_timer_update``): a ``refresh()`` of a screen marks its regions dirty even when a layout
is already pending (``_layout_required``); the update then lays out, paints what the layout moved
(``_dirty_widgets``), and at once paints the whole screen again for the pending repaint. In noted a
note put in place while another screen covers the workspace (search) leaves a layout pending; closing
that screen refreshes the workspace, and each note opened from search cost 5-7 ms more. To report:
"Screen.refresh while a layout is pending paints the moved widgets and then the whole screen".

``paint_whole_when_layout_pending`` marks the whole screen as the one dirty widget instead, so the
layout's update paints it once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from noted.ui.patches.guard import Patch, Private, enabled

if TYPE_CHECKING:
    from textual.screen import Screen

PATCH = Patch(
    name="pending_layout",
    module=__name__,
    written_for="8.2",
    speed=True,
    touches=(
        Private("textual.widget:Widget", "_layout_required"),
        Private("textual.widget:Widget", "_set_dirty", "(self, *regions: 'Region') -> 'None'"),
        Private("textual.screen:Screen", "_dirty_widgets"),
    ),
)


def paint_whole_when_layout_pending(screen: Screen[Any]) -> bool:
    """Have ``screen``'s pending layout paint it whole, if a layout is pending; say whether it did.

    For a plain ``screen.refresh()`` (no regions, no layout, no recompose): when this gives ``True``
    the refresh is done; when ``False`` call Textual's ``refresh`` as usual.
    """
    if not (enabled(PATCH) and screen._layout_required and screen.is_mounted):
        return False
    screen._set_dirty()
    screen._dirty_widgets.add(screen)
    screen.check_idle()
    return True

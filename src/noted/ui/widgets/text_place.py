"""Where a text area's cursor and scroll are put: at the line the person was reading, or back
where they were after its text was loaded again."""

from __future__ import annotations

from textual.widgets import TextArea
from textual.widgets.text_area import Location, WrappedDocument

TRIES = 4
"""Refreshes to wait at most for the area to wrap its text at its width (one, usually)."""


def put(area: TextArea, location: Location, top: int | None = None) -> None:
    """Put ``area``'s cursor at ``location``, then scroll to row ``top`` or (None) so the cursor's
    line is the top row; not if the cursor has moved meanwhile (the person has gone on).

    The scroll waits for the area to have wrapped its text at its width: an editor just shown
    (it was hidden, at no width) wraps it when its resize arrives, after the next refresh or so.
    """
    area.move_cursor(location)
    at = area.cursor_location  # (within the text)

    def scroll(tries: int) -> None:
        if area.cursor_location != at:
            return
        wrapped = WrappedDocument(area.document, area.wrap_width, area.indent_width)
        if tries and (area.wrap_width <= 0 or area.virtual_size.height != wrapped.height):
            area.call_after_refresh(scroll, tries - 1)  # not wrapped at its width yet
            return
        y = wrapped.location_to_offset((at[0], 0)).y if top is None else top
        area.scroll_to(y=y, animate=False, immediate=True)

    area.call_after_refresh(scroll, TRIES)

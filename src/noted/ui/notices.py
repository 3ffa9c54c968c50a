"""Where notices (Textual's toasts) show: never over the field being typed in.

Textual stacks them at the bottom right, where the chat's message box and the prompts' fields are:
the person could not see what they typed for a notice's five seconds, or, on a small terminal, see
the box at all. ``place`` puts the notices on the side of the screen (top or bottom) with more room
beside the focused field, no taller than that room. A field taller than half the screen (the
editor) keeps only its cursor's line clear. A pane focused for reading (the open note, the list)
keeps the notices beside it, left or right, where there is room. A pane read with another (the
list with the note under its cursor) names it in ``READ_WITH``, and the notices keep off both (over
the tree or the note's outline). A pane filling the width (zoomed, or the list at 60 columns without
the tree) leaves no room beside: the notices take the key bar's row, one line each, growing up over
the status line. Every screen ends in a key bar, no one reads there, and a notice there hides only
key hints for its five seconds (a narrow top right would sit on the pane's first rows, read too).
A screen whose every row is read (a form: the settings) names the class of its rows in
``NOTICES_AT_FOOT``: notices take its key bar's row, growing up no further than the focused row (or
field); with fewer than ``FOOT_ROWS`` under it, they go on the other side.
"""

from __future__ import annotations

from typing import Any

from textual.css.query import NoMatches
from textual.errors import NoWidget
from textual.geometry import Region
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, TextArea

RACK_ID = "textual-toastrack"
"""The id Textual gives the notices' container on each screen."""
MIN_ROOM = 20
"""The fewest columns beside a focused pane that notices go in (the tree's 24 and more hold a short
sentence in three lines); with less they go where Textual puts them."""
FOOT_ROWS = 3
"""The fewest rows under the focused row of a form for notices at its foot (a title and a line)."""


def place(screen: Screen[Any]) -> None:
    """Move ``screen``'s notices off its focused field (called on a notice and on a focus move)."""
    try:
        rack = screen.get_child_by_id(RACK_ID)
    except NoMatches:  # notifications off (Pilot's default)
        return
    band = _typing_band(screen.focused, screen.size.height)
    kept = _form_row(screen, band)
    if kept is not None:
        below = screen.size.height - kept.bottom
        if below >= FOOT_ROWS:
            _at_foot(rack, below)
            return
        band = kept  # too low: the notices go above it
    if band is None:
        rack.remove_class("-top")
        rack.styles.max_height = None
        _beside(rack, screen.focused, screen.size.width)
        return
    rack.remove_class("-left", "-beside", "-bar")  # Textual's place, moved off the band
    rack.styles.padding = 0
    above, below = band.y, screen.size.height - band.bottom - 1  # the rack keeps a row below it
    rack.set_class(above > below, "-top")
    rack.styles.max_height = max(above, below, 1)


def _beside(rack: Widget, focused: Widget | None, width: int) -> None:
    """Keep the notices off ``focused`` (a pane being read: the note, the list), on the side of the
    screen with more room beside it, no wider than that room; on the key bar's row when it has too little."""
    region = _read_region(focused) if focused is not None else Region()
    left, right = region.x, width - region.right
    room = max(left, right) if region.area else 0  # nothing focused: the key bar's row too
    rack.set_class(room < MIN_ROOM, "-bar")
    rack.set_class(room >= MIN_ROOM, "-beside")
    if room < MIN_ROOM:
        rack.remove_class("-left")
        rack.styles.padding = 0
        return
    rack.set_class(left > right, "-left")
    rack.styles.padding = (0, width - left, 0, 0) if left > right else (0, 0, 0, width - right)


def _form_row(screen: Screen[Any], band: Region | None) -> Region | None:
    """On a form (``NOTICES_AT_FOOT``), the rows to keep clear: the focused row, or field; else None."""
    row_class = getattr(screen, "NOTICES_AT_FOOT", None)
    focused = screen.focused
    if row_class is None or focused is None:
        return None
    rows = (w for w in focused.ancestors_with_self if isinstance(w, Widget) and w.has_class(row_class))
    row = next(rows, focused)
    try:
        shown = screen.find_widget(row).visible_region  # a row half scrolled out: its rows in view
    except NoWidget:  # not laid out yet
        return band
    return shown if shown.area else band


def _at_foot(rack: Widget, rows: int) -> None:
    """The notices on the key bar's row, one line each, growing up ``rows`` at most."""
    rack.remove_class("-top", "-left", "-beside")
    rack.add_class("-bar")
    rack.styles.padding = 0
    rack.styles.max_height = rows


def _read_region(focused: Widget) -> Region:
    """The screen's part ``focused`` takes, with the shown panes it names in ``READ_WITH``."""
    region = focused.region
    for selector in getattr(focused, "READ_WITH", ()):
        for pane in focused.screen.query(selector):
            if pane.region.area:
                region = region.union(pane.region)
    return region


def _typing_band(widget: Widget | None, height: int) -> Region | None:
    """The rows to keep clear: the field being typed in, or its cursor's line if it is tall."""
    if isinstance(widget, TextArea) and widget.read_only:
        return None
    if not isinstance(widget, (Input, TextArea)) or not widget.region.area:
        return None
    region = widget.region
    if region.height * 2 <= height:
        return region
    return Region(region.x, widget.cursor_screen_offset.y, region.width, 1)

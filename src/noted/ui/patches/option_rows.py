"""Where an option of an ``OptionList`` is drawn, so a cursor move repaints two rows, not the list.

Upstream (Textual 8.2, ``widgets/_option_list.py``): ``OptionList.highlighted`` is a ``reactive``
that repaints the whole list on every change, so each move of the cursor repaints every row shown
(the note list shows about twenty notes of two lines), and the list has no public way to say which
lines an option takes: only the private ``_index_to_line`` and ``_heights`` (properties that bring
the line cache up to date) know. To report: "OptionList: expose an option's line region (or repaint
only the old and new highlight)".

``NoteList`` declares ``highlighted`` with ``repaint=False`` and asks ``refresh_options`` to repaint
the rows it touched; with the patch off, that repaints the whole list as Textual does, and
``option_lines`` says nothing, so the caller does what Textual does.
"""

from __future__ import annotations

from textual.geometry import Region
from textual.widgets import OptionList

from noted.ui.patches.guard import Patch, Private, enabled

PATCH = Patch(
    name="option_rows",
    module=__name__,
    written_for="8.2",
    speed=True,
    touches=(
        Private("textual.widgets._option_list:OptionList", "_index_to_line"),
        Private("textual.widgets._option_list:OptionList", "_heights"),
        Private(
            "textual.widgets._option_list:OptionList",
            "watch_highlighted",
            "(self, highlighted: 'int | None') -> 'None'",
        ),
    ),
)


def option_lines(option_list: OptionList, index: int | None) -> tuple[int, int] | None:
    """The first line (in the list's whole height) and the line count of option ``index``.

    ``None`` when the option is not laid out yet, or when the patch is off.
    """
    if index is None or not enabled(PATCH):
        return None
    try:
        return option_list._index_to_line[index], option_list._heights[index]
    except KeyError:
        return None


def refresh_options(option_list: OptionList, *indices: int | None) -> None:
    """Repaint the rows of these options as they are on screen (the whole list with the patch off)."""
    if not enabled(PATCH):
        option_list.refresh()
        return
    for index in indices:
        lines = option_lines(option_list, index)
        if lines is not None:
            y, height = lines
            width = option_list.scrollable_content_region.width
            option_list.refresh(Region(0, y - option_list.scroll_offset.y, width, height))

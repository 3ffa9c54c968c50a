"""Copying from the note viewer: the whole note's Markdown (``y``) or one of its code blocks (``Y``).

The page has no text cursor, so "the code block here" means the blocks of the section in view:
the one the outline's cursor is on while the outline has the focus, else the one whose heading
is at (or last above) the top of the page. The chooser starts on the first block from there.
"""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING

from noted.markdown import section_label
from noted.ui.clipboard import copy_text
from noted.ui.code_blocks import CodeBlock, code_blocks
from noted.ui.data import partial_notice
from noted.ui.dialogs.code_picker import copy_code_block
from noted.ui.widgets.markdown_page import MarkdownPage
from noted.ui.widgets.outline import OutlineList

if TYPE_CHECKING:
    from noted.ui.data import NoteView
    from noted.ui.widgets.note_viewer import NoteViewer


def copy_note(viewer: NoteViewer) -> None:
    """Copy the open note's text as written (its Markdown source)."""
    view = viewer.view
    if view is None:
        viewer.app.notify("No note is open. Nothing was copied.", severity="warning")
        return
    if view.partial:  # megabytes through the terminal's clipboard escape: tmux and most drop it
        viewer.app.notify(f"Too large to copy from the app. {partial_notice(view)}", severity="warning")
        return
    title = view.note.title or "(untitled)"
    copy_text(viewer.app, view.note.body, f"the note “{title}”", nothing="This note is empty.")


def copy_note_code(viewer: NoteViewer) -> None:
    """Copy a code block of the open note: the only one, or the one chosen from a list."""
    view = viewer.view
    if view is None:
        viewer.app.notify("No note is open. Nothing was copied.", severity="warning")
        return
    body = view.text  # of a large note, the opening the reader shows
    blocks = code_blocks(body)
    starts = _line_starts(body)
    labels = [_label(view, starts, block) for block in blocks]
    here = _line_in_view(viewer, view, starts)
    first = next((i for i, block in enumerate(blocks) if block.last_line >= here), 0)
    copy_code_block(viewer.app, blocks, labels=labels, highlighted=first, where="this note")


def _line_starts(body: str) -> list[int]:
    starts = [0]
    starts.extend(i + 1 for i, char in enumerate(body) if char == "\n")
    return starts


def _label(view: NoteView, starts: list[int], block: CodeBlock) -> str:
    offset = starts[min(block.first_line, len(starts) - 1)]
    section = view.outline.at(offset)
    return "" if section is None else section_label(section.path, section.heading)


def _line_in_view(viewer: NoteViewer, view: NoteView, starts: list[int]) -> int:
    """The source line of the heading of the section the person is looking at (0: the top).

    That is the outline's line while the outline has the focus; else the last heading at or above
    the top of the page. A section near the end cannot scroll to the top: at the page's end, the
    outline's line (where ``o`` or a search left the reader) counts too while it is on screen.
    """
    headings = view.outline.headings
    outline = viewer.query_one(OutlineList)
    chosen = (
        outline.highlighted
        if outline.highlighted is not None and outline.highlighted < len(headings)
        else None
    )
    if outline.has_focus and chosen is not None:
        return _line_of(starts, headings[chosen].start)
    page = viewer.query_one("#note-scroll", MarkdownPage)
    at_end = page.scroll_y > 0 and page.scroll_y >= page.max_scroll_y  # a page that fits has no end
    line = 0
    for index, section in enumerate(headings):
        heading_line = _line_of(starts, section.start)
        row = page.row_of(heading_line)
        if row is None:
            continue
        if row <= page.scroll_y or (at_end and index == chosen and row < page.scroll_y + page.size.height):
            line = max(line, heading_line)
    return line


def _line_of(starts: list[int], offset: int) -> int:
    return bisect.bisect_right(starts, offset) - 1

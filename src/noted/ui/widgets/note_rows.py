"""How the note list draws one note: two lines, the title with its marks, then time and tags.

Pure functions of a row (no widget state), so the viewer's dates and a test of a conflict's mark
draw exactly as the list does.
"""

from __future__ import annotations

import time

from textual.content import Content

from noted.store.protocol import NoteOrder
from noted.ui.data import NoteRow


def when(ms: int) -> str:
    """A note time as the list shows it, in local time."""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ms / 1000)) if ms else ""


def row_prompt(row: NoteRow, marked: bool, order: NoteOrder) -> Content:
    """The two lines of one note: mark, to-do box and title; then time and tags."""
    meta = row.meta
    box: tuple[str, str] = ("", "")
    if meta.is_todo:
        box = ("☑ ", "$text-success") if meta.todo_completed else ("☐ ", "$text-warning")
    if meta.is_conflict:  # Joplin's sync kept this side of a note changed on two machines
        box = ("conflict ", "bold $text-error")
    title = meta.title or "(untitled)"
    stamp = meta.user_created_time if order is NoteOrder.CREATED else meta.user_updated_time
    tags = "  " + " ".join(f"#{t}" for t in row.tags) if row.tags else ""
    return Content.assemble(
        ("▌" if marked else " ", "bold $accent"),
        box,
        (title, "bold" if not meta.todo_completed else "strike"),
        "\n ",
        (when(stamp), "$text-muted"),
        (tags, "$text-secondary"),
    )

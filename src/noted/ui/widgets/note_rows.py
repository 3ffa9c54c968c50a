"""How the note list draws one note (two lines, the title with its marks, then time and tags), and
what it says when it has none.

Pure functions of a row (no widget state), so the viewer's dates and a test of a conflict's mark
draw exactly as the list does.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.content import Content

from noted.models import Note, NoteMeta
from noted.store.protocol import NoteOrder
from noted.ui.data import NoteRow, SourceKind
from noted.wording import local_time

_NOTHING = {
    SourceKind.TRASH: "The trash is empty.",
    SourceKind.TODOS: "No to-dos.",
    SourceKind.TAG: "No note carries this tag.",
    SourceKind.SEARCH: "No note matches.",
    SourceKind.CONFLICTS: "No conflicts to settle.",
}


when = local_time


def due_mark(note: Note | NoteMeta, now_ms: int | None = None) -> tuple[str, str]:
    """An open to-do's due time, red once it has passed; "" for any other note."""
    if not (note.is_todo and note.todo_due and not note.todo_completed):
        return ("", "")
    now = time.time() * 1000 if now_ms is None else now_ms
    return (f"due {when(note.todo_due)}", "$text-error" if note.todo_due < now else "$text-warning")


def row_prompt(row: NoteRow, marked: bool, order: NoteOrder) -> Content:
    """The two lines of one note: mark, to-do box and title; then an open to-do's due time, the
    note's time and tags."""
    meta = row.meta
    box: tuple[str, str] = ("", "")
    if meta.is_todo:
        box = ("☑ ", "$text-success") if meta.todo_completed else ("☐ ", "$text-warning")
    if meta.is_conflict:  # Joplin's sync kept this side of a note changed on two machines
        box = ("conflict ", "bold $text-error")
    title = meta.listed_title or "(untitled)"
    stamp = meta.user_created_time if order is NoteOrder.CREATED else meta.user_updated_time
    tags = "  " + " ".join(f"#{t}" for t in row.tags) if row.tags else ""
    due, due_style = due_mark(meta)
    return Content.assemble(
        ("▌" if marked else " ", "bold $accent"),
        box,
        (title, "bold" if not meta.todo_completed else "strike"),
        "\n ",
        (f"{due}  " if due else "", due_style),
        (when(stamp), "$text-muted"),
        (tags, "$text-secondary"),
    )


def nothing_listed(kind: SourceKind, *, filtering: bool, keys: Callable[[str], str]) -> tuple[str, ...]:
    """What an empty list says instead of being blank: that the filter found no title and where to
    search the text instead, or that the source holds no note (and how to make one, where a new
    note would land in it: a notebook, or a tag, which it gets). ``keys`` gives the keys of a
    binding id ("" for none)."""
    if filtering:
        search = keys("app.search")
        return (
            "No title holds these words.",
            *([f"{search} searches the notes for them."] if search else []),
        )
    new = keys("app.new_note") if kind in (SourceKind.ALL, SourceKind.FOLDER, SourceKind.TAG) else ""
    return (_NOTHING.get(kind, "No notes here."), *([f"{new} makes one."] if new else []))

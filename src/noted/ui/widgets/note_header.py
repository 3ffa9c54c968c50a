"""The reader's header line for a note (``NoteViewer``)."""

from __future__ import annotations

from textual.content import Content

from noted.ui.data import NoteView
from noted.ui.widgets.note_rows import due_mark, when
from noted.wording import one_line


def note_header(view: NoteView) -> Content:
    """The reader's header: the title, the notebook and when, what is left out of a long note, the tags."""
    note = view.note
    parts: list[str | tuple[str, str]] = [(one_line(note.title) or "(untitled)", "bold $text-primary")]
    if note.is_trashed:
        parts.append(("  in the trash", "$text-error"))
    if note.is_todo:
        parts.append(("  ☑ done" if note.todo_completed else "  ☐ to-do", "$text-warning"))
        due, due_style = due_mark(note)
        if due:
            parts.append((f"  {due}", due_style))
    meta = f"\n{view.notebook} · {when(note.user_updated_time)}"
    parts.append((meta, "$text-muted"))
    if view.partial:  # the page ends with what is left out and how to see it (``page_text``)
        parts.append((f"  first {len(view.text):,} of {len(note.body):,} characters shown", "$text-warning"))
    if view.tags:
        parts.append(("  " + " ".join(f"#{t}" for t in view.tags), "$text-secondary"))
    return Content.assemble(*parts)

"""How the note list draws one note (two lines, the title with its marks, then time and tags), and
what it says when it has none.

Pure functions of a row (no widget state), so the viewer's dates and a test of a conflict's mark
draw exactly as the list does.
"""

from __future__ import annotations

import textwrap
import time
from collections.abc import Callable, Sequence

from textual.content import Content

from noted.models import Folder, Note, NoteMeta
from noted.store.protocol import NoteOrder
from noted.ui.data import NoteRow, SourceKind
from noted.wording import local_time, one_line, plural

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
    title = one_line(meta.listed_title) or "(untitled)"  # a title made in Joplin may hold a line break
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


def nothing_listed(
    kind: SourceKind, *, filtering: bool, keys: Callable[[str], str], trashed: Sequence[Folder] = ()
) -> tuple[str, ...]:
    """What an empty list says instead of being blank: that the filter found no title and where to
    search the text instead, or that the source holds no note (and how to make one, where a new
    note would land in it: a notebook, or a tag, which it gets; the notebooks in a trash with no
    notes, ``trashed``). ``keys`` gives the keys of a binding id ("" for none)."""
    if kind is SourceKind.TRASH and trashed and not filtering:
        return _trashed_notebooks(trashed)
    if filtering:
        search = keys("app.search")
        return (
            "No title holds these words.",
            *([f"{search} searches the notes for them."] if search else []),
        )
    new = keys("app.new_note") if kind in (SourceKind.ALL, SourceKind.FOLDER, SourceKind.TAG) else ""
    return (_NOTHING.get(kind, "No notes here."), *([f"{new} makes one."] if new else []))


def _trashed_notebooks(folders: Sequence[Folder]) -> tuple[str, ...]:
    """A trash with notebooks and no notes says which (as many as *Empty trash* counts), and how
    to get one back."""
    ids = {folder.id for folder in folders}
    tops = [folder.title for folder in folders if folder.parent_id not in ids]
    inside = len(folders) - len(tops)
    names = ", ".join(f'"{title}"' for title in tops)
    more = f" (and {plural(inside, 'notebook')} inside)" if inside else ""
    one = len(tops) == 1
    return (
        f"No notes in the trash, but {plural(len(tops), 'notebook')}: {names}{more}.",
        f"u on {'it' if one else 'one'} under Trash in the tree restores it.",
    )


def wrapped(lines: Sequence[str], width: int) -> list[str]:
    """``lines`` wrapped at words to ``width`` columns (a narrow list keeps the whole message)."""
    return [part for line in lines for part in (textwrap.wrap(line, max(width, 8)) or [""])]

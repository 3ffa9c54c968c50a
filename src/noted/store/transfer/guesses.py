"""What an import's file makes of a note it matched, field by field, and which notes found by
their title alone (``matching.py``) it keeps as its files' notes.

A note found by its title alone is a guess: a file that names an id and differs from the note in
any field (its text, a due date, a tag) is a new note under that id instead. That is settled
before anything is written and before the links between the import's files are made ids
(``Scan.with_ids``): settled while writing, the links to that file, made ids of the guessed note
at the scan, led to the guessed note, not to the new one. Nothing here writes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noted.models import Note, NoteDraft, NotePatch
from noted.store.protocol import ReadsNotesFromText

if TYPE_CHECKING:
    from noted.store.protocol import Store
    from noted.store.transfer.scan import Scan, ScanFile


def wanted_note(
    store: Store, file: ScanFile, old: Note, parent_id: str, body: str, tags_now: list[str]
) -> NoteDraft:
    """The note as the file makes it (a field the file does not give as it is), as the store will
    read it once written: a Markdown folder keeps its own form (``ReadsNotesFromText``), so the
    note is compared with that, or an unchanged file would count as a change at every import."""
    front = file.front
    draft = NoteDraft(
        title=file.title,
        body=body,
        parent_id=parent_id,
        is_todo=old.is_todo if front.is_todo is None else front.is_todo,
        todo_due=old.todo_due if front.todo_due is None else front.todo_due,
        todo_completed=old.todo_completed if front.todo_completed is None else front.todo_completed,
        source_url=old.source_url if front.source_url is None else front.source_url,
        tags=tuple(tags_now) if front.tags is None else front.tags,
    )
    return store.as_read(old.id, draft) if isinstance(store, ReadsNotesFromText) else draft


def patch_of(wanted: NoteDraft, old: Note) -> NotePatch | None:
    """The fields ``wanted`` changes, or None when it changes none (tags aside)."""
    fields = ("title", "body", "parent_id", "is_todo", "todo_due", "todo_completed", "source_url")
    changes = {k: getattr(wanted, k) for k in fields if getattr(wanted, k) != getattr(old, k)}
    return NotePatch(**changes) if changes else None


def tag_changes(wanted: NoteDraft, tags_now: list[str]) -> tuple[list[str], list[str]]:
    """Tags to add and to remove so the note carries exactly the ``wanted`` ones."""
    current = {t.casefold(): t for t in tags_now}
    want = {t.casefold(): t for t in wanted.tags}
    add = [t for k, t in want.items() if k not in current]
    remove = [t for k, t in current.items() if k not in want]
    return add, remove


def settle_guesses(scan: Scan, tags: dict[str, list[str]]) -> None:
    """Make each file found by its title alone that names an id and differs from its note a new
    note under that id. Its links are read as they lead once settled, so a file linking one that
    became a new note differs from a note linking the guessed one: settled again until none moves.
    ``tags``: the tags of every note, by note id."""
    guesses = [f for f in scan.files if f.by_title and f.front.id is not None]
    moved = True
    while moved:
        moved = False
        for file in guesses:
            old = file.existing
            if old is None:
                continue
            folder_id = scan.dirs[file.dir_key].folder_id or old.parent_id  # (found there: it has one)
            now = tags.get(old.id, [])
            wanted = wanted_note(scan.store, file, old, folder_id, scan.with_ids(file.body), now)
            if patch_of(wanted, old) is not None or any(tag_changes(wanted, now)):
                file.existing, file.note_id, file.by_title, moved = None, file.front.id or "", False, True

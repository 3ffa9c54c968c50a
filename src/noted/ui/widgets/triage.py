"""``NoteTriage``: the writes the note list makes on several notes at once.

Each action asks what it needs (tags, a notebook) in a dialog, then runs one worker on the list
that applies the change note by note with the person as actor, through the note operations of
``noted.ops.notes`` (the same the CLI and the tools use). A note that fails (it was deleted
meanwhile, say) is counted and reported; the others still change. The list hears the result as
``NoteTriage.Done`` and the change feed redraws what changed.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

from noted.errors import NotedError
from noted.models import ACTOR_USER, NoteDraft, NoteMeta, now_ms
from noted.ops import notes as ops
from noted.ui.data import NoteSource, SourceKind
from noted.ui.dialogs.picker import NotebookPicker
from noted.ui.dialogs.prompt import TextPrompt
from noted.ui.workers import in_thread
from noted.wording import plural

if TYPE_CHECKING:
    from noted.store.protocol import Store
    from noted.ui.widgets.note_list import NoteList


Undo = tuple[Callable[[], object], ...]
"""What puts a triage action's notes back, one callable a note (run in a thread)."""
Apply = Callable[[NoteMeta], "Callable[[], object] | bool"]
"""A triage action on one note: False when it changed nothing, else True or its undo."""
UNDO_HINT = "z undoes"


def range_marks(
    notes: Sequence[NoteMeta], start: int, before: Mapping[str, NoteMeta], index: int
) -> dict[str, NoteMeta]:
    """The marks while a range is marked (``v``): those made ``before`` it, and ``notes`` from
    ``start`` to ``index``."""
    low, high = sorted((min(start, len(notes) - 1), min(index, len(notes) - 1)))
    return {**before, **{meta.id: meta for meta in notes[low : high + 1]}}


TAG_HINT = 'Separate tags with spaces or commas; quote a name with spaces ("Q3 plan"); -tag removes one.'


def parse_tag_edit(text: str) -> tuple[list[str], list[str]]:
    """``'work, -draft "Q3 plan"'`` → (tags to add, tags to remove): spaces or commas separate
    tags, double quotes group words into one name (and are never part of it), as in a shell
    (``shlex``), ``-"Q3 plan"`` included.

    Raises:
        ValueError: A quote is not closed.
    """
    words = shlex.shlex(text, posix=True)
    words.whitespace += ","
    words.whitespace_split = True
    words.commenters = words.escape = ""
    words.quotes = '"'  # an apostrophe is part of a name: "don't"
    add: list[str] = []
    remove: list[str] = []
    for part in words:
        if part.startswith("-"):
            if title := part[1:].lstrip("#").strip():
                remove.append(title)
        elif title := part.lstrip("#").strip():
            add.append(title)
    return add, remove


class NoteTriage:
    """Tag, move, complete, trash and restore notes of one ``NoteList``."""

    @dataclass
    class Done(Message, bubble=False):
        """A triage action finished: ``summary`` is shown; ``select`` is a note to put the cursor on;
        ``undo`` puts back what it changed (empty when it cannot be undone this way)."""

        summary: str
        failures: tuple[str, ...]
        select: str | None = None
        undo: Undo = ()

    def __init__(self, note_list: NoteList, store: Store) -> None:
        self._list = note_list
        self._store = store
        self.last: Undo = ()
        """What puts the last tag, move or to-do change back (``z``); the list sets it from ``Done``."""

    def _each(
        self,
        description: str,
        notes: Sequence[NoteMeta],
        apply: Apply,
        done: str,
        none: str = "",
        same: str = "",
    ) -> None:
        """Apply ``apply`` to each note in a worker; it returns False for a note it left as it
        was, or what puts the note back as it was (``undo``). ``done`` counts the notes changed
        (``{n}``; ``{a}`` and ``{s}`` make the words after it singular or plural);
        ``none``, if given, is said instead when no note changed, and ``same`` after ``done`` of
        the notes left as they were (``{k}`` counts them, ``{w}`` is was or were, ``{a}`` and
        ``{s}`` as above)."""
        if not notes:
            self._list.notify("No note is highlighted.", severity="warning")
            return
        note_list = self._list

        def run() -> None:
            changed, failures, undo = 0, [], []
            for note in notes:
                try:
                    result = apply(note)
                except NotedError as exc:
                    failures.append(f"{note.title}: {exc}")
                    continue
                changed += bool(result)
                if callable(result):
                    undo.append(result)
            one, kept = changed == 1, len(notes) - changed - len(failures)
            summary = done.format(n=plural(changed, "note"), a="a " if one else "", s="" if one else "s")
            alone = kept == 1
            left = {
                "k": plural(kept, "note"),
                "w": "was" if alone else "were",
                "a": "a " if alone else "",
                "s": "" if alone else "s",
            }
            summary += f" {same.format(**left)}" if same and kept and changed else ""
            summary += f" ({UNDO_HINT})" if undo else ""
            if none and not changed:
                summary = none.format(**left)
            note_list.post_message(self.Done(summary, tuple(failures), undo=tuple(undo)))

        in_thread(note_list, run, "triage", description)

    def tag(self, notes: Sequence[NoteMeta]) -> None:
        def apply(text: str | None) -> None:
            try:
                add, remove = parse_tag_edit(text or "")
            except ValueError:
                self._list.notify(
                    'No tag changed: a quote is not closed (write "Q3 plan").', severity="warning"
                )
                return
            if not add and not remove:
                return

            def one(note: NoteMeta) -> Callable[[], object] | bool:
                done = ops.edit_tags(self._store, note.id, add, remove, actor=ACTOR_USER)
                if not done.changed:
                    return False
                return lambda: ops.undo_tags(self._store, done, actor=ACTOR_USER)

            self._each(
                "tagging notes",
                notes,
                one,
                "Tags changed on {n}.",
                "No tags changed.",
                "{k} needed no change.",
            )

        if notes:
            prompt = TextPrompt(f"Tags for {plural(len(notes), 'note')}", hint=TAG_HINT)
            self._list.app.push_screen(prompt, apply)

    def move(self, notes: Sequence[NoteMeta]) -> None:
        """Ask for a notebook, then move ``notes`` there."""

        def chosen(folder_id: str | None) -> None:
            if folder_id:
                self.move_to(notes, folder_id)

        if notes:
            picker = NotebookPicker(self._store, title=f"Move {plural(len(notes), 'note')} to…")
            self._list.app.push_screen(picker, chosen)

    def move_to(self, notes: Sequence[NoteMeta], folder_id: str) -> None:
        """Move ``notes`` into the notebook ``folder_id``."""

        def one(note: NoteMeta) -> Callable[[], object] | bool:
            if not ops.move_note(self._store, note.id, folder_id, actor=ACTOR_USER).changed:
                return False
            return lambda: ops.move_note(self._store, note.id, note.parent_id, actor=ACTOR_USER)

        there = "{k} {w} there already."
        self._each(
            "moving notes", notes, one, "Moved {n}.", none=f"Nothing moved: {there}", same=there.capitalize()
        )

    def complete(self, notes: Sequence[NoteMeta]) -> None:
        todos = [n for n in notes if n.is_todo]
        if notes and not todos:
            self._list.notify(
                "Only to-dos can be completed (T turns a note into a to-do).", severity="warning"
            )
            return
        # One direction for the whole selection, taken from the first: mixed states end the same.
        reopen = bool(todos and todos[0].todo_completed)
        stamp = now_ms()

        def one(note: NoteMeta) -> Callable[[], object] | bool:
            if not note.is_todo:  # left as it is, and said so with those done (or open) already
                return False
            if not ops.set_completed(self._store, note.id, not reopen, actor=ACTOR_USER, stamp=stamp).changed:
                return False
            was, when = bool(note.todo_completed), note.todo_completed or None
            return lambda: ops.set_completed(self._store, note.id, was, actor=ACTOR_USER, stamp=when)

        verb, other = ("Reopened", "not a done to-do.") if reopen else ("Completed", "not an open to-do.")
        other = f"{{k}} {{w}} {other}"
        self._each(
            "completing to-dos",
            notes,
            one,
            f"{verb} {{n}}.",
            none=f"Nothing {verb.lower()}: {other}",
            same=other,
        )

    def toggle_todo(self, notes: Sequence[NoteMeta]) -> None:
        make = bool(notes and not notes[0].is_todo)

        def one(note: NoteMeta) -> Callable[[], object] | bool:
            if not ops.set_todo(self._store, note.id, make, actor=ACTOR_USER).changed:
                return False
            completed = note.todo_completed

            def back() -> None:
                ops.set_todo(self._store, note.id, not make, actor=ACTOR_USER)
                if completed:  # a done to-do made a plain note comes back done
                    ops.set_completed(self._store, note.id, True, actor=ACTOR_USER, stamp=completed)

            return back

        kind = "{a}to-do{s}" if make else "{a}plain note{s}"
        same = f"{{k}} {{w}} {kind} already."
        self._each(
            "switching to-dos",
            notes,
            one,
            f"Made {{n}} into {kind}.",
            none=f"Nothing changed: {same}",
            same=same,
        )

    def trash(self, notes: Sequence[NoteMeta]) -> None:
        def one(note: NoteMeta) -> bool:
            return ops.trash_note(self._store, note.id, actor=ACTOR_USER).changed

        there = "{k} {w} in the trash already."
        done = "Moved {n} to the trash (u under Trash restores)."
        self._each("moving notes to the trash", notes, one, done, none=f"Nothing moved: {there}", same=there)

    def restore(self, notes: Sequence[NoteMeta]) -> None:
        def one(note: NoteMeta) -> bool:
            return ops.restore_note(self._store, note.id, actor=ACTOR_USER).changed

        out = "{k} {w} not in the trash."
        self._each("restoring notes", notes, one, "Restored {n}.", none=f"Nothing restored: {out}", same=out)

    def undo(self) -> None:
        """Put back what the last tag, move or to-do change did (``Done.undo``), note by note, once."""
        undo, self.last = self.last, ()
        if not undo:
            self._list.notify(
                "Nothing to undo: z undoes the last tag, move or to-do change.", severity="warning"
            )
            return
        note_list = self._list

        def run() -> None:
            undone, failures = 0, []
            for back in reversed(undo):
                try:
                    back()
                    undone += 1
                except NotedError as exc:  # the note was deleted or changed meanwhile
                    failures.append(str(exc))
            note_list.post_message(self.Done(f"Undone on {plural(undone, 'note')}.", tuple(failures)))

        in_thread(note_list, run, "triage", "undoing")

    def new_note(self, source: NoteSource, near: NoteMeta | None) -> None:
        """Ask for a title and create a note in the listed notebook, else beside the highlighted note,
        else in the default notebook (``noted.ops.notes.DEFAULT_NOTEBOOK``)."""
        folder_id = source.id if source.kind is SourceKind.FOLDER else (near.parent_id if near else "")
        tag = source.title.lstrip("#") if source.kind is SourceKind.TAG else None
        note_list = self._list

        def create(title: str | None) -> None:
            if not title:
                return

            def run() -> None:
                draft = NoteDraft(title=title, parent_id=folder_id, tags=(tag,) if tag else ())
                note = ops.create_note(self._store, draft, actor=ACTOR_USER).note
                note_list.post_message(self.Done(f'Created "{note.title}".', (), select=note.id))
                note_list.post_message(note_list.NoteChosen(note_list, note.id, edit=True))

            in_thread(note_list, run, "triage", "creating a note")

        self._list.app.push_screen(TextPrompt("New note", placeholder="title"), create)

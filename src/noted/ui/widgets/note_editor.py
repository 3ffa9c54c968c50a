"""``NoteEditor``: edit a note's title and Markdown body in the app, or in ``$EDITOR``.

Saves carry the ``updated_time`` the text was based on. When the note changed meanwhile the
store refuses; the editor keeps the person's text and, for a save the person asked for (Ctrl+S,
Esc, F4's return, quitting), shows the ``ConflictView`` with *Keep both* focused. A save on the
way to another note never asks: the editor stays open with the text and says why, so a key meant
for the list cannot settle the conflict. Saves of one opening of the editor share an editing
session, so a burst of Ctrl+S is one revision while every other save keeps its own, and one
``SaveLine``, so a save asked for while another is under way builds on it (never a conflict with
the editor's own write, nor a second copy of a deleted note).

A note deleted or trashed elsewhere while it is edited stays in the editor with the person's
text (the list's cursor moves on, the editor does not follow it); the header says so, and the next
save keeps the text as a copy, or (trashed) shows both sides. A note edited in the trash says so
in the header and on each save, with the key that restores it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Input, Static, TextArea
from textual.worker import Worker

from noted.errors import ConflictError, NotFoundError
from noted.models import ACTOR_USER, Note
from noted.ops.conflicts import Choice, Conflict, Resolved, resolve
from noted.ops.editing import ExternalEdit, Outcome, SaveLine, edit_text
from noted.store.protocol import Store
from noted.ui.dialogs.conflict import ConflictView
from noted.ui.widgets.text_place import put
from noted.ui.workers import ReportsWorkerFailures, in_thread, thread_work

SAVED = "saved"
CONFLICT = "conflict"
UNCHANGED = "unchanged"

# What follows a save: the editor stays, closes, makes way for another note, or the app quits.
STAY = "stay"
CLOSE = "close"
SWITCH = "switch"
QUIT = "quit"

# What the header says once the note is known to have been written elsewhere.
CHANGED = "changed elsewhere: saving shows both sides"
TRASHED = "moved to the trash elsewhere: saving shows both sides"
GONE = "deleted elsewhere: saving keeps your text as a copy"
RESTORE = "u under Trash restores it"
IN_TRASH = f"in the trash: {RESTORE}"


class NoteEditor(ReportsWorkerFailures, Vertical):
    """The editor that takes the reader's place while a note is edited."""

    HELP = """\
## Editor

Type in Markdown. {note.save} saves, {note.close} saves and goes back to reading, {note.external_editor}
continues in your `$EDITOR` (the app steps aside until the editor closes). **Shift+Tab** goes from the text to
the title, **Tab** back (in the text, Tab indents). A ● in the header means unsaved changes. If the note was
changed elsewhere meanwhile, saving shows both sides' changes and asks: **Keep both** (the default: your text
becomes a conflict copy beside the note), **Take theirs** (yours goes to the history), **Overwrite** (theirs
goes to the history) or **Back to editing** ({conflict.back}). Nothing is lost either way.
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="note.save", tooltip="Save the note"),
        # Priority: the text area would otherwise take Esc to move focus on.
        Binding("escape", "close", "Done", id="note.close", tooltip="Save and go back to reading", priority=True),
        Binding("f4", "external", "$EDITOR", id="note.external_editor",
                tooltip="Continue editing in your $EDITOR; saved back when it closes"),
    ]  # fmt: skip

    dirty: reactive[bool] = reactive(False)

    @dataclass
    class Closed(Message):
        """Editing ended; the reader should show ``note_id`` again."""

        note_id: str

    @dataclass
    class Saved(Message):
        """The note was saved (the app and tests follow this)."""

        note: Note

    @dataclass
    class _Outcome(Message, bubble=False):
        outcome: str
        note: Note | None
        conflict: Conflict | None
        then: str

    @dataclass
    class _Resolved(Message, bubble=False):
        resolved: Resolved
        text: str
        """The person's text as saved (the editor may hold more, typed meanwhile)."""
        then: str

    @dataclass
    class _Fresh(Message, bubble=False):
        note_id: str
        note: Note | None

    def __init__(self, store: Store, *, profile: Path, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self._store, self._profile = store, profile
        self.note: Note | None = None
        self._stale = ""
        self._conflict: Conflict | None = None
        """The conflict the last save met, until the person settles it (or the text is saved)."""
        self._session = ""
        self._line = SaveLine()
        self._kept_file: Path | None = None
        """The ``$EDITOR`` file of an edit not saved yet; removed once the text is safe."""

    def compose(self) -> ComposeResult:
        yield Static(id="editor-header")
        # Not selected on focus: a key typed after Shift+Tab would replace the whole title.
        yield Input(id="editor-title", placeholder="title", select_on_focus=False)
        # The Markdown grammar loads on the first edit, not while the app starts (it takes a while).
        yield TextArea.code_editor(theme="css", soft_wrap=True, show_line_numbers=False, id="editor-body")

    # Opening -------------------------------------------------------------------------------
    def edit(self, note: Note, *, text: str | None = None, line: int = 0, focus: bool = True) -> None:
        """Start editing ``note`` (with ``text`` instead of its body, e.g. after ``$EDITOR``), the
        cursor at the start of ``line`` and that line at the top (where the person was reading)."""
        self.note = note
        self._stale = IN_TRASH if note.is_trashed else ""
        self._conflict = None
        self._session = f"app-editor-{uuid.uuid4().hex}"
        self._line = SaveLine()
        self.query_one("#editor-title", Input).value = note.title
        body = self.query_one("#editor-body", TextArea)
        if body.language is None and "markdown" in body.available_languages:
            body.language = "markdown"  # highlighting, when tree-sitter's Markdown grammar is installed
        body.load_text(note.body if text is None else text)
        put(body, (line, 0))
        self._update_dirty()
        if focus:
            body.focus()

    @property
    def title_text(self) -> str:
        """The title typed, trimmed; the note's own, untouched, as it is (Joplin's may end in a break)."""
        typed = self.query_one("#editor-title", Input).value
        return typed if self.note is not None and typed == self.note.title else typed.strip()

    @property
    def body_text(self) -> str:
        return self.query_one("#editor-body", TextArea).text

    @on(TextArea.Changed)
    @on(Input.Changed)
    def _changed(self) -> None:
        self._update_dirty()

    def _update_dirty(self) -> None:
        note = self.note
        self.dirty = note is not None and (self.body_text != note.body or self.title_text != note.title)
        self._draw_header()

    def _draw_header(self) -> None:
        mark = ("● ", "bold $text-accent") if self.dirty else ("  ", "")
        state = "unsaved" if self.dirty else "saved"
        # On a line of its own: beside the keys it would be cut off in a pane of 80 columns.
        stale = (f"\n  {self._stale}", "$text-warning") if self._stale else ("", "")
        self.query_one("#editor-header", Static).update(
            Content.assemble(
                mark, ("Editing", "bold"), (f" · {state} · ctrl+s save · esc done", "$text-muted"), stale
            )
        )

    def check_elsewhere(self) -> None:
        """Read the open note again: the change feed says someone wrote it."""
        if self.note is not None:
            self._fetch_fresh(self.note.id)

    @thread_work("editor-fresh", "re-reading the note")
    def _fetch_fresh(self, note_id: str) -> None:
        try:
            note: Note | None = self._store.get_note(note_id)
        except NotFoundError:
            note = None  # deleted for good
        self.post_message(self._Fresh(note_id, note))

    @on(_Fresh)
    def _fresh(self, message: _Fresh) -> None:
        if message.note is not None:
            self.changed_elsewhere(message.note)
        elif self.note is not None and self.note.id == message.note_id:
            self._stale = GONE
            self._draw_header()

    def changed_elsewhere(self, note: Note) -> None:
        """The open note was written by someone else: take it if nothing is unsaved, else warn."""
        old = self.note
        if (
            old is None
            or note.id != old.id
            or (note.updated_time, note.is_trashed) == (old.updated_time, old.is_trashed)
        ):
            return  # (a trash leaves updated_time as it was)
        if self.dirty:
            self._stale = TRASHED if note.is_trashed else CHANGED
            self._draw_header()
        else:  # the new text, the cursor and the focus left where they are (the chat, say)
            body = self.query_one("#editor-body", TextArea)
            at, top = body.cursor_location, round(body.scroll_y)
            self.edit(note, focus=False)
            put(body, at, top)

    # Saving --------------------------------------------------------------------------------
    def save(self, *, then: str = STAY) -> Worker[str] | None:
        """Save if there are changes (in a worker); returns the worker, or None when nothing to do."""
        note = self.note
        if note is None:
            return None
        if not self.dirty:
            if then == CLOSE:
                self.post_message(self.Closed(note.id))
            return None
        title, body = self.title_text or note.title, self.body_text
        store, session, line = self._store, self._session, self._line
        ticket = line.ticket()  # in the order asked: a later save's text is the newer

        def write() -> str:
            outcome = line.save(store, ticket, note, title, body, actor=ACTOR_USER, session=session)
            return self._report(outcome, body, then)

        return in_thread(self, write, "editor-save", "saving the note")

    def _report(self, outcome: Outcome, body: str, then: str) -> str:
        """In a save's worker: tell the editor what the save of ``body`` came to."""
        if outcome.kept is not None:
            message = f'The note was deleted meanwhile: your text is saved as "{outcome.kept.title}".'
            resolved = Resolved(Choice.KEEP_BOTH, outcome.kept, outcome.kept, message)
            self.post_message(self._Resolved(resolved, body, then))
            return CONFLICT
        if outcome.saved is not None:
            self.post_message(self._Outcome(SAVED, outcome.saved, None, then))
            return SAVED
        self.post_message(self._Outcome(CONFLICT, None, outcome.conflict, then))
        return CONFLICT

    async def flush(self, *, quitting: bool = False) -> str:
        """Save now and wait (before quitting or opening another note)."""
        if self._conflict is not None and self.dirty and not quitting:
            self._refuse_switch()
            return CONFLICT
        worker = self.save(then=QUIT if quitting else SWITCH)
        if worker is None:
            return UNCHANGED
        await worker.wait()
        return worker.result or CONFLICT

    def _refuse_switch(self) -> None:
        self.notify(
            "This note changed elsewhere while you edited it, so it stays open with your text. "
            "Press Ctrl+S to see both sides and choose how to keep it.",
            severity="warning",
        )

    @on(_Outcome)
    def _outcome(self, message: _Outcome) -> None:
        if message.outcome == SAVED and message.note is not None:
            self._saved(message.note, message.then)
            return
        if message.conflict is None:
            return
        self._conflict = message.conflict
        self._stale = TRASHED if message.conflict.theirs.is_trashed else CHANGED
        self._draw_header()
        if message.then == SWITCH:  # the person is on the way elsewhere: nothing to answer now
            self._refuse_switch()
            return
        self._ask(message.conflict, message.then)

    def _saved(self, note: Note, then: str) -> None:
        self._forget_file()
        current = self.note
        if current is not None and current.id == note.id and self.title_text == current.title != note.title:
            # The store titled the text (a Markdown folder: its first heading); the person had not.
            self.query_one("#editor-title", Input).value = note.title
        if current is None or current.id != note.id or current.updated_time <= note.updated_time:
            self.note = note  # (not a save overtaken by a later one, reported after it)
        self._stale = IN_TRASH if note.is_trashed else ""
        self._conflict = None
        self._update_dirty()
        if note.is_trashed:  # saved, but where it is out of sight: say so, and how to bring it back
            self.notify(
                f'Saved "{note.title}", which is in the trash ({RESTORE}).', severity="warning", timeout=10
            )
        self.post_message(self.Saved(note))
        if then == CLOSE:
            self.post_message(self.Closed(note.id))

    def _ask(self, conflict: Conflict, then: str) -> None:
        if isinstance(self.app.screen, ConflictView):
            return  # one question at a time: the open view already holds this text
        view = ConflictView(conflict, quitting=then == QUIT)

        def answer(choice: Choice | None) -> None:
            if choice is None or choice is Choice.BACK:
                self.notify(
                    "Back to editing: your text is here, not saved yet. Ctrl+S shows the choices again."
                )
                return
            self._resolve(conflict, choice, QUIT if view.quit_after else then)

        self.app.push_screen(view, answer)

    @thread_work("editor-resolve", "saving both sides")
    def _resolve(self, conflict: Conflict, choice: Choice, then: str) -> None:
        try:
            resolved = resolve(self._store, conflict, choice, actor=ACTOR_USER)
        except (ConflictError, NotFoundError):  # changed again, or deleted: show (or keep) it as it is now
            outcome = self._line.settle(
                self._store, conflict.base, conflict.title, conflict.body, actor=ACTOR_USER
            )
            self._report(outcome, conflict.body, then)
            return
        self.post_message(self._Resolved(resolved, conflict.body, then))

    @on(_Resolved)
    def _resolved(self, message: _Resolved) -> None:
        resolved, note = message.resolved, message.resolved.note
        self._forget_file()
        copy_kept = resolved.copy is not None and resolved.copy.id == note.id  # the note was deleted
        if not (copy_kept and self.note is not None and self.note.id == note.id):  # (else: said already)
            said = resolved.message
            self.notify(said.removesuffix(".") + f" ({RESTORE})." if note.is_trashed else said, timeout=10)
            # The note as it is now, or the copy: the person's text is safe. Text typed while the
            # save was under way stays in the editor, over the copy, not saved yet.
            typed, saved = self.body_text, message.text
            if copy_kept and typed != saved and note.body.endswith(saved):
                self.edit(note, text=note.body[: len(note.body) - len(saved)] + typed)
            else:
                self.edit(note)
        if resolved.choice is not Choice.KEEP_BOTH:
            self.post_message(self.Saved(note))
        if message.then == CLOSE and self.note is not None:
            self.post_message(self.Closed(self.note.id))
        elif message.then == QUIT:
            self.app.exit()

    # Actions -------------------------------------------------------------------------------
    def action_save(self) -> None:
        if self.save() is None:
            self.notify("Nothing to save.")

    def action_close(self) -> None:
        self.save(then=CLOSE)

    def action_external(self) -> None:
        if self.note is not None:
            self.edit_externally(self.note, self.body_text, self.title_text or self.note.title)

    def edit_externally(self, note: Note, text: str, title: str, *, then: str = STAY) -> None:
        """Suspend the app, run ``$EDITOR`` on ``text``, then save the result as the person.

        The save is based on ``note``'s ``updated_time``; if the note changed meanwhile it is
        refused, the text stays in the editor and in the temporary file until the person settles
        the conflict. ``then=CLOSE`` (editing started from the reader) goes back to reading once
        the text is saved, unchanged, or the editor could not run.
        """
        try:
            with self.app.suspend():
                result: ExternalEdit = edit_text(text, title=title, profile_root=self._profile)
        except Exception as exc:  # no terminal to hand over, an editor that failed: say so, lose nothing
            self.notify(f"Could not edit in $EDITOR: {exc}", severity="error")
            if then == CLOSE:
                self.post_message(self.Closed(note.id))
            return
        self.note = note
        self._kept_file = result.path
        self.query_one("#editor-title", Input).value = title
        self.query_one("#editor-body", TextArea).load_text(result.text)
        self._update_dirty()
        if self.save(then=then) is None:
            self._forget_file()

    def _forget_file(self) -> None:
        path, self._kept_file = self._kept_file, None
        if path is not None:
            in_thread(
                self, lambda: path.unlink(missing_ok=True), "editor-file", "removing the temporary file"
            )

"""``NoteEditor``: edit a note's title and Markdown body in the app, or in ``$EDITOR``.

Saves carry the ``updated_time`` the text was based on. When the note changed meanwhile the
store refuses; the editor keeps the person's text, says so, and asks before overwriting. It
saves on ``ctrl+s``, when closed (Esc), before another note opens and before the app quits.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Input, Static, TextArea
from textual.worker import Worker

from noted.errors import ConflictError
from noted.models import ACTOR_USER, Note, NotePatch
from noted.store.protocol import Store
from noted.ui.dialogs.confirm import Confirm
from noted.ui.external import ExternalEdit, edit_text
from noted.ui.workers import ReportsWorkerFailures

SAVED = "saved"
CONFLICT = "conflict"
UNCHANGED = "unchanged"


class NoteEditor(ReportsWorkerFailures, Vertical):
    """The editor that takes the reader's place while a note is edited."""

    HELP = """\
## Editor

Type in Markdown. **Ctrl+S** saves, **Esc** saves and goes back to reading, **F4** continues
in your `$EDITOR` (the app steps aside until the editor closes). **Shift+Tab** goes from the
text to the title, **Tab** back (in the text, Tab indents). A ● in the header means unsaved changes. If the note was changed
elsewhere meanwhile, nothing is overwritten without asking, and your text stays here.
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="note.save", tooltip="Save the note"),
        # Priority: the text area would otherwise take Esc to move focus on.
        Binding("escape", "close", "Done", id="note.close", tooltip="Save and go back to reading", priority=True),
        Binding("f4", "external", "$EDITOR", id="note.external_editor",
                tooltip="Continue editing in your $EDITOR; saved back when it closes"),
    ]  # fmt: skip

    dirty: reactive[bool] = reactive(False)

    class Closed(Message):
        """Editing ended; the reader should show ``note_id`` again."""

        def __init__(self, note_id: str) -> None:
            super().__init__()
            self.note_id = note_id

    class Saved(Message):
        """The note was saved (the app and tests follow this)."""

        def __init__(self, note: Note) -> None:
            super().__init__()
            self.note = note

    class _Outcome(Message, bubble=False):
        def __init__(self, outcome: str, note: Note | None, current: int | None, close: bool) -> None:
            super().__init__()
            self.outcome = outcome
            self.note = note
            self.current = current
            self.close = close

    class _Fresh(Message, bubble=False):
        def __init__(self, note: Note) -> None:
            super().__init__()
            self.note = note

    def __init__(self, store: Store, *, id: str | None = None) -> None:  # noqa: A002 (Textual's name)
        super().__init__(id=id)
        self._store = store
        self.note: Note | None = None
        self._stale = False
        self._kept_file: Path | None = None
        """The ``$EDITOR`` file of an edit not saved yet; removed once the text is safe."""

    def compose(self) -> ComposeResult:
        yield Static(id="editor-header")
        # Not selected on focus: a key typed after Shift+Tab would replace the whole title.
        yield Input(id="editor-title", placeholder="title", select_on_focus=False)
        # The Markdown grammar loads on the first edit, not while the app starts (it takes a while).
        body = TextArea.code_editor(theme="css", soft_wrap=True, show_line_numbers=False, id="editor-body")
        body.cursor_blink = not self.app.is_headless  # snapshots and tests must not depend on a blink
        yield body

    # Opening -------------------------------------------------------------------------------
    def edit(self, note: Note, *, text: str | None = None) -> None:
        """Start editing ``note`` (with ``text`` instead of its body, e.g. after ``$EDITOR``)."""
        self.note = note
        self._stale = False
        self.query_one("#editor-title", Input).value = note.title
        body = self.query_one("#editor-body", TextArea)
        if body.language is None and "markdown" in body.available_languages:
            body.language = "markdown"  # highlighting, when tree-sitter's Markdown grammar is installed
        body.load_text(note.body if text is None else text)
        self._update_dirty()
        self.query_one("#editor-body", TextArea).focus()

    @property
    def title_text(self) -> str:
        return self.query_one("#editor-title", Input).value.strip()

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
        stale = ("  changed elsewhere: saving will ask first", "$text-warning") if self._stale else ("", "")
        self.query_one("#editor-header", Static).update(
            Content.assemble(
                mark, ("Editing", "bold"), (f" · {state} · ctrl+s save · esc done", "$text-muted"), stale
            )
        )

    def check_elsewhere(self) -> None:
        """Read the open note again: the change feed says someone wrote it."""
        if self.note is not None:
            self._fetch_fresh(self.note.id)

    @work(
        thread=True,
        exclusive=True,
        group="editor-fresh",
        exit_on_error=False,
        description="re-reading the note",
    )
    def _fetch_fresh(self, note_id: str) -> None:
        self.post_message(self._Fresh(self._store.get_note(note_id)))

    @on(_Fresh)
    def _fresh(self, message: _Fresh) -> None:
        self.changed_elsewhere(message.note)

    def changed_elsewhere(self, note: Note) -> None:
        """The open note was written by someone else: take it if nothing is unsaved, else warn."""
        if self.note is None or note.id != self.note.id or note.updated_time == self.note.updated_time:
            return
        if self.dirty:
            self._stale = True
            self._draw_header()
        else:
            self.edit(note)

    # Saving --------------------------------------------------------------------------------
    def save(self, *, close: bool = False, base: int | None = None) -> Worker[str] | None:
        """Save if there are changes (in a worker); returns the worker, or None when nothing to do."""
        note = self.note
        if note is None:
            return None
        if not self.dirty:
            if close:
                self.post_message(self.Closed(note.id))
            return None
        title, body = self.title_text or note.title, self.body_text
        based_on = note.updated_time if base is None else base

        def write() -> str:
            patch = NotePatch(title=title if title != note.title else None, body=body)
            try:
                saved = self._store.update_note(note.id, patch, actor=ACTOR_USER, base_updated_time=based_on)
            except ConflictError as exc:
                self.post_message(self._Outcome(CONFLICT, None, exc.current_updated_time, close))
                return CONFLICT
            self.post_message(self._Outcome(SAVED, saved, None, close))
            return SAVED

        return self.run_worker(
            write, thread=True, group="editor-save", exit_on_error=False, description="saving the note"
        )

    async def flush(self) -> str:
        """Save now and wait (before quitting or opening another note)."""
        worker = self.save()
        if worker is None:
            return UNCHANGED
        await worker.wait()
        return worker.result or CONFLICT

    @on(_Outcome)
    def _outcome(self, message: _Outcome) -> None:
        if message.outcome == SAVED and message.note is not None:
            self._forget_file()
            self.note = message.note
            self._stale = False
            self._update_dirty()
            self.post_message(self.Saved(message.note))
            if message.close:
                self.post_message(self.Closed(message.note.id))
            return
        self._stale = True
        self._draw_header()
        current = message.current
        if self._kept_file is not None:
            self.notify(f"Not saved yet: the note changed meanwhile. Your text is also in {self._kept_file}")

        def answer(overwrite: bool | None) -> None:
            if overwrite:
                self.save(close=message.close, base=current)
            else:
                self.notify(
                    "Not saved: your text is still here. Copy what you need, or Esc twice to drop it."
                )

        question = "This note was changed elsewhere since you opened it. Overwrite it with your version?"
        self.app.push_screen(Confirm(question, yes="Overwrite"), answer)

    # Actions -------------------------------------------------------------------------------
    def action_save(self) -> None:
        if self.save() is None:
            self.notify("Nothing to save.")

    def action_close(self) -> None:
        self.save(close=True)

    def discard(self) -> None:
        """Drop unsaved changes and leave (after the person declined to overwrite)."""
        if self.note is not None:
            note_id = self.note.id
            self.note = None
            self.dirty = False
            self.post_message(self.Closed(note_id))

    def action_external(self) -> None:
        if self.note is not None:
            self.edit_externally(self.note, self.body_text, self.title_text or self.note.title)

    def edit_externally(self, note: Note, text: str, title: str) -> None:
        """Suspend the app, run ``$EDITOR`` on ``text``, then save the result as the person.

        The save is based on ``note``'s ``updated_time``; if the note changed meanwhile it is
        refused, the text stays in the editor and in the temporary file, and the person is asked.
        """
        try:
            with self.app.suspend():
                result: ExternalEdit = edit_text(text, title=title)
        except Exception as exc:  # no terminal to hand over, an editor that failed: say so, lose nothing
            self.notify(f"Could not edit in $EDITOR: {exc}", severity="error")
            return
        self.note = note
        self._kept_file = result.path
        self.query_one("#editor-title", Input).value = title
        self.query_one("#editor-body", TextArea).load_text(result.text)
        self._update_dirty()
        if self.save() is None:
            self._forget_file()

    def _forget_file(self) -> None:
        path, self._kept_file = self._kept_file, None
        if path is not None:
            self.run_worker(
                lambda: path.unlink(missing_ok=True), thread=True, group="editor-file", exit_on_error=False,
                description="removing the temporary file",
            )  # fmt: skip

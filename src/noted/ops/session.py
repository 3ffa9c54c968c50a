"""The assistant's session on the open note: a working copy that a model turn's edits change,
saved once.

The chat engine opens an ``EditorSession`` when a chat is about an open note and hands it to the
tools in ``ToolContext.editor``. The editor tools (``noted.tools.editor_tools``) change only the
working copy, so a turn's edits see each other. When the model's turn ends, the engine calls ``commit`` once:

    results = [await registry.call(c.name, c.arguments, ctx) for c in turn.calls]
    outcome = session.commit(store, ctx.actor)      # one write, on the note as it is now
    results = [amend(outcome, r) for r in results]  # tools.editor: on a conflict every edit says so
    # send results to the model; show outcome.message to the person

If the note was saved by anyone else after the session loaded it (the person in the app's editor,
another window, a file changed in a Markdown folder, a ``git pull``), the edits are merged with that
change line by line, as an approved ``update_note`` is (``noted.ops.conflicts.carried``). When both
changed the same lines, nothing is written, the working copy is reloaded from the note as it is
now, and ``amend`` turns every successful edit result of the turn into a ``conflict`` result
telling the model to read the note again and redo its edits.
"""

from __future__ import annotations

import enum
import threading
from dataclasses import dataclass

from noted.errors import ConflictError, NotedError, NotFoundError
from noted.models import Note, NotePatch
from noted.ops.conflicts import carried
from noted.store.protocol import Store


class CommitStatus(enum.StrEnum):
    """What ``EditorSession.commit`` did."""

    SAVED = "saved"
    """The working copy was written, once, with the session's actor."""
    UNCHANGED = "unchanged"
    """There was nothing to write (no edits, or edits that cancelled out)."""
    CONFLICT = "conflict"
    """The note changed (or was deleted or trashed) since it was loaded; nothing was written."""
    FAILED = "failed"
    """The store refused the write (e.g. a body too large); nothing was written."""


@dataclass(frozen=True, slots=True)
class CommitResult:
    """The outcome of saving one turn's edits, for the chat engine.

    Attributes:
        status: What happened.
        edits: How many edits the turn made to the working copy.
        message: One sentence for the person and the model.
        note: The note as saved (``SAVED``), as found now (``CONFLICT``), else None.
        to_model: ``message`` as the model is told it, when that differs (what to do next).
        before: The note as it was just before the write (``SAVED``): what an undo puts back.
    """

    status: CommitStatus
    edits: int
    message: str
    note: Note | None = None
    to_model: str = ""
    before: Note | None = None

    @property
    def written(self) -> bool:
        return self.status is CommitStatus.SAVED

    @property
    def lost(self) -> bool:
        """True when the turn's edits were not written (conflict or failure)."""
        return self.status in (CommitStatus.CONFLICT, CommitStatus.FAILED)


class EditorSession:
    """The working copy of the note open beside a chat, and the selection in it.

    Args:
        note_id: The open note.
        title: Its title, shown to the model.
        body: The body as loaded; the working copy starts as this.
        base_updated_time: The note's ``updated_time`` when ``body`` was loaded.
        selection: ``(start, end)`` offsets of the selected text in ``body``, if any; an empty
            range counts as no selection.
    """

    def __init__(
        self,
        note_id: str,
        title: str,
        body: str,
        base_updated_time: int,
        selection: tuple[int, int] | None = None,
        *,
        trashed: bool = False,
    ) -> None:
        self.note_id = note_id
        self.trashed = trashed
        """The note was in the trash when loaded: its edits are refused (``in_trash``), not asked about."""
        self.title = title
        self.original = body
        self.text = body
        self.base_updated_time = base_updated_time
        self.selection: tuple[int, int] | None = None
        self.edits: list[str] = []
        """What each pending edit did, in order (for an approval prompt or a log)."""
        self.lock = threading.RLock()
        self.clashed = False
        """``catch_up`` met the person's save changing the lines the edits change."""
        self.select(selection)

    @classmethod
    def open(cls, store: Store, note_id: str, *, selection: tuple[int, int] | None = None) -> EditorSession:
        """A session on the note as it is in the store now."""
        note = store.get_note(note_id)
        return cls(note.id, note.title, note.body, note.updated_time, selection, trashed=note.is_trashed)

    @property
    def in_trash(self) -> str | None:
        """Why the edits cannot be saved when the note was in the trash from the start, else None:
        a note is restored before it is changed, as ``noted.ops.resolve.refuse_trashed`` says."""
        if not self.trashed:
            return None
        return f"Not saved: the note is in the trash (restore it with `noted restore {self.note_id[:8]}`)."

    @property
    def dirty(self) -> bool:
        """True when the working copy differs from the note as loaded."""
        return self.text != self.original

    @property
    def selected_text(self) -> str | None:
        if self.selection is None:
            return None
        start, end = self.selection
        return self.text[start:end]

    def select(self, selection: tuple[int, int] | None) -> None:
        """Set the selection in the working copy (the UI calls this as the person selects).

        Raises:
            ValueError: offsets outside the working copy.
        """
        with self.lock:
            if selection is not None:
                start, end = selection
                if not 0 <= start <= end <= len(self.text):
                    raise ValueError(
                        f"selection {selection} is outside a text of {len(self.text)} characters"
                    )
                if start == end:
                    selection = None
            self.selection = selection

    def replace_range(self, start: int, end: int, new: str, what: str) -> None:
        """Replace ``text[start:end]`` with ``new`` in the working copy, keeping the selection on
        the same text (an edit that cuts into the selection clears it)."""
        with self.lock:
            self.text = self.text[:start] + new + self.text[end:]
            self.edits.append(what)
            if self.selection is None:
                return
            sel_start, sel_end = self.selection
            delta = len(new) - (end - start)
            if end <= sel_start:
                self.selection = (sel_start + delta, sel_end + delta)
            elif start >= sel_end:
                pass
            elif start == sel_start and end == sel_end:
                self.selection = (start, start + len(new)) if new else None
            else:
                self.selection = None

    def commit(self, store: Store, actor: str) -> CommitResult:
        """Write the working copy once, based on ``base_updated_time``; see the module docstring."""
        with self.lock:
            count = len(self.edits)
            self.edits = []
            if not self.dirty:
                return CommitResult(CommitStatus.UNCHANGED, count, "There was nothing to save.")
            try:
                current = store.get_note(self.note_id)
                if current.is_trashed:
                    why = self.in_trash  # in the trash from the start, or put there since
                    self._reset(current)
                    if why is not None:
                        return CommitResult(CommitStatus.FAILED, count, why)
                    person, model = _gone(count, "moved to the trash")
                    return CommitResult(CommitStatus.CONFLICT, count, person, current, model)
                loaded = self.base_updated_time
                current, note = self._save(store, current, actor)
            except ConflictError:
                now = store.get_note(self.note_id)
                person, model = _changed(count, by_person=self.clashed)
                self._reset(now)
                return CommitResult(CommitStatus.CONFLICT, count, person, now, model)
            except NotFoundError:
                self.text = self.original
                self.selection = None
                person, model = _gone(count, "deleted")
                return CommitResult(CommitStatus.CONFLICT, count, person, to_model=model)
            except NotedError as exc:
                self.text = self.original
                self.selection = None
                message = f"None of the {_n_edits(count)} of this turn was saved: {exc}."
                return CommitResult(CommitStatus.FAILED, count, message)
            self.original = self.text = note.body
            self.base_updated_time = note.updated_time
            self.title = note.title
            saved = f"Saved {_n_edits(count)} to the note."
            if current.updated_time != loaded:
                saved = f"Saved {_n_edits(count)} to the note, beside the change made to it meanwhile."
            return CommitResult(CommitStatus.SAVED, count, saved, note, before=current)

    def _save(self, store: Store, current: Note, actor: str) -> tuple[Note, Note]:
        """Write the working copy on ``current``, the note as it is now: (the note written over,
        the note saved). A change made since the session loaded it is merged with the edits
        (``_rebase``); one the store meets only as it writes (a file changed in a Markdown folder
        before noted saw it) is read and merged once more.

        Raises:
            ConflictError: the change and the edits touch the same lines (nothing written).
        """
        tries = 2
        while True:
            tries -= 1
            self._rebase(current)  # a clash keeps the stale base: the store refuses it
            try:
                patch = NotePatch(body=self.text)
                saved = store.update_note(
                    self.note_id, patch, actor=actor, base_updated_time=self.base_updated_time
                )
            except ConflictError:
                current = store.get_note(self.note_id)
                if not tries or current.is_trashed:
                    raise
                continue
            return current, saved

    def catch_up(self, store: Store) -> bool:
        """Carry the pending edits over onto the note as it is now, when it was saved since the
        session loaded it and the two merge line by line; True if they did (``commit`` then writes
        them on the new version), False if nothing changed or they clash (``commit`` refuses).

        For a change the person made themselves: the app saves the editor's text before the
        edits they accepted are written, and the edits must land on that text, not meet it as a
        conflict."""
        with self.lock:
            try:
                now = store.get_note(self.note_id)
            except NotFoundError:  # deleted meanwhile: ``commit`` says so
                return False
            if now.is_trashed:
                return False
            merged = self._rebase(now)
            self.clashed = merged is False
            return merged is True

    def _rebase(self, now: Note) -> bool | None:
        """Carry the pending edits onto ``now`` when it was saved since the session loaded the
        note and the two merge line by line (True); False when they clash (``commit`` then
        refuses, keeping ``now``), None when the note has not changed."""
        if now.updated_time == self.base_updated_time:
            return None
        merged = carried(self.original, self.base_updated_time, now, self.text)
        if merged is None:
            return False
        self.title, self.original, self.text = now.title, now.body, merged
        self.base_updated_time = now.updated_time
        self.selection = None
        return True

    def discard(self) -> None:
        """Drop the pending edits (the person declined them, or the turn was cancelled)."""
        with self.lock:
            self.text = self.original
            self.edits = []
            self.selection = None

    def _reset(self, note: Note) -> None:
        self.clashed = False
        self.trashed = note.is_trashed
        self.title = note.title
        self.original = self.text = note.body
        self.base_updated_time = note.updated_time
        self.selection = None


def _n_edits(count: int) -> str:
    return "1 edit" if count == 1 else f"{count} edits"


def _changed(count: int, *, by_person: bool) -> tuple[str, str]:
    """Why the edits were not saved, as the person and as the model are told it."""
    edits = _n_edits(count)
    redo = "Call editor_read_note to see it as it is now, then redo the edits."
    if by_person:
        return (
            f"Not saved: you changed the same lines in the editor while this change waited, so none "
            f"of its {edits} was written. Ask again to have it made on your text.",
            f"Not saved: the person changed the same lines in the editor while your edits waited, so "
            f"none of the {edits} of this turn was written. {redo}",
        )
    return (
        f"Not saved: the note was changed by someone else while the assistant was editing it, so none "
        f"of the {edits} of this turn was written.",
        f"Not saved: the note was changed by someone else while you were editing it, so none of the "
        f"{edits} of this turn was written. {redo}",
    )


def _gone(count: int, how: str) -> tuple[str, str]:
    """Why the edits were not saved, the note being ``how`` (deleted, moved to the trash), as the
    person and as the model are told it."""
    lost = f"so none of the {_n_edits(count)} of this turn was written."
    then = "It cannot be edited any more." if how == "deleted" else "Only the person can restore it."
    return (
        f"Not saved: the note was {how} while the assistant was editing it, {lost}",
        f"Not saved: the note was {how} while you were editing it, {lost} {then}",
    )

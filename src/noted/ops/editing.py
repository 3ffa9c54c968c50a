"""Editing a note: saving the person's text, and the assistant's session on the open note.

``save_text`` is the one save of an edited title and body, for the app's editor and ``noted
edit``: one write based on the version the text was edited from; a note changed or deleted
meanwhile is reported, not overwritten, and the caller settles it (``noted.ops.conflicts``).
``SaveLine`` puts the saves of one editor in a line, so two in flight at once (Ctrl+S while the
editor makes way for another note) neither meet each other as a conflict nor keep two copies.

``EditorSession`` is a working copy that a model turn's edits change, saved once.

The chat engine opens an ``EditorSession`` when a chat is about an open note and hands it to the
tools in ``ToolContext.editor``. The editor tools (``noted.tools.editor_tools``) change only the working copy,
so a turn's edits see each other. When the model's turn ends, the engine calls ``commit`` once:

    results = [await registry.call(c.name, c.arguments, ctx) for c in turn.calls]
    outcome = session.commit(store, ctx.actor)      # one write, based on the loaded updated_time
    results = [amend(outcome, r) for r in results]  # tools.editor: on a conflict every edit says so
    # send results to the model; show outcome.message to the person

If the note was saved by anyone else after the session loaded it, nothing is written, the working
copy is reloaded from the note as it is now, and ``amend`` turns every successful edit result of
the turn into a ``conflict`` result telling the model to read the note again and redo its edits.
"""

from __future__ import annotations

import enum
import itertools
import threading
from dataclasses import dataclass

from noted.errors import ConflictError, NotedError, NotFoundError
from noted.models import Note, NotePatch
from noted.ops.conflicts import Conflict, keep_copy
from noted.store.protocol import Store


@dataclass(frozen=True, slots=True)
class Saved:
    """What ``save_text`` did.

    Attributes:
        note: The note as saved; None when it changed or was deleted for good since ``base`` was
            read, so nothing was written and the caller settles the conflict.
    """

    note: Note | None

    @property
    def conflict(self) -> bool:
        return self.note is None


def save_text(
    store: Store,
    base: Note,
    title: str | None,
    body: str,
    *,
    actor: str,
    session: str | None = None,
) -> Saved:
    """Save an edited title (None or ``base.title``: unchanged) and body of ``base``, in one write
    based on ``base.updated_time``; saves passing the same ``session`` share a revision in a burst.

    Raises:
        NotedError: the store refused the text (too large, a disk fault); nothing was written.
    """
    patch = NotePatch(title=title if title is not None and title != base.title else None, body=body)
    try:
        note = store.update_note(
            base.id, patch, actor=actor, base_updated_time=base.updated_time, session=session
        )
    except (ConflictError, NotFoundError):  # changed, or deleted for good, meanwhile
        return Saved(None)
    return Saved(note)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one save of the editor's text came to (exactly one field is set).

    Attributes:
        saved: The note holding the text (written now, or already holding it).
        conflict: The note changed elsewhere: nothing was written, the person chooses.
        kept: The note was deleted for good: the text was saved as this conflict copy.
    """

    saved: Note | None = None
    conflict: Conflict | None = None
    kept: Note | None = None


class SaveLine:
    """The saves of one editor, carried out one at a time, in the order they were asked for.

    The editor saves in a thread, and two saves can be in flight at once: Ctrl+S while the editor
    makes way for another note, or a second Ctrl+S on a slow machine. Both were read from the
    same version. Run as they come, the second meets the first's write as a change made
    elsewhere, and on a note deleted meanwhile each keeps its own copy. Here a save starts from
    what the save before it wrote (or kept), and a save overtaken by a later one (whose text is
    newer) writes nothing and reports what the later one did.

    ``ticket`` is taken on the event loop as the save is asked for; ``save`` runs in the worker.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        """Held by the save being written (in its worker)."""
        self._issued = itertools.count(1)
        """Tickets, taken on the event loop: never behind ``_lock``, which a slow write holds."""
        self._done = 0
        self._last: Outcome | None = None
        self._after: dict[tuple[str, int], Note] = {}
        """(note id, updated_time) of a version this line saved over → the version it wrote."""
        self._kept: dict[tuple[str, int], tuple[str, str, Note]] = {}
        """The same, for a note found deleted: the title and text kept, and the copy."""

    def ticket(self) -> int:
        """The number of a save being asked for now (call it before starting the save's worker)."""
        return next(self._issued)  # one C call: atomic, so no lock that a write could hold

    def save(
        self, store: Store, ticket: int, base: Note, title: str, body: str, *, actor: str, session: str
    ) -> Outcome:
        """Save ``title``/``body``, edited from ``base``, unless a later save already wrote newer text.

        Raises:
            NotedError: the store refused the text (too large, a disk fault); nothing was written.
        """
        with self._lock:
            if ticket < self._done and self._last is not None:
                return self._last  # overtaken: a later save, with newer text, has been written
            outcome = self._save(store, base, title, body, actor=actor, session=session)
            self._done, self._last = ticket, outcome
            return outcome

    def settle(self, store: Store, base: Note, title: str, body: str, *, actor: str) -> Outcome:
        """A save of ``base`` was refused: read the other side, or keep a copy if the note is gone."""
        with self._lock:
            return self._settle(store, self._latest(base), title, body, actor=actor)

    def _latest(self, base: Note) -> Note:
        while (next_ := self._after.get((base.id, base.updated_time))) is not None:
            base = next_
        return base

    def _save(self, store: Store, base: Note, title: str, body: str, *, actor: str, session: str) -> Outcome:
        latest = self._latest(base)
        if latest is not base and (latest.title, latest.body) == (title, body):
            return Outcome(saved=latest)  # a save before this one wrote this very text
        kept = self._kept.get((latest.id, latest.updated_time))
        if kept is not None and kept[:2] == (title, body):
            return Outcome(kept=kept[2])  # ... or kept it as a copy: one copy, not two
        saved = save_text(store, latest, title, body, actor=actor, session=session)
        if saved.note is not None:
            self._after[(latest.id, latest.updated_time)] = saved.note
            return Outcome(saved=saved.note)
        return self._settle(store, latest, title, body, actor=actor)

    def _settle(self, store: Store, base: Note, title: str, body: str, *, actor: str) -> Outcome:
        try:
            conflict = Conflict.read(store, base, title, body)
        except NotFoundError:
            copy = keep_copy(store, base, title, body, actor=actor, gone=True)
            self._kept[(base.id, base.updated_time)] = (title, body, copy)
            return Outcome(kept=copy)
        if conflict.settled:
            return Outcome(saved=conflict.theirs)
        return Outcome(conflict=conflict)


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
    """

    status: CommitStatus
    edits: int
    message: str
    note: Note | None = None

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
    ) -> None:
        self.note_id = note_id
        self.title = title
        self.original = body
        self.text = body
        self.base_updated_time = base_updated_time
        self.selection: tuple[int, int] | None = None
        self.edits: list[str] = []
        """What each pending edit did, in order (for an approval prompt or a log)."""
        self.lock = threading.RLock()
        self.select(selection)

    @classmethod
    def open(cls, store: Store, note_id: str, *, selection: tuple[int, int] | None = None) -> EditorSession:
        """A session on the note as it is in the store now."""
        note = store.get_note(note_id)
        return cls(note.id, note.title, note.body, note.updated_time, selection)

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
                    self._reset(current)
                    return CommitResult(
                        CommitStatus.CONFLICT, count, _gone(count, "moved to the trash"), current
                    )
                note = store.update_note(
                    self.note_id,
                    NotePatch(body=self.text),
                    actor=actor,
                    base_updated_time=self.base_updated_time,
                )
            except ConflictError:
                now = store.get_note(self.note_id)
                self._reset(now)
                return CommitResult(CommitStatus.CONFLICT, count, _changed(count), now)
            except NotFoundError:
                self.text = self.original
                self.selection = None
                return CommitResult(CommitStatus.CONFLICT, count, _gone(count, "deleted"))
            except NotedError as exc:
                self.text = self.original
                self.selection = None
                message = f"None of the {_n_edits(count)} of this turn was saved: {exc}."
                return CommitResult(CommitStatus.FAILED, count, message)
            self.original = self.text = note.body
            self.base_updated_time = note.updated_time
            self.title = note.title
            return CommitResult(CommitStatus.SAVED, count, f"Saved {_n_edits(count)} to the note.", note)

    def discard(self) -> None:
        """Drop the pending edits (the person declined them, or the turn was cancelled)."""
        with self.lock:
            self.text = self.original
            self.edits = []
            self.selection = None

    def _reset(self, note: Note) -> None:
        self.title = note.title
        self.original = self.text = note.body
        self.base_updated_time = note.updated_time
        self.selection = None


def _n_edits(count: int) -> str:
    return "1 edit" if count == 1 else f"{count} edits"


def _changed(count: int) -> str:
    return (
        f"Not saved: the note was changed by someone else while you were editing it, so none of the "
        f"{_n_edits(count)} of this turn was written. Call editor_read_note to see it as it is now, "
        "then redo the edits."
    )


def _gone(count: int, how: str) -> str:
    return f"Not saved: the note was {how} while you were editing it, so none of the {_n_edits(count)} was written."

"""Editing a note in the person's own editor, and saving the person's edited text of a note.

``edit_text`` writes the text to a file of the profile's ``editing/``, runs ``$VISUAL``/``$EDITOR``
(else ``vi``) on it and reads it back, for the app's editor (suspended meanwhile) and ``noted edit``;
the file is kept until the text is safely saved, so an edit that cannot be saved is never lost. Its
name starts with noted's process id: the file of a noted killed with the editor open (the note's
text, and what the person typed) is moved to ``rescued/`` at the next start (``rescue_edits``),
never left in the system's shared temporary folder.

``save_text`` is the one save of an edited title and body, for the app's editor and ``noted
edit``: one write based on the version the text was edited from; a note changed, trashed or deleted
meanwhile is reported, not overwritten, and the caller settles it (``noted.ops.conflicts``).
``SaveLine`` puts the saves of one editor in a line, so two in flight at once (Ctrl+S while the
editor makes way for another note) neither meet each other as a conflict nor keep two copies.

The assistant's edits of the open note are saved by ``noted.ops.session.EditorSession``.
"""

from __future__ import annotations

import itertools
import os
import re
import secrets
import shlex
import subprocess
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from noted.errors import ConflictError, InvalidInputError, NotedError, NotFoundError
from noted.models import Note, NotePatch
from noted.ops.conflicts import Conflict, keep_copy
from noted.ops.notes import leaves_as_is
from noted.store.protocol import Store
from noted.tempfiles import process_gone

EDIT_DIR = "editing"
"""The profile's folder of the files ``$EDITOR`` is editing (``PID-XXXXXXXX-TITLE.md``)."""
RESCUE_DIR = "rescued"
"""The profile's folder of text kept when noted could not save it: an app ended with the editor's
text unsaved (``noted.ui.crash.rescue``), an edit in ``$EDITOR`` whose noted was killed."""
_EDIT_NAME = re.compile(r"(\d+)-[0-9a-f]{8}-[^/]*\.md")


def as_text_file(body: str) -> str:
    """``body`` as a text file holds it, ending in a newline: what ``$EDITOR`` is given, and what
    ``noted edit --append`` adds, so a line an editor or a script appends starts a line of its own."""
    return body if not body or body.endswith("\n") else body + "\n"


def editor_command(environ: Mapping[str, str] | None = None) -> list[str]:
    """The person's editor as an argument list: ``$VISUAL``, else ``$EDITOR``, else ``vi``, as git
    and most terminal tools choose (``"code -w"`` becomes two arguments)."""
    env = os.environ if environ is None else environ
    raw = env.get("VISUAL") or env.get("EDITOR") or "vi"
    try:
        command = shlex.split(raw)
    except ValueError as exc:
        raise InvalidInputError(f"cannot understand the editor command {raw!r}: {exc}") from exc
    if not command:
        raise InvalidInputError("$EDITOR is set but empty", hint="export EDITOR=vim, or unset it")
    return command


def run_editor(path: Path, environ: Mapping[str, str] | None = None) -> int:
    """Run the editor on ``path`` in the foreground and return its exit status."""
    argv = [*editor_command(environ), str(path)]
    try:
        return subprocess.call(argv)
    except OSError as exc:
        raise InvalidInputError(
            f"cannot start the editor {argv[0]!r}: {exc.strerror or exc}",
            hint="set $VISUAL or $EDITOR to an installed editor",
        ) from exc


@dataclass(frozen=True, slots=True)
class ExternalEdit:
    """What came back from the editor: the text and the file it is kept in."""

    text: str
    path: Path
    changed: bool


def edit_text(
    text: str, *, title: str, profile_root: Path, run: Callable[[Path], int] = run_editor
) -> ExternalEdit:
    """Write ``text`` to a Markdown file in the profile's ``editing/``, let ``run`` edit it, and
    read it back as written.

    The file is left in place (the caller removes it once the text is safely saved), so an edit
    that cannot be saved is never lost; an editor that could not start leaves nothing behind.

    Raises:
        InvalidInputError: the editor could not be run, or what it wrote is not UTF-8.
        NotedError: the editor exited with an error (a refusal: exit 1 on the command line).
        After it has run, the file is kept, in ``rescued/`` (``set_aside``), and named.
    """
    stem = "".join(c if c.isalnum() else "-" for c in title)[:40].strip("-") or "note"
    folder = profile_root / EDIT_DIR
    folder.mkdir(mode=0o700, exist_ok=True)
    path = folder / f"{os.getpid()}-{secrets.token_hex(4)}-{stem}.md"
    handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    written = as_text_file(text)
    with os.fdopen(handle, "w", encoding="utf-8", newline="") as file:
        file.write(written)
    try:
        status = run(path)
    except InvalidInputError:  # the editor did not start: the file holds only what was written
        path.unlink(missing_ok=True)
        raise
    if status != 0:  # the editor (or the person, vim's :cq) refused the edit: not bad input
        raise NotedError(
            f"the editor exited with status {status}; nothing was saved and the text is in {set_aside(path)}"
        )
    try:
        edited = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInputError(
            f"cannot read the edited file: {exc}; nothing was saved and the file is {set_aside(path)}"
        ) from exc
    if edited == written:  # untouched: the final newline given to the editor is not a change
        return ExternalEdit(text, path, False)
    return ExternalEdit(edited, path, True)


def rescue_edits(profile_root: Path) -> list[Path]:
    """Move the files of ``$EDITOR`` runs whose noted is gone (killed with the editor open) from
    ``editing/`` to ``rescued/``, where the person finds them; the new paths (best effort: a file
    that cannot be moved stays, and is tried again at the next start)."""
    folder = profile_root / EDIT_DIR
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    moved = []
    for name in names:
        match = _EDIT_NAME.fullmatch(name)
        if match is not None and process_gone(int(match[1])):
            target = set_aside(folder / name)
            if target.parent.name == RESCUE_DIR:
                moved.append(target)
    return moved


def set_aside(path: Path) -> Path:
    """Move the file of an edit that was not saved from ``editing/`` to ``rescued/``, and return
    where it is now (where it was, if it cannot be moved).

    Kept in ``editing/``, the file of a noted that said where it was and ended was moved by the
    next start, which told the person noted had been stopped with the editor open.
    """
    target = path.parent.parent / RESCUE_DIR / f"edited-{path.name}"
    try:
        target.parent.mkdir(exist_ok=True)
        os.replace(path, target)
    except OSError:
        return path
    return target


@dataclass(frozen=True, slots=True)
class Saved:
    """What ``save_text`` did.

    Attributes:
        note: The note as saved; None when it changed, went to the trash or was deleted for good
            since ``base`` was read, so nothing was written and the caller settles the conflict.
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

    A text that leaves the note as it is writes nothing (no change in the feed, no revision).
    A note moved to the trash since ``base`` was read is a change made meanwhile like any other
    (a trash leaves ``updated_time`` as it was, so the store would take the write): nothing is
    written, and the person is shown the conflict, not told "saved" of a note in the trash. A
    note that was in the trash already when it was opened is saved there.

    Raises:
        NotedError: the store refused the text (too large, a disk fault); nothing was written.
    """
    patch = NotePatch(title=title if title is not None and title != base.title else None, body=body)
    try:
        with store.batch():  # the look and the write as one, where the store has transactions
            # Its times and place only: the body, when the note is as ``base`` was, is ``base``'s
            # (a 39 MB note's save read it whole twice, the store reading it again to write).
            found = store.note_metas([base.id])
            if not found:
                raise NotFoundError(f'no note with id "{base.id}"')
            if not base.is_trashed and found[0].is_trashed:
                return Saved(None)
            if found[0].updated_time == base.updated_time and leaves_as_is(base, patch):
                return Saved(store.get_note(base.id))  # a save that changes nothing writes nothing
            try:
                note = store.update_note(
                    base.id, patch, actor=actor, base_updated_time=base.updated_time, session=session
                )
            except ConflictError:  # inside: the batch keeps what the store caught up with (a file
                return Saved(None)  # deleted outside: its note trashed), as the conflict shows it
    except NotFoundError:  # deleted for good meanwhile
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

"""When a save joins the last revision of a note instead of adding one, in both stores.

A revision is the state a note was left in by one save. Only the saves of one editing session
of one process (the app's editor saving again with Ctrl+S) may update the revision that session
wrote last, and only within ``BURST_MS`` of it: ``SessionBursts`` remembers, in memory, which revision each session wrote. Every other save
(another command, another process, another actor, either side of a conflict) adds a row, so every
version anyone saved stays restorable (until the documented thinning of old revisions,
``noted.store.history.thinning``) and "undo what the assistant did" always has a state to go back to.

A save may carry a label saying what it was (``labelled``), for the saves whose actor alone does
not tell them apart: both sides of a settled conflict are the person's (``user``), and so is a
restore.

How revisions are stored, read and thinned, for both stores, is ``noted.store.history``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import threading
from collections.abc import Iterator
from contextvars import ContextVar

from noted.store.rules import MAX_TITLE

BURST_MS = 10 * 60 * 1000
COPY = "conflict copy"
"""The label of a conflict copy's first revision."""

_LABEL: ContextVar[str] = ContextVar("revision_label", default="")


@contextlib.contextmanager
def labelled(label: str) -> Iterator[None]:
    """Label the revisions that the saves made inside (in this thread or task) add, in every store
    (``Revision.label``); the actor stays the one each save names."""
    token = _LABEL.set(label)
    try:
        yield
    finally:
        _LABEL.reset(token)


def current_label() -> str:
    """The label of the saves made now (``labelled``), or ""."""
    return _LABEL.get()


def joins_last(last: tuple[str, int] | None, actor: str, now: int, *, window: int = BURST_MS) -> bool:
    """True when a save by ``actor`` at ``now`` updates the note's last revision instead of adding one.

    Args:
        last: the actor and time of the note's newest revision, or None when it has none.
        actor: who saves now.
        now: when (ms).
        window: how long a burst lasts (ms).
    """
    if last is None:
        return False
    last_actor, last_time = last
    return last_actor == actor and now - last_time < window


class SessionBursts:
    """Which revision each editing session of this process wrote last, per note.

    It lives in memory on purpose: a session never outlives its process, so a save from another
    process, or after a restart, can never join an earlier revision.
    """

    def __init__(self) -> None:
        self._last: dict[str, tuple[str, int, int]] = {}
        """note id → (session, revision id, revision time): the time tells a row apart from one that
        reused the id after a rolled-back transaction."""
        self._lock = threading.Lock()

    def joins(
        self, note_id: str, session: str | None, last: tuple[int, str, int] | None, actor: str, now: int,
        *, window: int = BURST_MS,
    ) -> bool:  # fmt: skip
        """True when a save by ``session`` updates ``last`` (the note's newest revision: id, actor,
        time) instead of adding one: the session wrote ``last`` itself, as ``actor``, within ``window``."""
        if session is None or last is None:
            return False
        with self._lock:
            mine = self._last.get(note_id)
        if mine != (session, last[0], last[2]):
            return False
        return joins_last((last[1], last[2]), actor, now, window=window)

    def wrote(self, note_id: str, session: str | None, revision_id: int, time: int) -> None:
        """Remember that ``session`` wrote (or updated) revision ``revision_id`` of ``note_id`` at ``time``."""
        with self._lock:
            if session is None:
                self._last.pop(note_id, None)
            else:
                self._last[note_id] = (session, revision_id, time)


def copy_title(title: str, when: int) -> str:
    """The title of a conflict copy of a note titled ``title``, made at ``when`` (ms)."""
    stamp = dt.datetime.fromtimestamp(when / 1000).strftime("%Y-%m-%d %H:%M")
    return f"{copy_prefix(title)}{stamp})"


def copy_prefix(title: str) -> str:
    """What the title of every conflict copy of ``title`` starts with: the title, cut short (with
    "…") where the whole would be longer than a title may be (``MAX_TITLE``)."""
    room = MAX_TITLE - len(" (conflict copy 2000-01-01 00:00)")
    short = title if len(title) <= room else title[: room - 1].rstrip() + "…"
    return f"{short} (conflict copy "

"""Messages that cross the whole app; widget-specific ones live on their widget.

Any part of the UI (the chat pane, the settings screen…) may post these to the app:
``self.post_message(StatusPart("tokens", "1,204 tokens"))`` from a widget, or
``app.post_message(...)`` from a worker thread (``post_message`` is thread-safe).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

from noted.models import Change, ItemType

if TYPE_CHECKING:  # the indexer (and numpy) load only when indexing starts
    from textual.app import App

    from noted.indexer.service import IndexStatus


class StoreChanged(Message):
    """The change feed moved: notes, notebooks or tags were written by someone (this app included).

    Fast bursts coalesce: a pending ``StoreChanged`` is merged into the next one, so a bulk
    import repaints once rather than a thousand times.
    """

    def __init__(self, cursor: int = 0) -> None:
        super().__init__()
        self.note_ids: set[str] = set()
        self.folders = False
        self.tags = False
        self.tag_items = False
        """A tag itself changed (renamed, deleted), not only which notes it is on."""
        self.cursor = cursor

    @classmethod
    def of(cls, changes: tuple[Change, ...], cursor: int) -> StoreChanged:
        message = cls(cursor=cursor)
        for change in changes:
            if change.item_type in (ItemType.NOTE, ItemType.NOTE_TAG):
                message.note_ids.add(change.item_id)
                message.tags |= change.item_type is ItemType.NOTE_TAG
            elif change.item_type is ItemType.FOLDER:
                message.folders = True
            elif change.item_type is ItemType.TAG:
                message.tags = message.tag_items = True
        return message

    def can_replace(self, message: Message) -> bool:
        # Called on the queued message with the one behind it: fold ours into it, then drop ours.
        if not isinstance(message, StoreChanged):
            return False
        message.note_ids |= self.note_ids
        message.folders |= self.folders
        message.tags |= self.tags
        message.tag_items |= self.tag_items
        return True


@dataclass
class IndexerStatusChanged(Message):
    """The indexer reported progress or a change of state (coalesces: only the latest matters)."""

    status: IndexStatus

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, IndexerStatusChanged)


@dataclass
class StatusPart(Message):
    """Set one part of the status bar: ``"mcp"``, ``"tokens"`` or ``"model"`` (``""`` hides it)."""

    part: str
    text: str


LINE = "line:"
"""How a ``section`` names a body line (``line:41``, 0-based) rather than a heading's path: the
page scrolls to show that line (the Changes view opens a note at a change this way)."""


def at_line(line: int) -> str:
    """The ``section`` of body line ``line`` (0-based)."""
    return f"{LINE}{line}"


def line_of(section: str) -> int | None:
    """The body line a ``section`` names, if it names one (``at_line``)."""
    number = section.removeprefix(LINE)
    return int(number) if section.startswith(LINE) and number.isdigit() else None


Marks = tuple[str, re.Pattern[str]]
"""Words to mark in a note (``MarkdownPage.find_marks``), and what to call them: the query."""


class OpenNote(Message):
    """Show a note in the reader, optionally scrolled to a section path (``"1.2"``) or a body line
    (``at_line``).

    ``marks``: the words a search found the note by, named as the person typed them, to mark in
    the page as a find would (``noted.search.sections.marks``).

    ``answer``: the reader says when it has the note in place (or could not show it: it no longer
    exists, or another note was asked for first) with ``OpenAnswered(ticket)``, posted to the
    screen on top. A screen over the workspace waits for it to close, so the workspace comes back
    with the note in one frame rather than two.
    """

    def __init__(
        self,
        note_id: str,
        section: str | None = None,
        *,
        focus: bool = True,
        answer: bool = False,
        marks: Marks | None = None,
    ) -> None:
        super().__init__()
        self.note_id = note_id
        self.section = section
        self.focus = focus
        self.marks = marks
        self.ticket = next(_tickets) if answer else None
        """The number ``OpenAnswered`` carries (unique in the process), or None: no answer wanted."""


_tickets = itertools.count(1)


@dataclass
class OpenAnswered(Message):
    """The reader has answered the ``OpenNote`` numbered ``ticket`` (see ``OpenNote``)."""

    ticket: int

    @classmethod
    def send(cls, app: App[Any], ticket: int | None) -> None:
        """Post the answer to ``ticket`` (if there is one) to the screen on top, which waits for it."""
        screens = app.screen_stack  # empty only as the app shuts down
        if ticket is not None and screens:
            screens[-1].post_message(cls(ticket))


@dataclass
class ReadAhead(Message):
    """Read these notes in the background, so that opening one of them next paints at once (the
    search screen sends its highlighted result)."""

    note_ids: tuple[str, ...]


@dataclass
class WorkFailed(Message):
    """A worker failed; the app shows one line and logs the stack."""

    description: str
    error: BaseException


@dataclass
class SettingsChanged(Message):
    """Settings in effect changed (from the settings screen, ``noted config`` or a file edit)."""

    keys: tuple[str, ...]


@dataclass
class FirstNotesListed(Message):
    """The note list has its first notes; the next frame paints them (said once per app).

    The app logs the start-up figure from it (``noted.ui.speed.log_ready``); the UI benchmark
    times start-up to the end of the frame after it.
    """

    listed: float
    """``time.perf_counter()`` when the notes went into the list."""
    cpu: float
    """``time.process_time()`` then."""

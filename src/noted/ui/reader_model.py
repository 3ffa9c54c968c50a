"""``ReaderModel``: what the reader shows, decided without Textual (``NoteViewer`` only draws).

Opening a note races with everything else the person does: they move on before a read comes
back, a note changes while it is read ahead, the page is hidden (a narrow screen, the editor) so
a note cannot be drawn yet, or another screen (search) covers the workspace and waits for the note
before it closes. This model holds every piece of that state in one place and answers each event
with the effects to carry out, in order, as frozen values (``Fetch``, ``Draw``, ``Announce``…).
The viewer gives it a ``Surface`` with each event: whether the page has a width to draw at, and
whether another screen covers it. It never calls back: whoever waits for a note holds a ticket,
and ``Answer(ticket)`` says the wait is over.

State (``wanted`` is the note asked for last; each request has a number, and only the answer to
the last one counts)::

                  open, reload                      read: the note
    ┌─────────┐ ─────────────▶ ┌───────────┐ ────────────────────────┐
    │  empty  │                │  reading  │                         ▼
    └─────────┘ ◀───────────── └───────────┘    open: a copy    ┌───────────┐  no width   ┌──────────┐
       ▲  ▲      read: gone       ▲     │       read ahead ───▶ │  placed   │ ──────────▶ │  parked  │
       │  │                       └─────┘                       └───────────┘             └──────────┘
       │  │                 open, reload: a new request               │ a width               │ settle,
       │  │                 (the old one's ticket answered)           ▼                       │ a width
       │  │                                                     ┌───────────┐ ◀─────────────┘
       │  └──────────────────── clear, from any state ────────  │   drawn   │
       │                                                        └───────────┘
       │                                                              │ covered: Shown held
       │                                                              ▼
       │                                                        ┌───────────┐  uncovered
       └──────────────────────── clear ──────────────────────── │  unseen   │ ──────────▶ drawn (Announce)
                                                                └───────────┘

Every new request (``open``, ``reload``, ``clear``) first answers the ticket of the one before
it: that note will not be shown now. A read that answers an older request is dropped. Notes read
ahead (the list's neighbours, the search screen's highlighted result) are kept, sixteen at most,
under a *generation*: ``forget`` (something changed) drops them and bumps it, so a read begun
before the change is not kept.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar, Union

if TYPE_CHECKING:
    from noted.ui.data import NoteView

D = TypeVar("D")
"""How a note is drawn at the page's width (``markdown_page.Drawn``; opaque here)."""

KEPT = 16
"""Notes read ahead kept at most (the oldest go first)."""
GONE = "That note no longer exists."
EMPTY = "No note open — choose one in the list."


@dataclass(frozen=True, slots=True)
class Surface:
    """What the viewer tells the model with each event: the page's state on screen."""

    drawable: bool
    """The page has a width, so a note can be drawn now (it is hidden otherwise)."""
    covered: bool = False
    """Another screen is on top of the workspace."""


@dataclass(frozen=True, slots=True)
class Copy(Generic[D]):
    """A note as read, and drawn if the page had a width when it was read."""

    view: NoteView
    drawn: D | None = None


# Effects, in the order the viewer carries them out --------------------------------------------
@dataclass(frozen=True, slots=True)
class Fetch:
    """Read ``note_id`` (and draw it) in a thread; hand the result to ``ReaderModel.read``."""

    note_id: str
    section: str | None
    keep_scroll: bool
    generation: int
    request: int


@dataclass(frozen=True, slots=True)
class FetchAhead:
    """Read these notes in a thread; hand them to ``ReaderModel.read_ahead_done``."""

    note_ids: tuple[str, ...]
    generation: int


@dataclass(frozen=True, slots=True)
class Draw(Generic[D]):
    """Put this note on the page, at ``section`` or (``keep_scroll``) where the page was."""

    copy: Copy[D]
    section: str | None
    keep_scroll: bool


@dataclass(frozen=True, slots=True)
class Park:
    """A note waits for the page's width: call ``settle`` after the next layout."""


@dataclass(frozen=True, slots=True)
class ScrollAgain:
    """Scroll to ``section`` again after the next layout (the page's new size settles then)."""

    section: str


@dataclass(frozen=True, slots=True)
class Blank:
    """Show no note, only ``text``."""

    text: str


@dataclass(frozen=True, slots=True)
class Announce:
    """Say ``Shown`` once the frame with this note is painted."""

    note_id: str
    section: str | None


@dataclass(frozen=True, slots=True)
class Answer:
    """The request ``ticket`` waited for is answered: its note is in place, or will not be."""

    ticket: int


Effect = Union[Fetch, FetchAhead, Draw[D], Park, ScrollAgain, Blank, Announce, Answer]  # noqa: UP007 (generic alias)


@dataclass(frozen=True, slots=True)
class _Parked(Generic[D]):
    copy: Copy[D]
    section: str | None
    keep_scroll: bool


class ReaderModel(Generic[D]):
    """The reader's state: the note wanted, the request and generation counts, what was read
    ahead, a note parked until the page has a width, and a ``Shown`` held while covered."""

    def __init__(self) -> None:
        self.wanted: str | None = None
        """The note shown or being read (None: the reader is empty)."""
        self.view: NoteView | None = None
        """The note last put in place (or parked), whose actions the reader offers."""
        self.request = 0
        """Counts the requests to show a note: only the answer to the last one is shown."""
        self.generation = 0
        """Bumped by ``forget``: a read that started before a change is not kept."""
        self._ahead: OrderedDict[str, Copy[D]] = OrderedDict()
        self._parked: _Parked[D] | None = None
        self._waiting: int | None = None
        self._shown_later: Announce | None = None

    def has_ahead(self, note_id: str) -> bool:
        """Whether ``note_id`` has been read ahead (and nothing changed since)."""
        return note_id in self._ahead

    @property
    def parked(self) -> bool:
        """A note waits for the page's width."""
        return self._parked is not None

    # Events ------------------------------------------------------------------------------
    def open(
        self,
        note_id: str,
        section: str | None,
        surface: Surface,
        *,
        read_ahead: bool = False,
        ticket: int | None = None,
    ) -> list[Effect[D]]:
        """Show ``note_id`` at ``section``; ``read_ahead``: a copy read ahead will do (it is as
        fresh as the list, since ``forget`` drops them on every change). ``ticket`` is answered
        once the note is in place, or will not be."""
        self.wanted = note_id
        effects = self._next_request(ticket)
        copy = self._ahead.get(note_id) if read_ahead else None
        if copy is None:
            return [*effects, Fetch(note_id, section, False, self.generation, self.request)]
        return [*effects, *self._present(copy, section, False, surface), *self._answered()]

    def reload(self) -> list[Effect[D]]:
        """Read the open note again (it changed), keeping the reading position."""
        if self.wanted is None:
            return []
        effects = self._next_request(None)
        return [*effects, Fetch(self.wanted, None, True, self.generation, self.request)]

    def read(self, fetch: Fetch, copy: Copy[D] | None, surface: Surface) -> list[Effect[D]]:
        """The answer to ``fetch``: the note (``None``: it no longer exists)."""
        if fetch.request != self.request:
            return []  # the person has moved on (to another note, or to a section of this one)
        if copy is None:
            return self.clear(GONE)
        if fetch.generation == self.generation:
            self._keep(copy)
        return [*self._present(copy, fetch.section, fetch.keep_scroll, surface), *self._answered()]

    def read_ahead(self, note_ids: list[str]) -> list[Effect[D]]:
        """Read these notes ahead, so showing one of them next needs no thread."""
        wanted = tuple(note_id for note_id in note_ids if note_id not in self._ahead)
        return [FetchAhead(wanted, self.generation)] if wanted else []

    def read_ahead_done(self, copies: tuple[Copy[D], ...], generation: int) -> None:
        """Keep what was read ahead, unless something changed since the reading began."""
        if generation == self.generation:
            for copy in copies:
                self._keep(copy)

    def forget(self) -> None:
        """Drop what was read ahead (something changed: a note, a notebook's name, a tag)."""
        self._ahead.clear()
        self.generation += 1

    def settle(self, surface: Surface) -> list[Effect[D]]:
        """The page may have a width now: draw the parked note if it still is the one wanted."""
        parked = self._parked
        if parked is None or not surface.drawable:
            return []
        self._parked = None
        if parked.copy.view.note.id != self.wanted:
            return []
        effects = self._present(parked.copy, parked.section, parked.keep_scroll, surface)
        if parked.section is not None:
            effects.append(ScrollAgain(parked.section))
        return effects

    def uncovered(self) -> list[Effect[D]]:
        """The screen over the workspace closed: say ``Shown`` for a note drawn under it."""
        shown, self._shown_later = self._shown_later, None
        return [] if shown is None else [shown]

    def clear(self, text: str = EMPTY) -> list[Effect[D]]:
        """Show nothing (the note was deleted, or the list is empty)."""
        self.wanted = None
        effects = self._next_request(None)
        self.view = None
        self._parked = None
        self._shown_later = None
        return [*effects, Blank(text)]

    # Steps -------------------------------------------------------------------------------
    def _next_request(self, ticket: int | None) -> list[Effect[D]]:
        self.request += 1
        effects = self._answered()  # whoever waited on the last request: it will not be shown now
        self._waiting = ticket
        return effects

    def _answered(self) -> list[Effect[D]]:
        ticket, self._waiting = self._waiting, None
        return [] if ticket is None else [Answer(ticket)]

    def _present(
        self, copy: Copy[D], section: str | None, keep_scroll: bool, surface: Surface
    ) -> list[Effect[D]]:
        self.view = copy.view
        if not surface.drawable:
            # Hidden (a narrow screen shows the list first, or the editor was showing): drawn once
            # the page has a width, so the note appears whole in one frame, not its outline first.
            self._parked = _Parked(copy, section, keep_scroll)
            return [Park()]
        # Drawn now: an earlier note still parked must not follow it (it would put the outline
        # back at the top while the page scrolls to this section).
        self._parked = None
        shown = Announce(copy.view.note.id, section)
        if surface.covered:  # under the search screen, about to close: once this one is on top
            self._shown_later = shown
            return [Draw(copy, section, keep_scroll)]
        self._shown_later = None
        return [Draw(copy, section, keep_scroll), shown]

    def _keep(self, copy: Copy[D]) -> None:
        note_id = copy.view.note.id
        self._ahead[note_id] = copy
        self._ahead.move_to_end(note_id)
        while len(self._ahead) > KEPT:
            self._ahead.popitem(last=False)

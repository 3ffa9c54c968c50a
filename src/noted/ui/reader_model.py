"""``ReaderModel``: what the reader shows, decided without Textual (``NoteViewer`` draws it, and
``Workspace`` moves the editor, the focus and the layout as it says).

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

A note is asked for with ``ask`` (the list's cursor, search, a link): while the editor has the
reader's place it first has to save and make way (``MakeWay``, then ``made_way``; a conflict keeps
the editor, the ask is dropped and its focus goes to the editor, as does an ask of the note edited);
then the note is opened, the page focused (once the covering screen closes, if one covers it)
and, if that was asked, edited once it is shown (``shown``).

Every new request (``open``, ``reload``, ``clear``) first answers the ticket of the one before
it: that note will not be shown now. A read that answers an older request is dropped. Notes read
ahead (the list's neighbours, the search screen's highlighted result) are kept, sixteen at most,
under a *generation*: ``forget`` (something changed) drops them and bumps it, so a read begun
before the change is not kept.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar, Union

if TYPE_CHECKING:
    from noted.ui.data import NoteView

D = TypeVar("D")
"""How a note is drawn at the page's width (``page_drawing.Drawn``; opaque here)."""

KEPT = 16
"""Notes read ahead kept at most (the oldest go first)."""
GONE = "That note no longer exists."
EMPTY = "No note open — choose one in the list."


@dataclass(frozen=True, slots=True)
class Surface:
    """What the screen tells the model with each event: the reader's state on screen."""

    drawable: bool
    """The page has a width, so a note can be drawn now (it is hidden otherwise)."""
    covered: bool = False
    """Another screen is on top of the workspace."""
    editing: bool = False
    """The editor has the reader's place."""
    edited: str | None = None
    """The note in the editor (while ``editing``)."""
    focused: bool = False
    """The page has the focus."""


@dataclass(frozen=True, slots=True)
class Ask:
    """A note asked for (the list's cursor, search, a link): scrolled to ``section`` (``"1.2"``;
    None keeps the top, or the place in the note shown), with the focus moved to the page (and a
    narrow screen given to the reader), edited once shown, ``ticket`` answered (``OpenNote``)."""

    note_id: str
    section: str | None = None
    focus: bool = True
    edit: bool = False
    ticket: int | None = None


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
    """A note waits for the page's width: call ``settle`` once it has one (shown, or resized)."""


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


@dataclass(frozen=True, slots=True)
class MakeWay:
    """The editor saves and gives the reader back its place; then call ``ReaderModel.made_way``
    with whether it did (a conflict keeps it open: the person's text stays in front of them)."""


@dataclass(frozen=True, slots=True)
class Edit:
    """Open the editor on this note (``NoteViewer.EditRequested``)."""

    view: NoteView


@dataclass(frozen=True, slots=True)
class Reading:
    """On a narrow screen, give the reader the whole screen (``Workspace.reading``)."""


@dataclass(frozen=True, slots=True)
class Focus:
    """Give the page (the editor, while it has the reader's place) the focus; ``later``: after the
    next frame (the screen over the workspace has just closed), holding the keys typed meanwhile."""

    later: bool = False


Effect = Union[  # noqa: UP007 (generic alias)
    Fetch, FetchAhead, Draw[D], Park, Blank, Announce, Answer, MakeWay, Edit, Reading, Focus
]


@dataclass(frozen=True, slots=True)
class _Parked(Generic[D]):
    copy: Copy[D]
    section: str | None
    keep_scroll: bool


class ReaderModel(Generic[D]):
    """The reader's state: the note wanted, the request and generation counts, what was read
    ahead, a note parked until the page has a width, a ``Shown`` held while covered, an ask
    waiting for the editor to make way, and the focus and edit due once a note is shown."""

    def __init__(self, whole: Callable[[D], bool] = lambda drawn: True) -> None:
        self._whole = whole
        """Whether a drawing is of all of the note (a drawing of its opening is never kept)."""
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
        self._making_way: Ask | None = None
        self._edit_after_show: str | None = None
        self._focus_on_resume = False

    def has_ahead(self, note_id: str) -> bool:
        """Whether ``note_id`` has been read ahead (and nothing changed since)."""
        return note_id in self._ahead

    @property
    def parked(self) -> bool:
        """A note waits for the page's width."""
        return self._parked is not None

    # Events ------------------------------------------------------------------------------
    def ask(self, ask: Ask, surface: Surface) -> list[Effect[D]]:
        """Show the note asked for, the editor making way first if it has the reader's place."""
        if not surface.editing:
            return self._go(ask, surface)
        # The editor may have to ask about its text: whoever waits for the note stops covering it.
        effects: list[Effect[D]] = [] if ask.ticket is None else [Answer(ask.ticket)]
        if surface.edited == ask.note_id and not ask.section:  # the one being edited: to the editor
            return [*effects, *self._focus(ask, surface)]
        self._making_way = Ask(ask.note_id, ask.section, ask.focus, ask.edit)
        return [*effects, MakeWay()]

    def made_way(self, done: bool, surface: Surface) -> list[Effect[D]]:
        """The editor saved and gave the reader its place (``done``), or kept it for a conflict:
        then a focus asked for goes to the editor (``Focus``), with the person's text."""
        ask, self._making_way = self._making_way, None
        return [] if ask is None else self._go(ask, surface) if done else self._focus(ask, surface)

    def shown(self, note_id: str) -> list[Effect[D]]:
        """``note_id`` is on screen (``Shown``): edit it if that was asked before it was read."""
        if self._edit_after_show != note_id or self.view is None:
            return []
        self._edit_after_show = None
        return [Edit(self.view)]

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
        return self._present(parked.copy, parked.section, parked.keep_scroll, surface)

    def uncovered(self) -> list[Effect[D]]:
        """The screen over the workspace closed: say ``Shown`` for a note drawn under it, and move
        the focus to the page if a note opened under it asked for that."""
        shown, self._shown_later = self._shown_later, None
        effects: list[Effect[D]] = [] if shown is None else [shown]
        if self._focus_on_resume:  # after the frame showing the note (the focus ring a frame later)
            self._focus_on_resume = False
            effects.append(Focus(later=True))
        return effects

    def clear(self, text: str = EMPTY) -> list[Effect[D]]:
        """Show nothing (the note was deleted, or the list is empty)."""
        self.wanted = None
        effects = self._next_request(None)
        self.view = None
        self._parked = None
        self._shown_later = None
        return [*effects, Blank(text)]

    # Steps -------------------------------------------------------------------------------
    def _go(self, ask: Ask, surface: Surface) -> list[Effect[D]]:
        effects: list[Effect[D]] = []
        if ask.note_id != self.wanted or ask.section is not None:
            effects += self.open(
                ask.note_id, ask.section, surface, read_ahead=not ask.edit, ticket=ask.ticket
            )
        elif ask.ticket is not None:
            effects.append(Answer(ask.ticket))
        if ask.edit:
            if self.view is not None and self.view.note.id == ask.note_id:
                effects.append(Edit(self.view))
            else:
                self._edit_after_show = ask.note_id
        return effects + self._focus(ask, surface)

    def _focus(self, ask: Ask, surface: Surface) -> list[Effect[D]]:
        # Not again (a whole repaint), nor through a screen over it (search): once that closes.
        if not ask.focus:
            return []
        if surface.covered and not surface.focused:
            self._focus_on_resume = True  # kept whatever else opens meanwhile
        return [Reading()] if surface.focused or surface.covered else [Reading(), Focus()]

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
        if copy.drawn is not None and not self._whole(copy.drawn):
            copy = Copy(copy.view)  # shown again, it is drawn again: never half of it
        note_id = copy.view.note.id
        self._ahead[note_id] = copy
        self._ahead.move_to_end(note_id)
        while len(self._ahead) > KEPT:
            self._ahead.popitem(last=False)

"""The backlinks of the note the reader shows, found a moment after it shows.

A note read ahead comes without its backlinks (``noted.ui.data.NoteView.backlinks_due``): the
search was most of its cost. While ``j`` is held in the list or the tree, each note flashes past;
its search starts only once it has stayed ``DELAY`` seconds, and a search under way stops (between
pages of ``noted.ops.links.backlinks``) as soon as another note shows.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message
from textual.timer import Timer
from textual.widget import Widget
from textual.worker import get_current_worker

from noted.errors import Interruption
from noted.ops.links import PhraseSearch
from noted.store.protocol import Store
from noted.ui.data import NoteView, with_backlinks
from noted.ui.reader_model import Copy
from noted.ui.widgets.page_drawing import Drawn
from noted.ui.workers import in_thread

DELAY = 0.2
"""Seconds a note stays shown before its backlinks are looked for (a held key moves on sooner)."""
GROUP = "viewer-backlinks"


@dataclass
class BacklinksFound(Message, bubble=False):
    """The backlinks of ``was`` 's note were found: ``view`` is it with them."""

    was: Copy[Drawn]
    view: NoteView
    generation: int


class BacklinksLater:
    """Looks for the backlinks of the note ``node`` shows, and posts ``BacklinksFound`` to it."""

    def __init__(self, node: Widget, store: Store, keyword: PhraseSearch) -> None:
        self._node, self._store, self._keyword = node, store, keyword
        self._timer: Timer | None = None

    def ask(self, copy: Copy[Drawn], generation: int) -> None:
        """Find ``copy`` 's backlinks once it has shown ``DELAY`` seconds (what was asked before goes)."""
        self.drop()
        self._timer = self._node.set_timer(DELAY, lambda: self._start(copy, generation), name="backlinks")

    def drop(self) -> None:
        """Forget the search asked last: not started yet, it never starts; under way, it stops."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._node.workers.cancel_group(self._node, GROUP)

    def _start(self, copy: Copy[Drawn], generation: int) -> None:
        self._timer = None
        in_thread(
            self._node,
            lambda: self._find(copy, generation),
            GROUP,
            "finding the note's backlinks",
            exclusive=True,
        )

    def _find(self, copy: Copy[Drawn], generation: int) -> None:
        worker = get_current_worker()
        try:
            view = with_backlinks(self._store, copy.view, self._keyword, stop=lambda: worker.is_cancelled)
        except Interruption:
            return  # another note shows now
        self._node.post_message(BacklinksFound(copy, view, generation))

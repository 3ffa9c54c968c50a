"""Undoing the assistant's last saved change from the chat (Ctrl+Z): in a thread, said on its card.

``ChatPane`` owns one ``Undoing``. The undo runs as the person through the engine
(``noted.ui.chat.data.undo_change``); its end comes back on the event loop, and a refusal (the
note changed after the edit) reaches ``failed`` from the pane's one worker handler.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noted.ui.chat.data import undo_change
from noted.ui.chat.edits import EditCard
from noted.ui.workers import in_thread

if TYPE_CHECKING:
    from noted.ui.chat.pane import ChatPane

GROUP = "chat-undo"
"""The worker group of an undo, so the pane knows a failure for one."""


class Undoing:
    """Undoes the change of the last card that can be undone, and says how it went."""

    def __init__(self, pane: ChatPane) -> None:
        self._pane = pane

    def start(self) -> None:
        """Undo the last saved change of the open note, or say there is none."""
        pane = self._pane
        if (card := pane.chat_log.undoable) is None:
            pane.notify("Nothing to undo: no change of this chat can be undone now.", severity="warning")
            return
        pane.status_line.say("Undoing…")
        in_thread(pane, lambda: self._run(card), GROUP, "Undoing an edit", exclusive=True)

    def _run(self, card: EditCard) -> None:
        pane = self._pane
        assert card.applied is not None
        conversation = pane.conversation.id if pane.conversation else None
        said, warn = undo_change(pane.engine, card.applied, conversation)
        pane.app.call_from_thread(self._done, card, said, warn)

    def _done(self, card: EditCard, said: str | None, warn: bool) -> None:
        pane = self._pane
        if said is not None and warn:
            pane.notify(said, severity="warning")
        pane.chat_log.undone(card, said)
        self._settled()

    def failed(self, message: str) -> None:
        """The undo was refused (the note changed after the edit): the change stays."""
        self._pane.chat_log.not_undone(message)
        self._settled()

    def _settled(self) -> None:
        self._pane.status_line.say(None)
        self._pane.refresh_bindings()

"""Waiting, in a worker thread, for another window's answer in a conversation to end.

A message sent while another window (or ``noted ask``) answers in the same conversation is refused
by the conversation's run lease (``noted.chat.claim``), nothing of it saved. The pane gives the text
back and waits here until the lease is free, then shows the conversation as that window left it.
"""

from __future__ import annotations

import time

from textual.worker import get_current_worker

from noted.chat.transcripts import Transcripts

FOLLOW_SECONDS = 0.5
"""How often the lease is looked at while the other window answers."""


def wait_until_free(transcripts: Transcripts, conversation_id: str) -> bool:
    """Block until nobody answers in the conversation; False when the worker was cancelled first
    (the person moved to another chat or note)."""
    lease = transcripts.run_lease(conversation_id, "tui")
    worker = get_current_worker()
    while lease.holder() is not None:
        if worker.is_cancelled:
            return False
        time.sleep(FOLLOW_SECONDS)
    return not worker.is_cancelled

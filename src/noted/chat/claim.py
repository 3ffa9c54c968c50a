"""One answer at a time in a conversation, whichever window or process sends.

Two app windows (or the app and ``noted ask``) on one profile may send in the same conversation at
once. Saved side by side their messages would interleave (a person's message, another's, then two
answers), and one run's ``keep`` could drop the other's. So an answer runs holding the
conversation's run lease (``noted.store.chats.RunLease``); a second sender is told who answers and
what to do instead, and nothing of its message is saved. A holder killed outright loses the lease
(at once on this machine, after the lease's lifetime on another), so no conversation stays locked.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from noted.chat.events import Busy
from noted.chat.transcripts import BUSY, Transcripts

BUSY_REMEDY = "wait for that answer to end and send again, or start a new conversation"


@contextlib.asynccontextmanager
async def claimed(transcripts: Transcripts, conversation_id: str, label: str) -> AsyncIterator[Busy | None]:
    """Hold the conversation's run lease for the block; gives None then, or, when another answer
    holds it, the ``Busy`` event that says so (the block must then do nothing)."""
    lease = transcripts.run_lease(conversation_id, label)
    if not await asyncio.to_thread(lease.acquire):
        holder = await asyncio.to_thread(lease.holder)
        yield Busy(f"{BUSY}: {holder}" if holder else BUSY, BUSY_REMEDY)
        return
    lease.start_heartbeat()
    try:
        yield None
    finally:
        await asyncio.shield(asyncio.to_thread(lease.release))

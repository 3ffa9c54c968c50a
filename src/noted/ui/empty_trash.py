"""Emptying the trash from the app: say what it holds, ask, and erase it only if it still holds
just that (``noted.ops.trash``: a note trashed meanwhile is never erased unseen)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from textual.screen import Screen
from textual.worker import WorkerCancelled, WorkerFailed

from noted.models import ACTOR_USER
from noted.ops.trash import empty_if_unchanged, trash_contents
from noted.store.protocol import Store
from noted.ui.dialogs.confirm import Confirm
from noted.ui.workers import in_thread

T = TypeVar("T")


async def empty_trash(screen: Screen[Any], store: Store) -> None:
    """Say what the trash holds and ask on ``screen``; erase it only if it still holds just that.

    Run it as a worker of ``screen`` (it waits for the person's answer); a failure in a thread is
    reported by the screen's worker handling, and writes nothing.
    """
    asked = await _in_thread(screen, partial(trash_contents, store), "reading the trash")
    if asked is None:
        return
    if asked.empty:
        screen.notify("The trash is empty already.")
        return
    question = f"Delete {asked} in the trash for good? There is no undo."
    keep = "Keep it" if asked.one else "Keep them"
    if not await screen.app.push_screen_wait(Confirm(question, yes="Empty trash", no=keep)):
        return
    emptied = await _in_thread(
        screen, partial(empty_if_unchanged, store, asked, actor=ACTOR_USER), "emptying the trash"
    )
    if emptied:
        said = str(emptied)
        screen.notify(
            said[0].upper() + said[1:] + ".", severity="warning" if emptied.partial else "information"
        )
    elif emptied is False:  # (None: it failed, and the failure has been reported)
        screen.notify(
            "The trash changed meanwhile, so nothing was deleted. Empty it again to see what it holds.",
            severity="warning",
        )


async def _in_thread(screen: Screen[Any], work: Callable[[], T], description: str) -> T | None:
    """Run blocking ``work`` in a thread worker; None if it failed (the failure is reported)."""
    worker = in_thread(screen, work, "workspace-io", description)
    try:
        return await worker.wait()
    except (WorkerFailed, WorkerCancelled):
        return None

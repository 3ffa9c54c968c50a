"""Sync now (the palette, on a Joplin profile): have Joplin sync (``joplin.syncCommand``) and say
what came of it; what arrives shows through the change feed."""

from __future__ import annotations

import time
from typing import Any

from textual.screen import Screen

from noted.services import Services
from noted.settings import handles
from noted.ui.widgets.status_bar import StatusBar
from noted.ui.workers import in_thread


def sync_now(screen: Screen[Any], services: Services) -> None:
    """Run Joplin's sync in a thread of ``screen``; say the outcome and when, in its status bar."""
    store = services.store
    sync, copies = store.sync, store.conflicts
    if sync is None:
        screen.notify("Sync is Joplin's: this profile's notes are not in Joplin", severity="warning")
        return
    command = services.settings.get(handles.JOPLIN_SYNC_COMMAND)

    def work() -> None:
        run = sync.run(command)
        conflicts = len(copies.sync_conflicts()) if copies is not None else 0
        settle = f"; {conflicts} conflict(s) in Conflicts" if conflicts else ""
        screen.app.call_from_thread(screen.notify, f"Joplin synced: {run.summary}{settle}")
        stamp = time.strftime("%H:%M", time.localtime(run.finished / 1000))
        screen.app.call_from_thread(screen.query_one(StatusBar).set_part, "sync", f"synced {stamp}")

    screen.notify("Asking Joplin to sync…")
    in_thread(screen, work, "sync", "syncing Joplin")

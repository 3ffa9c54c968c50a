"""Snapshots of the conflict view at 80×24 and 120×40, in the top-level ``snapshots/``.

Same set-up as ``test_ui_screen_snapshots`` (a fixed profile in UTC, no background work). The
view shows no ids or times, so it is the same on every run.
"""

from __future__ import annotations

from typing import Any

from tests.integration import test_ui_screen_snapshots as screens
from tests.integration.ui_support import until
from textual.pilot import Pilot

from noted.models import NotePatch
from noted.services import Services
from noted.ui.app import NotedApp
from noted.ui.dialogs.conflict import ConflictView

services = screens.services
_snapshots_folder = screens._snapshots_folder


@screens.SIZES
def test_conflict_view(snap_compare: Any, services: Services, size: tuple[int, int]) -> None:
    """Release plan edited in the app while another process prepended a line; Ctrl+S."""

    async def run(pilot: Pilot[Any]) -> None:
        await screens._ready(pilot)
        await pilot.press("g", "e")
        await pilot.press("ctrl+home", *"Mine. ")
        note = next(m for m in services.store.list_notes() if m.title == "Release plan")
        services.store.update_note(note.id, NotePatch(prepend="Changed meanwhile."), actor="mcp:test")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(pilot.app.screen, ConflictView))
        await pilot.pause()

    assert snap_compare(NotedApp(services, background=False), terminal_size=size, run_before=run)

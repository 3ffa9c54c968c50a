"""Pilot tests of quitting while the editor's text cannot be saved (Joplin stopped, say)."""

from __future__ import annotations

from typing import Any

import pytest
from tests.integration import test_ui_app
from tests.integration.test_ui_app import Running
from tests.integration.test_ui_conflicts import MINE, edit_and_type
from tests.integration.ui_support import Fixture

from noted.store.joplin.client import JoplinUnreachableError
from noted.ui.crash import RESCUE_DIR
from noted.ui.dialogs.confirm import Confirm

running = test_ui_app.running  # the app on the sample profile, as the other Pilot tests run it


def stop_the_backend(running: Running, monkeypatch: pytest.MonkeyPatch) -> None:
    """The store answers as a Joplin that was stopped does: every read and write of a note fails
    (a save reads the note's times, not its body: ``note_metas``)."""

    def unreachable(*args: Any, **kwargs: Any) -> Any:
        raise JoplinUnreachableError("Joplin is not reachable at http://127.0.0.1:41184")

    for name in ("get_note", "note_metas", "update_note"):
        monkeypatch.setattr(running.app.services.store, name, unreachable)


async def test_quit_with_text_that_cannot_be_saved_asks_and_can_keep_editing(
    running: Running, fixture: Fixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: Ctrl+Q ended the app with "noted stopped on an internal error (JoplinUnreachableError…)".
    editor = await edit_and_type(running)
    stop_the_backend(running, monkeypatch)
    await running.pilot.press("ctrl+q")
    await running.until(lambda: isinstance(running.app.screen, Confirm))
    assert running.app.is_running and not running.app._exit_renderables  # no crash line
    await running.pilot.press("escape")  # keep editing: the text is still there, nothing written
    await running.until(lambda: not isinstance(running.app.screen, Confirm))
    assert running.app.is_running and editor.dirty and editor.body_text.startswith(MINE)
    assert not (fixture.root / RESCUE_DIR).exists()


async def test_quit_with_text_that_cannot_be_saved_can_quit_leaving_it_rescued(
    running: Running, fixture: Fixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    await edit_and_type(running)
    stop_the_backend(running, monkeypatch)
    await running.pilot.press("ctrl+q")
    await running.until(lambda: isinstance(running.app.screen, Confirm))
    await running.pilot.press("y")
    await running.until(lambda: not running.app.is_running)
    (kept,) = (fixture.root / RESCUE_DIR).iterdir()
    assert f"{MINE}Plans" in kept.read_text(encoding="utf-8")
    assert running.app.return_code == 0
    assert str(kept) in str(running.app._exit_renderables)

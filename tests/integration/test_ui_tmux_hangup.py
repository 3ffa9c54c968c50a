"""End to end: the app ended by a signal while a note's text is not saved.

Closing the terminal (a window closed, an SSH connection dropped: SIGHUP) or ``kill`` (SIGTERM,
a shutdown) ended the app on Python's default action: the text typed in the editor was gone, with
nothing in ``rescued/`` nor in the log. Not vacuous: on that code no file ever appears and the wait
fails; the text is typed and shown unsaved (``● Editing``) before the signal is sent.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from tests.integration.test_ui_tmux import WAIT, Terminal, pytestmark, start_terminal  # noqa: F401 (skip without tmux)
from tests.integration.ui_support import RELEASE_BODY, Fixture, build_profile
from tests.support.polling import wait_for

from noted.store.sqlite import SqliteStore
from noted.ui.crash import RESCUE_DIR


def _app_pid(terminal: Terminal) -> int:
    """The app's process: the child of the pane's shell."""
    shell = terminal.tmux("list-panes", "-t", terminal.session, "-F", "#{pane_pid}").stdout.strip()
    children = subprocess.run(["pgrep", "-P", shell], capture_output=True, text=True, check=True)
    (pid,) = children.stdout.split()
    return int(pid)


def _ended(pid: int) -> bool:
    try:
        Path(f"/proc/{pid}").stat()
    except FileNotFoundError:
        return True
    return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"


@pytest.mark.parametrize("how", ["terminal closed", "SIGTERM"])
def test_the_unsaved_text_is_kept_when_a_signal_ends_the_app(tmp_path: Path, how: str) -> None:
    fixture: Fixture = build_profile(tmp_path / "profile")
    with start_terminal(fixture, tmp_path) as terminal:
        terminal.wait_for(lambda s: "Release plan" in s and "Groceries" in s)
        terminal.keys("g", "Enter")
        terminal.wait_for("1.2 Nice to have")
        terminal.keys("e")
        terminal.wait_for("Editing")
        terminal.type("Typed, never saved. ")
        terminal.wait_for(lambda s: "● Editing" in s and "Typed, never saved." in s)
        pid = _app_pid(terminal)
        if how == "SIGTERM":
            subprocess.run(["kill", "-TERM", str(pid)], check=True)
        else:
            terminal.tmux("kill-server")  # every process of the pane gets SIGHUP
        wait_for(lambda: _ended(pid), what="the app to end", timeout=WAIT, interval=0.1)
    (kept,) = (fixture.root / RESCUE_DIR).iterdir()
    assert kept.read_text(encoding="utf-8") == f"# Release plan\n\nTyped, never saved. {RELEASE_BODY}"
    store = SqliteStore.open(fixture.root / "notes.db", fixture.root / "resources")
    try:
        assert store.get_note(fixture.release).body == RELEASE_BODY  # kept aside, not saved over the note
    finally:
        store.close()
    logged = (fixture.root / "noted.log").read_text(encoding="utf-8")
    assert "ended by SIG" in logged
    if how == "terminal closed":  # its line could not be shown: said so, not an internal error with a stack
        assert "the terminal is gone" in logged and "internal error" not in logged, logged

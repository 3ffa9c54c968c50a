"""End to end: the app keeps drawing after its terminal is gone, then SIGHUP ends it.

Textual's output thread writes from a queue of 30 frames; the first write to a closed terminal
(EIO) ended that thread, and nothing emptied the queue after it: the 31st frame drawn, or the
driver's stop, blocked the app's main thread for good. The SIGHUP that follows a closed terminal
then never ran (its handler waits for the event loop), so the app neither ended nor kept the text
being edited. Not vacuous: on that code the process is still alive at the deadline (measured: it
never ends, not even by ``noted.ui.crash``'s watchdog, which only the signal's handler starts);
with the output thread emptying its queue it ends by the quit path in about 3 s, 129 (SIGHUP) as
its status and the text kept. The watchdog's own way out would end it by the signal, status -1.

The app runs on a pty that is not its controlling terminal, so closing the pty's other end gives
EIO without a SIGHUP, and the first test sends that SIGHUP itself once the app has drawn enough
frames; the second sends none: the input's end of file must end the app as the signal does.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

from tests.integration.test_ui_tmux import ROOT, WAIT
from tests.integration.ui_support import RELEASE_BODY, Fixture, build_profile
from tests.support.polling import scaled

from noted.models import NotePatch
from noted.store.sqlite import SqliteStore
from noted.ui.crash import RESCUE_DIR

FRAMES = 40
"""Changes the app draws after its terminal is gone: each is a frame or more (20 were enough to
block it), more than the 30 the output queue holds."""


def _read_until(master: int, wanted: bytes, seen: bytearray) -> None:
    deadline = time.monotonic() + scaled(WAIT)
    while wanted not in seen:
        assert time.monotonic() < deadline, f"the app never showed {wanted!r}"
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            seen += os.read(master, 65536)


def _start(fixture: Fixture, tmp_path: Path) -> tuple[subprocess.Popen[bytes], int]:
    env = {
        **os.environ, "TZ": "UTC", "HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "NOTED_SEARCH_INDEXER_ENABLED": "false", "NOTED_AI_ENABLED": "false", "TERM": "xterm-256color",
        "PYTHONPATH": str(ROOT / "src"),
    }  # fmt: skip
    master, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))  # rows, columns
    app = subprocess.Popen(
        [sys.executable, "-m", "noted", "--profile", str(fixture.root)],
        stdin=terminal, stdout=terminal, stderr=terminal, env=env, start_new_session=True,
    )  # fmt: skip
    os.close(terminal)
    return app, master


def _type_unsaved(master: int) -> None:
    """Open the release plan in the editor and type into it, not saving."""
    seen = bytearray()
    _read_until(master, b"Groceries", seen)
    os.write(master, b"g\r")
    _read_until(master, b"Nice to have", seen)
    os.write(master, b"e")
    _read_until(master, b"Editing", seen)
    os.write(master, b"Typed, never saved. ")
    _read_until(master, "●".encode(), bytearray())  # drawn after the typing: the text is not saved


def _kept_text_and_log(fixture: Fixture) -> str:
    """Check the typed text was kept in the profile once the app ended; give ``noted.log``."""
    (kept,) = (fixture.root / RESCUE_DIR).iterdir()
    assert kept.read_text(encoding="utf-8") == f"# Release plan\n\nTyped, never saved. {RELEASE_BODY}"
    logged = (fixture.root / "noted.log").read_text(encoding="utf-8")
    return logged


def test_an_app_drawing_on_a_closed_terminal_still_ends_on_sighup_keeping_the_text(tmp_path: Path) -> None:
    fixture = build_profile(tmp_path / "profile")
    app, master = _start(fixture, tmp_path)
    try:
        _type_unsaved(master)
        os.close(master)  # the terminal is gone: every write of the app's now fails with EIO
        store = SqliteStore.open(fixture.root / "notes.db", fixture.root / "resources")
        try:
            for n in range(FRAMES):  # another process's changes, which the app follows and draws
                store.update_note(fixture.groceries, NotePatch(title=f"Groceries {n}"), actor="import")
                time.sleep(0.3)  # (longer than the app's feed poll: one frame each)
        finally:
            store.close()
        app.send_signal(signal.SIGHUP)
        assert app.wait(scaled(WAIT)) == 128 + signal.SIGHUP  # the quit path ran to its end
    finally:
        app.kill()
        app.wait()
    logged = _kept_text_and_log(fixture)
    assert "the terminal is gone" in logged and "had not closed" not in logged, logged


def test_an_app_whose_terminal_is_gone_without_a_sighup_ends_as_on_one_keeping_the_text(
    tmp_path: Path,
) -> None:
    """The terminal gone and no SIGHUP (a pty that is not the app's controlling terminal, its other
    end closed): reading it gives end of file at once, and Textual's input thread read again without
    pause, taking a whole core (12.7 s of CPU in 15 s) for as long as the process lived, which was for
    good. Not vacuous: on that code the app is still alive at the deadline; with end of input taken
    as the terminal gone it ends as a SIGHUP ends it, 129 and the text kept."""
    fixture = build_profile(tmp_path / "profile")
    app, master = _start(fixture, tmp_path)
    try:
        _type_unsaved(master)
        os.close(master)  # the terminal is gone, and no signal says so
        assert app.wait(scaled(WAIT)) == 128 + signal.SIGHUP
    finally:
        app.kill()
        app.wait()
    logged = _kept_text_and_log(fixture)
    assert "end of file" in logged and "had not closed" not in logged, logged

"""End to end: ``y`` in the real app inside tmux puts the note on tmux's clipboard (OSC 52).

With ``set -g set-clipboard on`` tmux turns the app's OSC 52 into a paste buffer (and passes it
on to the outer terminal, which a test has none of), so ``tmux show-buffer`` shows exactly what
the app sent. The buffer list starts empty, so a key that sends nothing, or a sequence tmux cannot
read, leaves ``show-buffer`` failing and the test failing with it.
"""

from __future__ import annotations

import subprocess
import time
import uuid
from pathlib import Path

from tests.integration.test_ui_tmux import WAIT, Terminal, pytestmark, start_terminal  # noqa: F401
from tests.integration.ui_support import RELEASE_BODY, Fixture, build_profile


def _buffer(terminal: Terminal) -> str | None:
    shown = terminal.tmux("show-buffer", check=False)
    return shown.stdout if shown.returncode == 0 else None


def _wait_for_buffer(terminal: Terminal, wanted: str) -> None:
    deadline = time.monotonic() + WAIT
    while _buffer(terminal) != wanted:
        if time.monotonic() > deadline:
            raise AssertionError(f"tmux's buffer never became the note; it holds {_buffer(terminal)!r}")
        time.sleep(0.1)


def test_y_copies_the_note_to_tmuxs_clipboard(tmp_path: Path) -> None:
    fixture: Fixture = build_profile(tmp_path / "profile")
    with start_terminal(fixture, tmp_path) as terminal:
        terminal.tmux("set-option", "-g", "set-clipboard", "on")
        terminal.wait_for(lambda s: "Release plan" in s and "Groceries" in s)
        terminal.keys("g", "Enter")  # open the newest note; the focus goes to its page
        terminal.wait_for("1.2 Nice to have")
        assert _buffer(terminal) is None  # nothing copied yet: no buffer at all

        terminal.keys("y")
        _wait_for_buffer(terminal, RELEASE_BODY)  # the Markdown as written, every line
        screen = terminal.wait_for(f"Copied {len(RELEASE_BODY.splitlines())} lines")
        # The passthrough copy, which this tmux (allow-passthrough off) drops, left nothing on screen.
        assert "Ptmux" not in screen and "]52;" not in screen


def test_a_tmux_with_only_passthrough_on_hands_the_copy_to_the_outer_terminal(tmp_path: Path) -> None:
    """The inner tmux ignores the app's own OSC 52 (``set-clipboard off``) but passes the wrapped
    copy through; the "outer terminal" is a second tmux, attached to the first, whose buffer shows
    what reached it. Without the wrapped copy nothing would reach it (the first test's check)."""
    fixture: Fixture = build_profile(tmp_path / "profile")
    with start_terminal(fixture, tmp_path) as inner:
        inner.tmux("set-option", "-g", "set-clipboard", "off")
        inner.tmux("set-option", "-g", "allow-passthrough", "on")
        outer = Terminal(f"noted-outer-{uuid.uuid4().hex[:8]}", "outer")
        attach = f"tmux -L {inner.socket} attach -t {inner.session}"
        outer.tmux("new-session", "-d", "-s", "outer", "-x", "120", "-y", "40", attach)
        try:
            outer.tmux("set-option", "-g", "set-clipboard", "on")
            outer.wait_for(lambda s: "Release plan" in s and "Groceries" in s)
            outer.keys("g", "Enter")
            outer.wait_for("1.2 Nice to have")
            outer.keys("y")
            inner.wait_for("Copied")
            _wait_for_buffer(outer, RELEASE_BODY)
            assert _buffer(inner) is None  # the inner tmux kept no copy of its own: it passed it on
        finally:
            subprocess.run(["tmux", "-L", outer.socket, "kill-server"], capture_output=True, check=False)

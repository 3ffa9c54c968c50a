"""End to end: keys typed while ``noted`` starts, before its first screen, act on that screen.

Until the app takes the terminal, the terminal is in cooked mode: it echoes, and the kernel turns
Enter into a line feed, which Textual reads as ``Ctrl+J`` (the list ignores it). The session's
shell waits for a file before it starts ``noted``, so the keys are surely typed before noted runs
(no race decides whether the test means anything); before the fix the list moved to *Groceries*
and the Enter was lost, so the reader never opened.
"""

from __future__ import annotations

from pathlib import Path

from tests.integration.test_ui_tmux import pytestmark, start_terminal  # noqa: F401
from tests.integration.ui_support import build_profile
from tests.support.polling import wait_for


def test_keys_typed_before_the_app_starts_open_the_note_and_the_terminal_is_given_back(
    tmp_path: Path,
) -> None:
    fixture = build_profile(tmp_path / "profile")
    gate, modes = tmp_path / "go", tmp_path / "stty.txt"
    script = f"until [ -e {gate} ]; do sleep 0.05; done; {{noted}}; stty -a > {modes}"
    with start_terminal(fixture, tmp_path, width=80, height=24, script=script) as terminal:
        terminal.keys("j", "j", "Enter")  # typed while the shell waits: the terminal holds them
        terminal.wait_for("jj")  # cooked mode echoes them: they are in the terminal, not yet read
        gate.touch()
        # At 80 columns Enter opens the highlighted note full width: the third, Groceries.
        terminal.wait_for(lambda s: "─ Note ─" in s and "Groceries" in s and "• milk" in s)
        terminal.keys("C-q")
        wait_for(  # the shell makes the file before stty writes it: wait for the whole line
            lambda: modes.exists() and modes.read_text().endswith("\n"),
            what="the shell to record the terminal's modes after noted quit",
            timeout=60,
        )
    # The terminal is back in the mode noted found it in (noted held it in raw mode while starting).
    shown = modes.read_text().split()
    assert {"icanon", "echo", "icrnl", "ixon"} <= set(shown), shown

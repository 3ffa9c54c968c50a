"""End to end, the issue's case: a note open in ``$EDITOR`` from the app is changed from another
shell (``noted edit --append``), then saved. The real app in tmux, the real other process.

Before, the dialog focused *Overwrite*, so the ``Enter`` pressed here replaced the other version.
"""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

from tests.integration.test_ui_tmux import ROOT, WAIT, pytestmark, start_terminal  # noqa: F401 (skip without tmux)
from tests.integration.ui_support import RELEASE_BODY, Fixture, build_profile

from noted.store.sqlite import SqliteStore

# The "editor": another shell appends to the note, then the person's line is typed into the file.
EDITOR = """
import os, pathlib, subprocess, sys
subprocess.run(
    [sys.executable, "-m", "noted", "--profile", sys.argv[1], "edit", sys.argv[2], "--append", "Changed meanwhile"],
    check=True, capture_output=True,
)
path = pathlib.Path(sys.argv[-1])
path.write_text("Typed in the editor. " + path.read_text(encoding="utf-8"), encoding="utf-8")
"""


def test_editor_from_the_app_meeting_a_change_keeps_both(tmp_path: Path) -> None:
    fixture: Fixture = build_profile(tmp_path / "profile")
    script = tmp_path / "editor.py"
    script.write_text(EDITOR, encoding="utf-8")
    visual = shlex.join([sys.executable, str(script), str(fixture.root), fixture.release])
    with start_terminal(fixture, tmp_path, VISUAL=visual, PYTHONPATH=str(ROOT / "src")) as terminal:
        terminal.wait_for(lambda s: "Release plan" in s and "Groceries" in s)
        terminal.keys("g", "Enter")
        terminal.wait_for("1.2 Nice to have")
        terminal.keys("E")
        screen = terminal.wait_for("Keep both")
        assert "changed elsewhere" in screen and "+Changed meanwhile" in screen
        terminal.keys("Enter")  # the focused choice
        terminal.wait_for("Kept both")
        terminal.keys("C-q")
        deadline = time.monotonic() + WAIT
        while terminal.alive() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not terminal.alive(), "ctrl+q did not end the app"
    store = SqliteStore.open(fixture.root / "notes.db", fixture.root / "resources")
    try:
        assert store.get_note(fixture.release).body.endswith("\nChanged meanwhile")
        copies = [m for m in store.list_notes() if m.title.startswith("Release plan (conflict copy ")]
        assert len(copies) == 1
        assert store.get_note(copies[0].id).body.endswith(f"\n\nTyped in the editor. {RELEASE_BODY}")
    finally:
        store.close()

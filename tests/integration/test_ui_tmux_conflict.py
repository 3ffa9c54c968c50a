"""End to end, ``$EDITOR`` from the app: the real app in tmux, a script as the editor.

A note open in ``$EDITOR`` is changed from another shell (``noted edit --append``), then saved:
before, the dialog focused *Overwrite*, so the ``Enter`` pressed here replaced the other version.
And back from the editor the person is reading: before, the app came back in its own editor.
"""

from __future__ import annotations

import shlex
import sys
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

# The "editor" of a plain edit: puts a line at the top of the file, as a person would, and exits.
PREPEND = """
import pathlib, sys
path = pathlib.Path(sys.argv[-1])
path.write_text("Typed in the editor.\\n\\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
"""


def _visual(tmp_path: Path, script: str, *args: str) -> str:
    """A ``$VISUAL`` that runs ``script`` with ``args`` (and then the file to edit)."""
    path = tmp_path / "editor.py"
    path.write_text(script, encoding="utf-8")
    return shlex.join([sys.executable, str(path), *args])


def test_editor_from_the_app_meeting_a_change_keeps_both(tmp_path: Path) -> None:
    fixture: Fixture = build_profile(tmp_path / "profile")
    visual = _visual(tmp_path, EDITOR, str(fixture.root), fixture.release)
    with start_terminal(fixture, tmp_path, VISUAL=visual, PYTHONPATH=str(ROOT / "src")) as terminal:
        terminal.wait_for(lambda s: "Release plan" in s and "Groceries" in s)
        terminal.keys("g", "Enter")
        terminal.wait_for("1.2 Nice to have")
        terminal.keys("E")
        # One predicate, not a wait and then an assert: tmux can be read while a frame is half
        # written, so "Keep both" may be on the screen a moment before the rest of the view.
        terminal.wait_for(
            lambda s: "Keep both" in s and "changed elsewhere" in s and "+Changed meanwhile" in s
        )
        terminal.keys("Enter")  # the focused choice
        terminal.wait_for("Kept both")
        terminal.keys("C-q")
        terminal.wait_closed()  # ctrl+q ends the app
    store = SqliteStore.open(fixture.root / "notes.db", fixture.root / "resources")
    try:
        assert store.get_note(fixture.release).body.endswith("\nChanged meanwhile\n")
        copies = [m for m in store.list_notes() if m.title.startswith("Release plan (conflict copy ")]
        assert len(copies) == 1
        assert store.get_note(copies[0].id).body.endswith(f"\n\nTyped in the editor. {RELEASE_BODY}")
    finally:
        store.close()


def test_back_from_the_editor_the_note_is_read_not_edited(tmp_path: Path) -> None:
    fixture: Fixture = build_profile(tmp_path / "profile")
    visual = _visual(tmp_path, PREPEND)
    with start_terminal(fixture, tmp_path, VISUAL=visual, PYTHONPATH=str(ROOT / "src")) as terminal:
        terminal.wait_for(lambda s: "Release plan" in s and "Groceries" in s)
        terminal.keys("g", "Enter")
        terminal.wait_for("1.2 Nice to have")
        terminal.keys("E")
        # The outline is part of the reader (the in-app editor replaces it), so seeing it with the
        # new text means the person is reading the saved note.
        terminal.wait_for(lambda s: "Typed in the editor." in s and "1.2 Nice to have" in s)
    store = SqliteStore.open(fixture.root / "notes.db", fixture.root / "resources")
    try:
        assert store.get_note(fixture.release).body == f"Typed in the editor.\n\n{RELEASE_BODY}"
    finally:
        store.close()

"""End to end on a Markdown folder: noted in one tmux pane, a real editor (vim) in the other.

A file saved in vim shows in noted's pane; a note saved in noted is what vim reads back.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.integration.test_ui_tmux import ROOT, Terminal
from tests.support.polling import wait_for

pytestmark = pytest.mark.skipif(
    shutil.which("tmux") is None or shutil.which("vim") is None, reason="needs tmux and vim"
)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    (root / "journal").mkdir(parents=True)
    (root / "journal" / "monday.md").write_text("# Monday\n\nStarted the week.\n")
    subprocess.run(["git", "-C", str(root), "init", "-q"], check=True)
    return root


@pytest.fixture
def panes(vault: Path, tmp_path: Path) -> Iterator[tuple[Terminal, Terminal]]:
    socket = f"noted-test-{uuid.uuid4().hex[:8]}"
    env = {
        "TZ": "UTC", "HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "NOTED_SEARCH_INDEXER_ENABLED": "false", "NOTED_AI_ENABLED": "false", "TERM": "xterm-256color",
        "PYTHONPATH": str(ROOT / "src"),
    }  # fmt: skip
    noted = " ".join(
        ["env", *(f"{k}={shlex.quote(v)}" for k, v in env.items()), shlex.quote(sys.executable), "-m", "noted",
         "--profile", shlex.quote(str(tmp_path / "profile")), "--vault", shlex.quote(str(vault))]
    )  # fmt: skip
    vim = f"cd {shlex.quote(str(vault))} && env TERM=xterm-256color HOME={shlex.quote(str(tmp_path))} vim -u NONE -N -n"
    app, editor = Terminal(socket, "noted"), Terminal(socket, "editor")
    app.tmux("new-session", "-d", "-s", "noted", "-x", "120", "-y", "40", noted)
    app.tmux("new-session", "-d", "-s", "editor", "-x", "100", "-y", "20", vim)
    try:
        yield app, editor
    finally:
        app.tmux("kill-server", check=False)


def test_a_file_saved_in_vim_shows_in_noted_and_a_save_in_noted_is_what_vim_reads(
    panes: tuple[Terminal, Terminal], vault: Path
) -> None:
    app, editor = panes
    app.wait_for(lambda s: "Monday" in s and "journal" in s)
    editor.wait_for("~")  # vim is up
    editor.type(":e journal/tuesday.md\r")
    editor.type("i# Tuesday from vim\r\rWritten next door.")
    editor.keys("Escape")
    editor.type(":w\r")
    editor.wait_for("written")
    app.wait_for("Tuesday from vim")  # the watcher brought it in; the list shows it

    app.keys("g", "Enter")  # the newest note: the one vim wrote
    app.wait_for("Written next door.")
    app.keys("e")
    app.wait_for("Editing")
    app.type("Typed in noted. ")
    app.wait_for("● Editing")  # the text is in noted's editor (unsaved)
    app.keys("C-s")
    app.wait_for(lambda s: "● Editing" not in s and "· saved ·" in s)  # the title follows the heading
    path = vault / "journal" / "tuesday.md"
    wait_for(lambda: "Typed in noted." in path.read_text(), what="noted's save in the file")
    editor.type(":e!\r")  # vim reloads the file from disk
    editor.wait_for("Typed in noted.")
    assert (vault / "journal" / "tuesday.md").read_text().count("Written next door.") == 1

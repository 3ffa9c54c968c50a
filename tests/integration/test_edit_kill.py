"""``noted edit`` killed while ``$EDITOR`` is open: the note's text and what the person typed
are not left in the system's temporary folder for good, and the next start says where they are."""

from __future__ import annotations

import shlex
import signal
import subprocess
import sys
from pathlib import Path

from tests.integration.ui_support import until
from tests.support.cli import env_with_src, run_noted

KILL_NOTED = """
import os, pathlib, signal, sys
path = pathlib.Path(sys.argv[-1])
path.write_text(path.read_text(encoding="utf-8") + "typed before the kill\\n", encoding="utf-8")
os.kill(os.getppid(), signal.SIGKILL)  # noted dies with the editor open
"""


def test_a_kill_of_noted_with_the_editor_open_keeps_the_typed_text_in_the_profile(tmp_path: Path) -> None:
    """The file went to the system's temporary folder (``noted-<title>-*.md``) and stayed there
    for good. Not vacuous: the kill is checked, and the text typed before it is looked for."""
    profile, temp = tmp_path / "profile", tmp_path / "tmp"
    temp.mkdir()
    made = run_noted(profile, "create", "Diary", "--body", "private line\n")
    note = made.stdout.strip()
    script = tmp_path / "editor.py"
    script.write_text(KILL_NOTED, encoding="utf-8")
    env = env_with_src(EDITOR=f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}", TMPDIR=str(temp))
    env.pop("VISUAL", None)
    killed = subprocess.run(
        [sys.executable, "-m", "noted", "--profile", str(profile), "edit", note],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert killed.returncode == -signal.SIGKILL
    assert list(temp.iterdir()) == []  # nothing of the note in the shared temporary folder
    after = run_noted(profile, "notes")
    assert after.returncode == 0, after.stderr
    said = [line for line in after.stderr.splitlines() if "$EDITOR" in line]
    assert len(said) == 1, after.stderr
    kept = Path(said[0].rsplit(" in ", 1)[1].rstrip("."))
    assert kept.is_relative_to(profile) and "typed before the kill" in kept.read_text(encoding="utf-8")
    assert "private line" in kept.read_text(encoding="utf-8")
    again = run_noted(profile, "notes")  # said once: the file has moved to rescued/
    assert "$EDITOR" not in again.stderr and kept.exists()
    assert run_noted(profile, "show", note).stdout.count("typed before the kill") == 0  # nothing saved


async def test_the_app_shows_where_a_killed_edits_text_is_kept(tmp_path: Path) -> None:
    """The app's start said it on stderr before the app took the screen, so the person read it
    only after quitting. Not vacuous: the file is one a gone noted left in ``editing/``, and the
    notice is looked for in the app, naming where the file went (``rescued/``)."""
    from textual.notifications import Notify

    from noted.cli.commands_tui import ready_app
    from noted.cli.context import CliContext
    from noted.ops.editing import EDIT_DIR, RESCUE_DIR

    profile = tmp_path / "profile"
    assert run_noted(profile, "create", "Diary", "--body", "private line\n").returncode == 0
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    left = profile / EDIT_DIR / f"{int(gone.stdout)}-0123abcd-Diary.md"
    left.parent.mkdir(exist_ok=True)
    left.write_text("# Diary\n\ntyped before the kill\n", encoding="utf-8")
    ctx = CliContext(profile_arg=str(profile))
    app = ready_app(ctx)
    seen: list[Notify] = []
    try:
        async with app.run_test(
            message_hook=lambda m: seen.append(m) if isinstance(m, Notify) else None
        ) as pilot:
            kept = profile / RESCUE_DIR / f"edited-{left.name}"
            said = f"the text you were editing is in {kept}"
            await until(pilot, lambda: any(said in m.notification.message for m in seen))
            assert "typed before the kill" in kept.read_text(encoding="utf-8")
    finally:
        ctx.close()

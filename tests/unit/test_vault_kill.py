"""The Markdown-folder backend after noted was killed (SIGKILL: nothing runs on the way out) in the
middle of writing a note's file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.cli import env_with_src
from tests.support.vaults import by_title, opened

KILL_AT_RENAME = """
import os, signal, sys
from pathlib import Path
from noted.models import NotePatch
from noted.store.vault import VaultStore

store = VaultStore.open(Path(sys.argv[1]), Path(sys.argv[2]))
note = next(m for m in store.list_notes() if m.title == "Plan")
real = os.replace

def replace(src, dst):
    if Path(src).name.startswith(".noted-"):
        os.kill(os.getpid(), signal.SIGKILL)  # its temporary file written, not yet renamed
    real(src, dst)

os.replace = replace
store.update_note(note.id, NotePatch(body="# Plan\\n\\nSecond step.\\n"), actor="user")
"""


def test_the_temporary_file_of_a_write_killed_half_way_is_removed_at_the_next_open(tmp_path: Path) -> None:
    """It stayed in the folder for good: a full copy of the note that ``git status`` showed."""
    vault, profile = tmp_path / "notes", tmp_path / "profile"
    (vault / "projects").mkdir(parents=True)
    (vault / "projects" / "plan.md").write_text("# Plan\n\nFirst step.\n")
    with opened(vault, profile) as store:
        plan = by_title(store, "Plan")
        store.trash_note(plan, actor="user")
        store.restore_note(plan, actor="user")
    live = vault / f".noted-{os.getpid()}-0123abcd.tmp"  # a write under way in a live process
    live.write_text("not done yet\n")
    killed = subprocess.run(
        [sys.executable, "-c", KILL_AT_RENAME, str(vault), str(profile)], env=env_with_src(), check=False
    )
    assert killed.returncode == -9
    assert len(list(vault.glob("projects/.noted-*.tmp"))) == 1  # left by the killed write
    (vault / ".trash").mkdir(exist_ok=True)
    (vault / ".trash" / ".noted-999999999-0123abcd.tmp").write_text("a dead process's\n")
    with opened(vault, profile) as store:
        assert store.get_note(plan).body == "# Plan\n\nFirst step.\n"
    assert list(vault.glob("projects/.noted-*")) == [] and list(vault.glob(".trash/.noted-*")) == []
    assert live.read_text() == "not done yet\n"  # another process's write under way: left alone

"""Files noted writes outside a store (the config file, an MCP token, a saved copy of an
attachment) when a kill stops the write half way: nothing half-written under the final name, and
no temporary file left for good (the next write in that folder removes it)."""

from __future__ import annotations

import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import tomlkit
from tests.support.cli import env_with_src

from noted.mcp.token import create
from noted.settings.tomlfile import read_document, write_document
from noted.store.sqlite import SqliteStore
from noted.ui.attachment_files import save_resource
from noted.ui.crash import Unsaved, rescue

KILL_AT_RENAME = """
import os, signal, sys, tomlkit
from pathlib import Path
from noted.mcp.token import create
from noted.settings.tomlfile import write_document

target = Path(sys.argv[1])

def replace(src, dst):
    os.kill(os.getpid(), signal.SIGKILL)  # the temporary file written, not yet renamed

os.replace = replace
if sys.argv[2] == "config":
    write_document(target, tomlkit.parse('[ui]\\ntheme = "nord"\\n'))
else:
    create(target, overwrite=True)
"""


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith((".tmp", ".partial")))


def _run(*argv: str) -> int:
    return subprocess.run([sys.executable, "-c", *argv], env=env_with_src(), check=False).returncode


@pytest.mark.parametrize("what", ["config", "token"])
def test_a_file_write_killed_before_its_rename_leaves_no_temporary_file_after_the_next(
    tmp_path: Path, what: str
) -> None:
    """``.config.toml.*.tmp`` and ``.<token>.*.tmp`` (0600, a token in it) stayed for good. Not
    vacuous: the first assertions check the kill left one, and the file as it was."""
    target = tmp_path / ("config.toml" if what == "config" else "mcp-token")
    if what == "config":
        write_document(target, tomlkit.parse('[ui]\ntheme = "dark"\n'))
    else:
        create(target)
    before = target.read_text()
    assert _run(KILL_AT_RENAME, str(target), what) == -signal.SIGKILL
    assert len(_leftovers(tmp_path)) == 1 and target.read_text() == before
    if what == "config":
        write_document(target, tomlkit.parse('[ui]\ntheme = "light"\n'))
        assert read_document(target)["ui"]["theme"] == "light"
    else:
        token = create(target, overwrite=True)
        assert target.read_text() == token + "\n" and stat.S_IMODE(target.stat().st_mode) == 0o600
    assert _leftovers(tmp_path) == []


KILL_IN_SAVE = """
import resource, signal, sys
from pathlib import Path
from noted.store.sqlite import SqliteStore
from noted.ui.attachment_files import save_resource
from noted.ui.crash import Unsaved, rescue

store = SqliteStore.open(Path(sys.argv[1]) / "notes.db", Path(sys.argv[1]) / "resources")
file_id = store.list_resources()[0].id
signal.signal(signal.SIGXFSZ, signal.SIG_DFL)  # (Python ignores it: the write would raise)
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))  # a write past 4 KB ends the process
save_resource(store, file_id, Path(sys.argv[2]), overwrite=False)
"""


def test_a_saved_copy_killed_half_way_leaves_nothing_under_its_name(tmp_path: Path) -> None:
    """*Save as* a new file wrote straight to the chosen name: a kill left a truncated copy there,
    which the person took for the attachment. Not vacuous: the child dies of the size limit in
    the middle of the 100 KB write (SIGXFSZ), as its exit status shows."""
    data = bytes(range(256)) * 400
    store = SqliteStore.open(tmp_path / "notes.db", tmp_path / "resources")
    try:
        store.add_resource(data, filename="photo.png", mime="image/png", title="photo", actor="user")
        out = tmp_path / "out"
        out.mkdir()
        assert _run(KILL_IN_SAVE, str(tmp_path), str(out / "photo.png")) == -signal.SIGXFSZ
        assert not (out / "photo.png").exists()
        file_id = store.list_resources()[0].id
        assert save_resource(store, file_id, out / "photo.png", overwrite=False) == len(data)
        assert (out / "photo.png").read_bytes() == data and _leftovers(out) == []
    finally:
        store.close()


KILL_IN_RESCUE = """
import resource, signal, sys
from pathlib import Path
from noted.ui.crash import Unsaved, rescue

signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
rescue(Path(sys.argv[1]), Unsaved("n1", "Plan", "x" * 100_000))
"""


def test_a_rescue_killed_half_way_leaves_no_cut_text_in_rescued(tmp_path: Path) -> None:
    """The unsaved text kept on SIGTERM went straight into ``rescued/NAME.md``: a kill after it
    (a second signal, a service manager's timeout) left 4 KB of 100 there, taken for the text.
    Not vacuous: the child dies of the size limit in the middle of the write."""
    assert _run(KILL_IN_RESCUE, str(tmp_path)) == -signal.SIGXFSZ
    assert not list((tmp_path / "rescued").glob("*.md"))
    kept = rescue(tmp_path, Unsaved("n1", "Plan", "Second try.\n"))
    assert kept is not None and kept.read_text() == "# Plan\n\nSecond try.\n"
    assert _leftovers(tmp_path / "rescued") == []

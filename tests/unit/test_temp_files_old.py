"""Temporary files that versions of noted before ``noted.tempfiles`` left when killed half way
through a write: those whose names are unambiguously noted's go at the next start (a profile) or
scan (a Markdown folder); files that only look like them, a person's, stay."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from tests.support.cli import run_noted

HOUR = 3600


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid  # gone (reused by then only by chance: the test would fail, not pass)


def _put(folder: Path, name: str, *, age: float = 2 * HOUR) -> Path:
    path = folder / name
    path.write_text("left by a kill\n")
    then = time.time() - age
    os.utime(path, (then, then))
    return path


def _names(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir() if p.is_file()}


def test_an_older_versions_temporary_files_in_a_profile_go_at_the_next_start(tmp_path: Path) -> None:
    """Before noted.tempfiles the config file was written through ``.config.toml.XXXXXXXX.tmp``
    (mkstemp) and the MCP client tokens through ``.mcp-clients.json.XXXXXXXX.tmp``: a kill left
    them (0600, tokens inside) for good. Not vacuous: they are there before the start."""
    profile = tmp_path / "profile"
    assert run_noted(profile, "notes").returncode == 0
    old = {
        _put(profile, ".config.toml.k3_x9a0q.tmp").name,
        _put(profile, ".mcp-clients.json.0badf00d.tmp").name,
        _put(profile, f".noted-{_dead_pid()}-0123abcd.tmp").name,
    }
    kept = {
        _put(profile, ".config.toml.tmp").name,  # not of noted's pattern
        _put(profile, ".notes.txt.0badf00d.tmp").name,  # of a file noted never wrote that way
        _put(profile, ".config.toml.abcd1234.tmp", age=60).name,  # a minute old: a write under way
    }
    assert old <= _names(profile)
    assert run_noted(profile, "notes").returncode == 0
    assert not old & _names(profile) and kept <= _names(profile)


def test_an_older_versions_temporary_files_in_a_markdown_folder_go_at_its_scan(tmp_path: Path) -> None:
    """A note's file was written through ``.NAME.noted-PID.tmp`` until names were made short, and
    an attachment saved from the app through ``.NAME.noted-partial`` and then
    ``.noted-XXXXXXXX.partial``: each stayed in the folder after a kill. Not vacuous: the
    current naming's sweep leaves all three."""
    vault, profile = tmp_path / "vault", tmp_path / "profile"
    (vault / "Work").mkdir(parents=True)
    (vault / "Work" / "a.md").write_text("# a\n")
    assert run_noted(profile, "--vault", str(vault), "notes").returncode == 0
    dead = _dead_pid()
    old = {
        _put(vault / "Work", f".a.md.noted-{dead}.tmp").name,
        _put(vault / "Work", ".photo.png.noted-partial").name,
        _put(vault / "Work", ".noted-0badf00d.partial").name,
    }
    kept = {
        _put(vault / "Work", ".config.toml.abcd1234.tmp").name,  # a profile's name, not a folder's
        _put(vault / "Work", f".a.md.noted-{os.getpid()}.tmp").name,  # a live process's
        _put(vault / "Work", ".noted-0badf00e.partial", age=60).name,  # a save under way
    }
    (vault / "Work" / "b.md").write_text("# b\n")  # a change, so the next start scans the folder
    assert run_noted(profile, "--vault", str(vault), "notes").returncode == 0
    assert not old & _names(vault / "Work") and kept <= _names(vault / "Work")

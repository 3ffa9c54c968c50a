"""Ctrl+C at any point of a command gives one line and exit 130, never a stack trace.

A Ctrl+C in the first half second or so (more on a loaded machine) printed some 30 lines of
traceback: the console script's ``from noted.cli import main`` loaded the services, and ``main``
caught ``KeyboardInterrupt`` only once the arguments were parsed, which loads every subcommand.
A signal sent after a delay would land in that window only on some machines, so the child raises
the ``KeyboardInterrupt`` a Ctrl+C raises at a chosen point instead: when a given function or
module starts running.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.support.cli import env_with_src, run_noted
from tests.support.polling import scaled

from noted.store.transfer.importer import SLICE_NOTES

CONSOLE_SCRIPT = """\
import sys

def ctrl_c_at(frame, event, arg):
    global LEFT
    if event == "call" and (frame.f_globals.get("__name__"), frame.f_code.co_name) == WHERE:
        LEFT -= 1
        if LEFT == 0:
            sys.setprofile(None)
            raise KeyboardInterrupt

WHERE, LEFT = (sys.argv[1], sys.argv[2]), int(sys.argv[3])
del sys.argv[1:4]
sys.setprofile(ctrl_c_at)
from noted.cli import main  # what the console script that pip writes runs
sys.exit(main())
"""
"""The console script, given first where Ctrl+C lands: a module, a function in it, its Nth call."""


def interrupted(
    profile: Path, module: str, function: str, nth: int, *args: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", CONSOLE_SCRIPT, module, function, str(nth), "--profile", str(profile), *args],
        capture_output=True,
        text=True,
        env=env_with_src(),
        timeout=scaled(300),
        check=False,
    )


@pytest.mark.parametrize(
    ("module", "function"),
    [
        ("noted.services", "<module>"),  # loading the services
        ("noted.cli", "parser_and_commands"),  # building the parser
        ("noted.services", "open"),  # opening the profile, within the command
    ],
)
def test_ctrl_c_anywhere_is_one_line(tmp_path: Path, module: str, function: str) -> None:
    profile = tmp_path / "profile"
    assert run_noted(profile, "init").returncode == 0
    done = interrupted(profile, module, function, 1, "notes")
    # The point is reached in every case (else the notes would be listed, exit 0).
    assert (done.returncode, done.stderr, done.stdout) == (130, "noted: interrupted\n", "")


def test_ctrl_c_in_an_import_says_how_many_notes_it_kept(tmp_path: Path) -> None:
    """An import stopped by Ctrl+C after its first slice keeps those notes, as a fault does, but
    said only "interrupted": the person could not tell that 500 notes had been added. Not
    vacuous: the Ctrl+C lands while the second slice is written (the 502nd note), and the count
    said is checked against the notes there are."""
    profile, folder = tmp_path / "profile", tmp_path / "Trip"
    folder.mkdir()
    for i in range(SLICE_NOTES + 100):
        (folder / f"day {i}.md").write_text(f"Day {i}.\n", encoding="utf-8")
    assert run_noted(profile, "init").returncode == 0

    done = interrupted(
        profile, "noted.store.transfer.importer", "_apply", SLICE_NOTES + 2, "import", str(folder)
    )

    assert (done.returncode, done.stdout) == (130, "")
    assert done.stderr == (
        f"noted: interrupted; the import stopped after {SLICE_NOTES} notes of {SLICE_NOTES + 100}, each kept "
        "whole: import the folder again to finish it (nothing is duplicated)\n"
    )
    kept = run_noted(profile, "--json", "notes", "--notebook", "Trip")
    assert len(json.loads(kept.stdout)) == SLICE_NOTES

"""Ctrl+C at any point of a command gives one line and exit 130, never a stack trace.

A Ctrl+C in the first half second or so (more on a loaded machine) printed some 30 lines of
traceback: the console script's ``from noted.cli import main`` loaded the services, and ``main``
caught ``KeyboardInterrupt`` only once the arguments were parsed, which loads every subcommand.
A signal sent after a delay would land in that window only on some machines, so the child raises
the ``KeyboardInterrupt`` a Ctrl+C raises at a chosen point instead: when a given function or
module starts running.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tests.support.cli import env_with_src, run_noted
from tests.support.polling import scaled

CONSOLE_SCRIPT = """\
import sys

def ctrl_c_at(frame, event, arg):
    if event == "call" and (frame.f_globals.get("__name__"), frame.f_code.co_name) == WHERE:
        sys.setprofile(None)
        raise KeyboardInterrupt

WHERE = (sys.argv[1], sys.argv[2])
del sys.argv[1:3]
sys.setprofile(ctrl_c_at)
from noted.cli import main  # what the console script that pip writes runs
sys.exit(main())
"""


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
    done = subprocess.run(
        [sys.executable, "-c", CONSOLE_SCRIPT, module, function, "--profile", str(profile), "notes"],
        capture_output=True,
        text=True,
        env=env_with_src(),
        timeout=scaled(300),
        check=False,
    )
    # The point is reached in every case (else the notes would be listed, exit 0).
    assert (done.returncode, done.stderr, done.stdout) == (130, "noted: interrupted\n", "")

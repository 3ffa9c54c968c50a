"""Open a file or URL with the system's program for it (``xdg-open``, ``open``, ``start``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from noted.errors import UnavailableError


def system_opener() -> list[str] | None:
    """The command that opens a file with its default program here, or None when there is none."""
    if sys.platform == "darwin":
        return ["open"]
    if sys.platform == "win32":
        return ["cmd", "/c", "start", ""]
    found = shutil.which("xdg-open")
    return [found] if found else None


def open_with_system(target: str) -> None:
    """Start the system's program for ``target`` and return at once (call it from a worker).

    Raises:
        UnavailableError: no opener on this machine (e.g. a server reached over SSH); the message
            names the file so the person can fetch it.
    """
    command = system_opener()
    if command is None:
        raise UnavailableError(
            f"no program to open files here (xdg-open is missing); the file is {target}",
            hint="copy it to a machine with a desktop, or install xdg-utils",
        )
    # Detached and silent: the opener's chatter must not draw over the app.
    subprocess.Popen(
        [*command, target],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=os.name == "posix",
    )

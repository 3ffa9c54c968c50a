"""The start-up figure in ``noted.log``: how long the app took to show its first notes.

Start-up time is a promise of the app, so each run logs it: from the import of ``noted``, from
the start of the process (where ``/proc`` says), and the CPU it took. ``NoteList`` calls this
when the first frame with notes is painted.
"""

from __future__ import annotations

import logging
import os

import noted

log = logging.getLogger("noted.ui.widgets.note_list")  # the logger this line has always come from


def log_ready(painted: float, cpu: float, age: float | None) -> None:
    """Log when the first notes were painted (``painted``: ``time.perf_counter()``; ``cpu``:
    ``time.process_time()``; ``age``: the process's age then, from ``process_age``)."""
    log.info(
        "ready: the first notes were on screen %.0f ms after noted was imported, %s after the process "
        "started (%.0f ms of CPU)",
        (painted - noted.STARTED) * 1000,
        "?" if age is None else f"{age * 1000:.0f} ms",
        cpu * 1000,
    )


def process_age() -> float | None:
    """Seconds since this process started (to a hundredth), where /proc says; None elsewhere."""
    try:
        with open("/proc/self/stat", encoding="ascii") as stat, open("/proc/uptime", encoding="ascii") as up:
            started = int(stat.read().rsplit(")", 1)[1].split()[19])  # field 22: start time in clock ticks
            return float(up.read().split()[0]) - started / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None

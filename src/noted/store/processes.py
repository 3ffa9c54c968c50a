"""Which process this is, and whether another still runs: for the claims a process leaves in a
profile (the indexing lease, a proposal being applied), so that one a process left when it was
killed is known at once on this machine rather than after a time-out.

A process is named by its host, the boot it runs in, its pid and its start time: a pid reused by a
later process, or after a reboot, names another. A process of another host cannot be checked, so
it is never said to be gone (its claim lapses by time alone).
"""

from __future__ import annotations

import functools
import json
import os
import socket


def process_start(pid: int) -> int | None:
    """When process ``pid`` started, in clock ticks since boot (Linux), or None when unknown/gone.

    With the pid this names one process: a pid reused by a later process has another start time.
    """
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: fields after it follow the last ')'.
    fields = stat[stat.rfind(b")") + 2 :].split()
    if fields[:1] in ([b"Z"], [b"X"]):  # killed, not yet reaped by its parent: gone all the same
        return None
    try:
        return int(fields[19])  # field 22, starttime
    except (IndexError, ValueError):
        return None


def alive(pid: int, started: int | None) -> bool:
    """Whether the process ``pid`` started at ``started`` still runs on this host."""
    if os.path.isdir("/proc/self"):
        now = process_start(pid)
        return now is not None and (started is None or now == started)
    try:  # no /proc (macOS): the pid alone
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@functools.cache
def boot_id() -> str:
    """This boot of the machine ('' where the system does not say)."""
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as f:
            return f.read().strip()
    except OSError:
        return ""


def this_process() -> str:
    """This process, named as ``gone`` reads it."""
    pid = os.getpid()
    return json.dumps(
        {"host": socket.gethostname(), "boot": boot_id(), "pid": pid, "started": process_start(pid)},
        sort_keys=True,
    )


def gone(named: str) -> bool:
    """Whether the process ``this_process`` named (in it or another process) is known to have
    stopped: it ran on this host, and in another boot, or it runs no more. False for one of another
    host, and for a name that cannot be read (an older noted's claim): only time tells then."""
    try:
        record = json.loads(named)
    except ValueError:
        return False
    if not isinstance(record, dict) or record.get("host") != socket.gethostname():
        return False
    pid, started, boot = record.get("pid"), record.get("started"), record.get("boot")
    if not isinstance(pid, int):
        return False
    if boot and boot_id() and boot != boot_id():
        return True
    return not alive(pid, started if isinstance(started, int) else None)

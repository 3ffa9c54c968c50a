"""Asking Joplin to sync: run the command the person configured (``joplin.syncCommand``).

Joplin's Data API has no call that starts a sync and does not say when the last one ran; the
terminal app syncs with ``joplin sync`` (the desktop app syncs on its own, every few minutes). So
noted runs the configured command (for the terminal app on a server, ``joplin sync``; with a
profile, ``joplin --profile ~/.config/joplin sync``), reports Joplin's own summary line, and keeps
the time the last run finished, which is the "last sync" noted can show. noted never writes the
sync target itself: the command is Joplin's.
"""

from __future__ import annotations

import shlex
import subprocess

from noted.errors import ConfigError, UnavailableError
from noted.models import now_ms
from noted.store.sqlite.db import Database, get_meta, set_meta
from noted.store.sync import SYNC_TIMEOUT, SyncRun

LAST_SYNC_KEY = "joplin.sync.last"

__all__ = ["LAST_SYNC_KEY", "SYNC_TIMEOUT", "JoplinSync", "SyncRun", "last_sync", "run_sync"]


def run_sync(command: str, db: Database, *, timeout: float = SYNC_TIMEOUT) -> SyncRun:
    """Run ``command`` (split like a shell would, never through one) and record when it finished.

    Raises:
        ConfigError: no command is set, or it cannot be parsed.
        UnavailableError: the command is missing, failed, or took longer than ``timeout``.
    """
    if not command.strip():
        raise ConfigError(
            "no sync command is set: Joplin's API cannot start a sync",
            hint='`noted config set joplin.syncCommand "joplin sync"` for the terminal app',
        )
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise ConfigError(f"cannot read joplin.syncCommand ({exc})") from exc
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except FileNotFoundError as exc:
        raise UnavailableError(f"cannot run the sync command: {argv[0]} is not installed") from exc
    except subprocess.TimeoutExpired as exc:
        raise UnavailableError(f"the sync command did not finish within {timeout:.0f} s") from exc
    lines = [line.strip() for line in (done.stdout + "\n" + done.stderr).splitlines() if line.strip()]
    summary = lines[-1] if lines else ""
    if done.returncode != 0:
        raise UnavailableError(f"the sync command failed (exit {done.returncode}): {summary or 'no output'}")
    run = SyncRun(summary, now_ms())
    with db.write() as conn:
        set_meta(conn, LAST_SYNC_KEY, str(run.finished))
    return run


def last_sync(db: Database) -> int | None:
    """When the sync command last finished from this profile (ms), or None if it never ran."""
    with db.read() as conn:
        finished = get_meta(conn, LAST_SYNC_KEY)
    return int(finished) if finished else None


class JoplinSync:
    """``Store.sync`` of the Joplin store: the configured command, its last run kept in the sidecar."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def run(self, command: str, *, timeout: float = SYNC_TIMEOUT) -> SyncRun:
        """Run ``command`` (see ``run_sync``)."""
        return run_sync(command, self._db, timeout=timeout)

    def last(self) -> int | None:
        """When the sync command last finished from this profile (ms), or None if it never ran."""
        return last_sync(self._db)

"""A lease kept in ``meta``: one process at a time holds a claim, and a dead holder loses it.

The lease is a row in ``meta`` under a key of its own, naming its holder (label, host, pid and
the process's start time) and when it lapses. The holder renews it from a heartbeat thread that
does not wait for the work it guards, so work longer than ``ttl_ms`` does not let it lapse.

A holder that is gone is known at once when it ran on this host (its pid is no longer alive, or
now belongs to a process started at another time); one on another host lapses after ``ttl_ms``.
Taking, renewing and giving it up are each one short write transaction, so two processes never
both believe they hold it. The indexer holds one (``noted.indexer.lease``), and a chat answer
holds one per conversation (``noted.store.sqlite.chats.SqliteChats.run_lease``).
"""

from __future__ import annotations

import json
import os
import socket
import threading
import uuid
from dataclasses import dataclass
from typing import Any

import apsw

from noted.errors import NotedError
from noted.models import now_ms
from noted.store.processes import alive, process_start
from noted.store.sqlite.db import Database, get_meta, set_meta

DEFAULT_TTL_MS = 15_000


class LeaseLost(NotedError):
    """This process no longer holds its lease: another one took it (ours had lapsed)."""


@dataclass(frozen=True, slots=True)
class LeaseHolder:
    """Who holds the lease: what they call themselves and which process they are."""

    label: str
    host: str
    pid: int

    def describe(self) -> str:
        """Such as ``the app (pid 4242)``, or with the host when it is another machine."""
        where = "" if self.host == socket.gethostname() else f" on {self.host}"
        return f"{_LABELS.get(self.label, self.label)} (pid {self.pid}{where})"


_LABELS = {"tui": "the app", "mcp": "the MCP server"}


class Lease:
    """One process's claim on the lease kept under ``key`` in a database's ``meta``."""

    def __init__(self, db: Database, key: str, *, ttl_ms: int = DEFAULT_TTL_MS, label: str = "") -> None:
        self.db = db
        self.key = key
        self.ttl_ms = ttl_ms
        self.host = socket.gethostname()
        self.pid = os.getpid()
        self.owner = f"{self.host}:{self.pid}:{uuid.uuid4().hex[:8]}"
        self.label = label or "noted"
        self.held = False
        self._beat: threading.Thread | None = None
        self._stop_beat = threading.Event()

    def acquire(self) -> bool:
        """Take or renew the lease; True when this process holds it afterwards."""
        with self.db.write() as conn:
            current = self._read(conn)
            if current and current.get("owner") != self.owner and _live(current):
                self.held = False
                return False
            record = {
                "owner": self.owner,
                "label": self.label,
                "host": self.host,
                "pid": self.pid,
                "started": process_start(self.pid),
                "expires": now_ms() + self.ttl_ms,
                "renewed": now_ms(),
            }
            set_meta(conn, self.key, json.dumps(record))
        self.held = True
        return True

    def check(self, conn: apsw.Connection) -> None:
        """Inside a write transaction: raise ``LeaseLost`` unless this process holds the lease."""
        current = self._read(conn)
        if not current or current.get("owner") != self.owner:
            self.held = False
            raise LeaseLost(f"another process took the lease {self.key}")

    def release(self) -> None:
        """Stop the heartbeat and give the lease up if this process holds it."""
        self.stop_heartbeat()
        with self.db.write() as conn:
            current = self._read(conn)
            if current and current.get("owner") == self.owner:
                set_meta(conn, self.key, None)
        self.held = False

    def start_heartbeat(self) -> None:
        """Renew the lease every third of its lifetime from a daemon thread, until released.

        The model releases the GIL while it runs, so the beat goes on through the longest batch.
        A beat that finds the lease taken leaves ``held`` False; the indexer stops at its next check.
        """
        if self._beat is not None:
            return
        self._stop_beat.clear()
        self._beat = threading.Thread(target=self._heartbeat, name=f"noted-lease-{self.key}", daemon=True)
        self._beat.start()

    def stop_heartbeat(self) -> None:
        """End the heartbeat thread (the lease itself stays until it lapses or is released)."""
        self._stop_beat.set()
        if self._beat is not None and self._beat is not threading.current_thread():
            self._beat.join(5)
        self._beat = None

    def _heartbeat(self) -> None:
        while not self._stop_beat.wait(self.ttl_ms / 3000):
            if not self.held:
                continue
            try:
                with self.db.write() as conn:
                    current = self._read(conn)
                    if not current or current.get("owner") != self.owner:
                        self.held = False
                        continue
                    current["expires"] = now_ms() + self.ttl_ms
                    current["renewed"] = now_ms()
                    set_meta(conn, self.key, json.dumps(current))
            except apsw.Error:  # busy or closing: the next beat tries again, well before it lapses
                continue

    def holder(self) -> str | None:
        """A description of the live holder (such as ``the app (pid 42)``), or None when nobody holds it."""
        found = self.current()
        return None if found is None else found.describe()

    def current(self) -> LeaseHolder | None:
        """The live holder (this process included), or None when nobody holds it."""
        with self.db.read() as conn:
            current = self._read(conn)
        if not current or not _live(current):
            return None
        return LeaseHolder(
            str(current.get("label", "?")), str(current.get("host", "?")), int(current.get("pid", 0))
        )

    def stalled(self) -> tuple[LeaseHolder, float] | None:
        """A holder whose lease lapsed although its process is still there (paused, or stuck), with
        the seconds since it last renewed it; None when the lease binds, was given up, or its
        process is gone (or runs on another host, where that cannot be told)."""
        with self.db.read() as conn:
            current = self._read(conn)
        if not current or _live(current) or current.get("host") != self.host:
            return None
        pid, started = current.get("pid"), current.get("started")
        if not isinstance(pid, int) or not alive(pid, started if isinstance(started, int) else None):
            return None
        holder = LeaseHolder(str(current.get("label", "?")), self.host, pid)
        renewed = int(current.get("renewed") or int(current.get("expires", 0)) - self.ttl_ms)
        return holder, max(0.0, (now_ms() - renewed) / 1000)

    def _read(self, conn: apsw.Connection) -> dict[str, Any] | None:
        raw = get_meta(conn, self.key)
        if raw is None:
            return None
        try:
            value = json.loads(raw)
        except ValueError:
            return None
        return value if isinstance(value, dict) else None


def _live(record: dict[str, Any]) -> bool:
    """Whether a lease record still binds: not lapsed, and its process not known to be gone."""
    if int(record.get("expires", 0)) <= now_ms():
        return False
    pid = record.get("pid")
    if record.get("host") == socket.gethostname() and isinstance(pid, int):
        started = record.get("started")
        return alive(pid, started if isinstance(started, int) else None)
    return True

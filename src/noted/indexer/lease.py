"""The indexing lease: only one process at a time indexes a profile.

The lease is a row in ``meta`` naming its holder and when it lapses. The holder renews it with a
heartbeat; a holder that dies lets it lapse, and another process takes over after ``ttl_ms``.
Taking, renewing and giving it up are each one short write transaction, so two processes never
both believe they hold it.
"""

from __future__ import annotations

import json
import os
import socket
import uuid
from typing import Any

import apsw

from noted.indexer.vectors import get_meta, set_meta
from noted.models import now_ms
from noted.store.sqlite.db import Database

META_LEASE = "index.lease"
DEFAULT_TTL_MS = 15_000


class Lease:
    """One process's claim on the indexing lease of a database."""

    def __init__(self, db: Database, *, ttl_ms: int = DEFAULT_TTL_MS, label: str = "") -> None:
        self.db = db
        self.ttl_ms = ttl_ms
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.label = label or "noted"
        self.held = False

    def acquire(self) -> bool:
        """Take or renew the lease; True when this process holds it afterwards."""
        with self.db.write() as conn:
            now = now_ms()
            current = self._read(conn)
            if current and current.get("owner") != self.owner and int(current.get("expires", 0)) > now:
                self.held = False
                return False
            record = {"owner": self.owner, "label": self.label, "expires": now + self.ttl_ms}
            set_meta(conn, META_LEASE, json.dumps(record))
        self.held = True
        return True

    def release(self) -> None:
        """Give the lease up if this process holds it."""
        with self.db.write() as conn:
            current = self._read(conn)
            if current and current.get("owner") == self.owner:
                set_meta(conn, META_LEASE, None)
        self.held = False

    def holder(self) -> str | None:
        """A description of the live holder (label and owner), or None when nobody holds it."""
        with self.db.read() as conn:
            current = self._read(conn)
        if not current or int(current.get("expires", 0)) <= now_ms():
            return None
        return f"{current.get('label', '?')} ({current.get('owner', '?')})"

    @staticmethod
    def _read(conn: apsw.Connection) -> dict[str, Any] | None:
        raw = get_meta(conn, META_LEASE)
        if raw is None:
            return None
        try:
            value = json.loads(raw)
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

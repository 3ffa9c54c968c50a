"""The indexing lease: only one process at a time indexes a profile.

It is a ``noted.store.sqlite.lease.Lease`` kept under ``index.lease``. The holder renews it from
the lease's heartbeat thread, which does not wait for the model, so a batch that takes longer than
``ttl_ms`` does not let it lapse; the indexer renews it again before every group of chunks and
checks it inside every write, so a process that lost it stops before the next group and never
stores a group another holder may have stored.
"""

from __future__ import annotations

from noted.store.sqlite.db import Database
from noted.store.sqlite.lease import DEFAULT_TTL_MS, LeaseHolder, LeaseLost
from noted.store.sqlite.lease import Lease as MetaLease

META_LEASE = "index.lease"

__all__ = ["DEFAULT_TTL_MS", "META_LEASE", "Lease", "LeaseHolder", "LeaseLost"]


class Lease(MetaLease):
    """One process's claim on the indexing lease of a database."""

    def __init__(self, db: Database, *, ttl_ms: int = DEFAULT_TTL_MS, label: str = "") -> None:
        super().__init__(db, META_LEASE, ttl_ms=ttl_ms, label=label)

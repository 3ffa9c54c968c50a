"""The embedded SQLite backend."""

from __future__ import annotations

from noted.store.sqlite.store import SqliteStore

__all__ = ["SqliteStore"]

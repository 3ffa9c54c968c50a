"""The storage backends a backend-neutral test runs on, opened fresh for each test.

Tests take the ``backend_store`` fixture (see ``tests/unit/test_tools_manage.py``), parametrized by
``BACKENDS``. Only the embedded SQLite store is here yet; the Joplin backend joins by adding its
name to ``BACKENDS`` and a branch to ``open_backend`` that starts the real Joplin script in
``../shared/`` and yields its store.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from noted.store.protocol import Store
from noted.store.sqlite import SqliteStore

BACKENDS = ("sqlite",)


@contextmanager
def open_backend(name: str, root: Path) -> Iterator[Store]:
    """A new, empty store of backend ``name`` under ``root``, closed afterwards."""
    if name == "sqlite":
        store = SqliteStore.open(root / "notes.db", root / "resources")
    else:  # pragma: no cover - a backend named in BACKENDS without a branch here
        raise ValueError(f"no test backend named {name!r}")
    try:
        yield store
    finally:
        store.close()

"""The storage backends a backend-neutral test runs on, opened fresh for each test.

Tests take the ``backend_store`` fixture (see ``tests/unit/test_tools_manage.py``), parametrized by
``BACKENDS``: the embedded SQLite store, a Markdown folder (``store.vault``), and a real Joplin started once per run through the
script in ``../shared/`` (emptied before each test; skipped, saying why, where it cannot run).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

# Imported at collection, before the isolation fixture moves HOME: it locates Joplin's cache there.
from tests.support.joplin import shared_server

from noted.search.keyword import HasDatabase
from noted.store.protocol import HasFileLinks, Store
from noted.store.sqlite import SqliteStore
from noted.store.vault import VaultStore

BACKENDS = ("sqlite", "joplin", "vault")


class LocalStore(Store, HasDatabase, Protocol):
    """A store of either backend, with the SQLite database the search and the index use (the
    SQLite store's own, or the Joplin store's sidecar)."""


def profile_dir(name: str, root: Path) -> Path:
    """The profile folder of backend ``name``'s store under ``root``: ``root``, but beside the
    Markdown folder ``root/vault`` for that backend (a folder inside its profile is refused)."""
    return root / "profile" if name == "vault" else root


@contextmanager
def open_backend(name: str, root: Path) -> Iterator[LocalStore]:
    """A new, empty store of backend ``name`` under ``root``, closed afterwards."""
    store: LocalStore
    if name == "sqlite":
        store = SqliteStore.open(root / "notes.db", root / "resources")
    elif name == "joplin":
        server = shared_server(root.parent)
        server.wipe()
        root.mkdir(parents=True, exist_ok=True)
        store = server.store(root)
    elif name == "vault":
        (root / "vault").mkdir(parents=True, exist_ok=True)
        store = VaultStore.open(root / "vault", profile_dir(name, root))
    else:  # pragma: no cover - a backend named in BACKENDS without a branch here
        raise ValueError(f"no test backend named {name!r}")
    try:
        yield store
    finally:
        store.close()


def body_with_ids(store: Store, note_id: str) -> str:
    """The note's body with a Markdown folder's links to its attachment files written back as
    ``:/id``, the form the other backends keep (the folder's files link by relative path)."""
    body = store.get_note(note_id).body
    return store.body_with_ids(note_id, body) if isinstance(store, HasFileLinks) else body

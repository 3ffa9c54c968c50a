"""Connections to the profile's SQLite database through apsw: one per thread, WAL, busy timeout.

Reads run in autocommit mode or inside ``read()`` (a deferred transaction, so several statements
see one snapshot); writes run inside ``write()``, which takes the write lock at once
(``BEGIN IMMEDIATE``) so two processes queue instead of failing half-way. The busy timeout makes a
writer wait for the other process's short transaction rather than give up.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import logging
import threading
from collections.abc import Iterator
from pathlib import Path

import apsw

from noted.errors import ProfileError
from noted.store.sqlite.schema import MIGRATIONS

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 15_000


def _load_vec(conn: apsw.Connection) -> str | None:
    """Load sqlite-vec into ``conn``; return why it could not be loaded, or None."""
    try:
        conn.enable_load_extension(True)
        conn.load_extension(_vec_path())
        conn.enable_load_extension(False)
    except Exception as exc:  # any failure leaves keyword search working
        return f"{type(exc).__name__}: {exc}"
    return None


@functools.cache
def _vec_path() -> str:
    """The sqlite-vec library's path, found without importing its package (which imports numpy)."""
    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or spec.origin is None:
        raise ImportError("the sqlite-vec package is not installed (pip install sqlite-vec)")
    return str(Path(spec.origin).parent / "vec0")


class Database:
    """The profile's database file, with one apsw connection per thread."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()
        self._lock = threading.Lock()
        self._all: list[apsw.Connection] = []
        self._closed = False
        self.vec_error: str | None = None
        """Why sqlite-vec could not be loaded (None when it loaded)."""
        self._migrate()

    # Connections -------------------------------------------------------------------------
    def connection(self) -> apsw.Connection:
        """This thread's connection, opened on first use."""
        conn: apsw.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            if self._closed:
                raise ProfileError("the notebook is closed")
            conn = self._open()
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    def _open(self) -> apsw.Connection:
        try:
            conn = apsw.Connection(str(self.path))
            conn.set_busy_timeout(BUSY_TIMEOUT_MS)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            # Reading pages through a memory map cuts the CPU of scans (broad searches) 2-4x.
            conn.execute("PRAGMA mmap_size=268435456")
            conn.execute("PRAGMA foreign_keys=OFF")
        except apsw.Error as exc:
            raise ProfileError(
                f"cannot open the notebook database {self.path}: {exc}",
                hint="check that the file is a noted database and that you may write to it",
            ) from exc
        self.vec_error = _load_vec(conn)
        return conn

    def close(self) -> None:
        """Close every thread's connection. Safe to call twice."""
        with self._lock:
            self._closed = True
            conns, self._all = self._all, []
        for conn in conns:
            with contextlib.suppress(apsw.Error):
                conn.close()
        self._local = threading.local()

    # Transactions ------------------------------------------------------------------------
    @contextlib.contextmanager
    def read(self) -> Iterator[apsw.Connection]:
        """A read transaction: every statement inside sees the same snapshot."""
        conn = self.connection()
        if not conn.get_autocommit():  # nested inside a write or read: reuse it
            yield conn
            return
        conn.execute("BEGIN DEFERRED")
        try:
            yield conn
        finally:
            conn.execute("COMMIT")

    @contextlib.contextmanager
    def write(self) -> Iterator[apsw.Connection]:
        """A write transaction that holds the write lock from its first statement.

        Inside ``batch()`` it becomes a savepoint of the batch's transaction, so one failed
        operation is undone alone and the batch goes on.
        """
        conn = self.connection()
        if getattr(self._local, "batch", False):
            with conn:  # apsw: a savepoint, released on success, rolled back on error
                yield conn
            return
        if not conn.get_autocommit():
            raise RuntimeError("write transactions do not nest")
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        else:
            conn.execute("COMMIT")

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Run many writes of this thread in one transaction (an import): all or nothing."""
        if getattr(self._local, "batch", False):
            yield
            return
        with self.write():
            self._local.batch = True
            try:
                yield
            finally:
                self._local.batch = False

    # Schema ------------------------------------------------------------------------------
    def _migrate(self) -> None:
        conn = self.connection()
        try:
            current = self._user_version(conn)
            newest = MIGRATIONS[-1].version
            if current > newest:
                raise ProfileError(
                    f"the notebook database {self.path} was made by a newer noted (schema {current})",
                    hint="upgrade noted to open it",
                )
            for migration in MIGRATIONS:
                if migration.version <= current:
                    continue
                with self.write() as tx:
                    # Another process may have migrated while we waited for the lock.
                    if self._user_version(tx) >= migration.version:
                        continue
                    log.info("migrating %s to schema %d (%s)", self.path, migration.version, migration.name)
                    migration.apply(tx)
                    tx.execute(f"PRAGMA user_version={migration.version}")
        except apsw.NotADBError as exc:
            raise ProfileError(f"{self.path} is not a noted database (not SQLite)") from exc

    @staticmethod
    def _user_version(conn: apsw.Connection) -> int:
        row = conn.execute("PRAGMA user_version").fetchone()
        return int(row[0]) if row else 0

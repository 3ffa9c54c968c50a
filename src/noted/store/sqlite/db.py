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
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import apsw

from noted.errors import ProfileError, disk_full, folder_not_writable
from noted.store.sqlite import faults
from noted.store.sqlite.schema import MIGRATIONS

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 15_000


def get_meta(conn: apsw.Connection, key: str) -> str | None:
    """The value kept under ``key`` in the database's ``meta`` table, or None."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def set_meta(conn: apsw.Connection, key: str, value: str | None) -> None:
    """Keep ``value`` under ``key`` in the ``meta`` table (None: remove the key), inside ``conn``'s
    transaction."""
    if value is None:
        conn.execute("DELETE FROM meta WHERE key = ?", (key,))
        return
    conn.execute(
        "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


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


def _writable(folder: Path) -> bool:
    """True when a file can be made in ``folder`` (tried, since root ignores permission bits but
    not an immutable flag or a read-only mount)."""
    try:
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


def _identity(path: Path) -> tuple[int, int] | None:
    """The device and inode of the file at ``path``, or None when there is none."""
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_dev, info.st_ino


class Database:
    """The profile's database file, with one apsw connection per thread."""

    def __init__(self, path: Path, on_upgrade: Callable[[], None] | None = None) -> None:
        """Open ``path``, bringing its schema up to date; ``on_upgrade`` is called once before an
        existing database's schema is changed (a large notebook then takes a while)."""
        self.path = path
        self._local = threading.local()
        self._lock = threading.Lock()
        self._all: list[apsw.Connection] = []
        self._closed = False
        self.vec_error: str | None = None
        """Why sqlite-vec could not be loaded (None when it loaded)."""
        self.read_only: str | None = None
        """Why the database opened for reading only: ``"folder"`` (its folder cannot be written, so
        WAL's side files cannot be made), ``"full"`` (its disk is full, so they cannot grow) or
        ``"file"`` (notes.db itself); None when writable."""
        self._migrate(on_upgrade)
        self._identity = _identity(path)

    def replaced(self) -> bool:
        """Whether ``path`` no longer names the file opened: deleted (the profile with it), or
        another file put there. Writes would then go to a file nobody can open again."""
        return self._identity is not None and _identity(self.path) != self._identity

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
            with faults.translated(self.path):
                conn = self._connect()
        except apsw.Error as exc:
            raise ProfileError(
                f"cannot open the notebook database {self.path}: {exc}",
                hint="check that the file is a noted database and that you may write to it",
            ) from exc
        self.vec_error = _load_vec(conn)
        add_functions(conn)
        return conn

    def _connect(self) -> apsw.Connection:
        if not self.path.exists() and not _writable(self.path.parent):
            raise folder_not_writable(self.path.parent, f"{self.path.name} cannot be created there")
        conn = apsw.Connection(str(self.path))
        conn.set_busy_timeout(BUSY_TIMEOUT_MS)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()  # reads through the WAL index
        except apsw.CantOpenError:
            conn.close()
            conn = self._open_read_only()
        except (apsw.IOError, apsw.FullError):
            if not faults.nearly_full(self.path.parent):
                raise
            conn.close()
            conn = self._open_on_full_disk()
        else:
            if conn.readonly("main"):
                self.read_only = self.read_only or "file"
        conn.execute("PRAGMA synchronous=NORMAL")
        # Reading pages through a memory map cuts the CPU of scans (broad searches) 2-4x.
        conn.execute("PRAGMA mmap_size=268435456")
        conn.execute("PRAGMA foreign_keys=OFF")
        return conn

    def _open_read_only(self) -> apsw.Connection:
        """A reading connection for a database whose folder cannot be written.

        WAL needs ``-shm`` and ``-wal`` beside the database. When they exist, a read-only open
        uses them; when they cannot be made either, nothing can have written since the last
        writer closed (it removes them), so the file can be read as immutable.
        """
        self.read_only = "folder"
        uri = self.path.absolute().as_uri()
        flags = apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI
        conn = apsw.Connection(f"{uri}?mode=ro", flags=flags)
        try:
            conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()
        except apsw.CantOpenError:
            conn.close()
            conn = apsw.Connection(f"{uri}?mode=ro&immutable=1", flags=flags)
        conn.set_busy_timeout(BUSY_TIMEOUT_MS)
        return conn

    def _open_on_full_disk(self) -> apsw.Connection:
        """A connection that reads a database whose WAL index cannot grow: the disk is full.

        In exclusive locking mode SQLite keeps the WAL index in memory instead of ``-shm``, so the
        notes can still be listed, shown and exported to another disk. It holds the database for
        itself while it is open, which costs nothing here: no other process has it open, or the
        index would exist. Writes are refused at once, as on a read-only profile.
        """
        self.read_only = "full"
        conn = apsw.Connection(str(self.path))
        conn.set_busy_timeout(BUSY_TIMEOUT_MS)
        conn.execute("PRAGMA locking_mode=EXCLUSIVE")
        conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()
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
        with self._faults():
            conn.execute("BEGIN DEFERRED")
            try:
                yield conn
            finally:
                if not conn.get_autocommit():
                    conn.execute("COMMIT")

    @contextlib.contextmanager
    def write(self) -> Iterator[apsw.Connection]:
        """A write transaction that holds the write lock from its first statement.

        Inside ``batch()`` it becomes a savepoint of the batch's transaction, so one failed
        operation is undone alone and the batch goes on. On a database that opened read-only it
        refuses at once, saying why, rather than after the work that was to be written.
        """
        conn = self.connection()
        self._refuse_if_read_only()
        with self._faults():
            if getattr(self._local, "batch", False):
                with self._savepoint(conn):
                    yield conn
                return
            if not conn.get_autocommit():
                raise RuntimeError("write transactions do not nest")
            conn.execute("BEGIN IMMEDIATE")
            self._local.after = {True: [], False: []}
            try:
                yield conn
            except BaseException:
                # SQLite rolls back by itself after some faults (a full disk); a second ROLLBACK
                # would fail and hide the fault that matters.
                if not conn.get_autocommit():
                    conn.execute("ROLLBACK")
                self._run_after(committed=False)
                raise
            else:
                conn.execute("COMMIT")
                self._run_after(committed=True)
            finally:
                self._local.after = None

    def after(self, *, commit: Callable[[], object], rollback: Callable[[], object]) -> None:
        """Have ``commit`` run once this thread's open transaction commits, or ``rollback`` once
        it rolls back as a whole: the file a write of a batch changes goes in with its row, or
        goes away with it (an attachment's new bytes). Outside a batch there is no transaction
        left open: ``commit`` runs at once. What a kill between the commit and ``commit`` must
        not lose is recorded in the transaction too (``noted.store.sqlite.steps``)."""
        after = getattr(self._local, "after", None)
        if after is None or self.connection().get_autocommit():
            commit()
            return
        after[True].append(commit)
        after[False].append(rollback)

    def _run_after(self, *, committed: bool) -> None:
        after, self._local.after = self._local.after or {}, None  # a step may write in turn
        for step in after.get(committed, []):
            try:
                step()
            except Exception:  # the write is settled in the database; what failed is in the log
                log.exception(
                    "a file's step after the batch %s failed", "committed" if committed else "rolled back"
                )

    def _refuse_if_read_only(self) -> None:
        if self.read_only == "full":
            raise disk_full(self.path.parent)
        if self.read_only == "folder":
            raise folder_not_writable(self.path.parent, "no file can be made there")
        if self.read_only == "file":
            raise faults.database_read_only(self.path)

    @contextlib.contextmanager
    def _savepoint(self, conn: apsw.Connection) -> Iterator[None]:
        """One operation of a batch: undone alone when it fails, the batch going on.

        Not apsw's ``with conn``: after a fault that makes SQLite roll back the whole transaction
        (a full disk), apsw reports its own lost savepoint instead of the fault itself.
        """
        if conn.get_autocommit():
            raise ProfileError("an earlier fault undid this batch of writes; nothing of it was kept")
        depth = getattr(self._local, "depth", 0)
        name = f"noted_{depth}"
        conn.execute(f"SAVEPOINT {name}")
        self._local.depth = depth + 1
        try:
            yield
        except BaseException:
            if not conn.get_autocommit():
                conn.execute(f"ROLLBACK TO {name}")
                conn.execute(f"RELEASE {name}")
            raise
        else:
            conn.execute(f"RELEASE {name}")
        finally:
            self._local.depth = depth

    def _faults(self) -> contextlib.AbstractContextManager[None]:
        return faults.translated(self.path, read_only_folder=self.read_only == "folder")

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

    def size(self) -> int:
        """How many bytes the database holds (its pages, free ones included)."""
        with self.read() as conn:
            pages = conn.execute("PRAGMA page_count").fetchone()[0]
            page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        return int(pages) * int(page_size)

    def vacuum(self) -> None:
        """Give the free pages back to the disk (``VACUUM``), then empty the write-ahead log.

        ``VACUUM`` rewrites the file: it waits for other writers like any write, and needs as
        much free space as the database takes.
        """
        conn = self.connection()
        self._refuse_if_read_only()
        with self._faults():
            conn.execute("VACUUM")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    # Schema ------------------------------------------------------------------------------
    def _migrate(self, on_upgrade: Callable[[], None] | None) -> None:
        conn = self.connection()
        with self._faults():
            current = self._user_version(conn)
            newest = MIGRATIONS[-1].version
            if current > newest:
                raise ProfileError(
                    f"the notebook database {self.path} was made by a newer noted (schema {current})",
                    hint="upgrade noted to open it",
                )
            if on_upgrade is not None and 0 < current < newest:
                on_upgrade()
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

    @staticmethod
    def _user_version(conn: apsw.Connection) -> int:
        row = conn.execute("PRAGMA user_version").fetchone()
        return int(row[0]) if row else 0


def add_functions(conn: apsw.Connection) -> None:
    """The SQL functions noted's statements use beyond SQLite's own: ``casefold(text)``, Python's
    case folding, so that a tag or notebook title matches regardless of case in every script
    (``COLLATE NOCASE`` and ``LIKE`` fold the 26 ASCII letters only: "Ünï" and "ünï" were two tags)."""
    conn.create_scalar_function("casefold", _casefold, 1, deterministic=True)


def _casefold(value: str | None) -> str | None:
    return value.casefold() if isinstance(value, str) else value

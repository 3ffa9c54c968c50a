"""``noted index``: build or follow the semantic index from the command line.

``noted index`` brings the index up to date and exits, with a progress bar on stderr;
``--watch`` keeps following changes until Ctrl-C; ``--rebuild`` drops the vectors first;
``noted index status`` says what is indexed and who holds the indexing lease.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING

from noted.cli.args import Subparsers, command
from noted.cli.context import CliContext
from noted.errors import UnavailableError

if TYPE_CHECKING:  # the indexer (and numpy) load only when indexing
    from noted.indexer.engine import Indexer, IndexProgress
    from noted.indexer.lease import Lease

BAR = 30


def register(sub: Subparsers) -> None:
    """Add ``index`` and ``index status``."""
    p = command(sub, "index", cmd_index, "Bring the search-by-meaning index up to date.")
    p.add_argument("--watch", action="store_true", help="keep indexing changes until interrupted")
    p.add_argument("--rebuild", action="store_true", help="drop the index and build it again")
    p.add_argument("action", nargs="?", choices=["status"], help="status: what is indexed, and by whom")


def _bar(progress: IndexProgress) -> str:
    if progress.phase != "scan" or not progress.total:
        return f"following changes · {progress.chunks_per_second:,.0f} chunks/s"
    filled = int(BAR * progress.done / progress.total)
    left = "" if progress.seconds_left is None else f" · {progress.seconds_left:,.0f} s left"
    return (
        f"[{'#' * filled}{'.' * (BAR - filled)}] {progress.done:,}/{progress.total:,} notes"
        f" · {progress.chunks_per_second:,.0f} chunks/s{left}"
    )


def cmd_index(args: argparse.Namespace, ctx: CliContext) -> int:
    if args.action == "status":
        return _status(ctx)
    services = ctx.services
    store = services.store
    if store.db.vec_error:
        raise UnavailableError(f"cannot index: the sqlite-vec extension did not load ({store.db.vec_error})")
    from noted.indexer.lease import Lease

    lease = Lease(store.db, label="noted index")
    if not lease.acquire():
        if not args.watch:
            ctx.out(f"Another process is indexing this profile: {lease.holder()}. Nothing to do.")
            return 0
        ctx.error(f"waiting for {lease.holder()} to finish indexing…")
        while not lease.acquire():
            time.sleep(2)
    tty = sys.stderr.isatty() and not ctx.json

    def show(progress: IndexProgress) -> None:
        if tty and progress.phase != "idle":
            print(f"\r{_bar(progress)}\x1b[K", end="", file=sys.stderr, flush=True)

    from noted.indexer.engine import Indexer
    from noted.indexer.vectors import META_MODEL, set_meta

    indexer = Indexer(store, store.db, services.embedder(), on_progress=show)
    try:
        if args.rebuild:
            with store.db.write() as conn:
                set_meta(conn, META_MODEL, None)
        indexer.prepare()
        done = _renewing(indexer, lease)
        while args.watch:
            time.sleep(0.25)
            done += _renewing(indexer, lease)
    finally:
        lease.release()
        if tty:
            print(file=sys.stderr)
    notes, chunks = indexer.tables.counts()
    if ctx.json:
        ctx.emit({"notes": notes, "chunks": chunks, "looked_at": done, "failed": indexer.failed})
    else:
        failed = f"; {indexer.failed} failed (see the log)" if indexer.failed else ""
        ctx.out(f"Index up to date: {notes:,} notes in {chunks:,} chunks{failed}.")
    return 0


def _renewing(indexer: Indexer, lease: Lease) -> int:
    total = 0
    last = time.monotonic()
    while True:
        done = indexer.step()
        if not done:
            return total
        total += done
        if time.monotonic() - last > lease.ttl_ms / 3000:
            lease.acquire()
            last = time.monotonic()


def _status(ctx: CliContext) -> int:
    from noted.indexer.lease import Lease
    from noted.indexer.vectors import META_CURSOR, META_MODEL, META_SCAN, get_meta

    store = ctx.services.store
    with store.db.read() as conn:
        model = get_meta(conn, META_MODEL)
        cursor = int(get_meta(conn, META_CURSOR) or 0)
        scanning = get_meta(conn, META_SCAN) is not None
        has_tables = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'index_chunks'").fetchone()
        counts = (
            conn.execute("SELECT count(DISTINCT note_id), count(*) FROM index_chunks").fetchone()
            if has_tables
            else (0, 0)
        )
        failures = conn.execute("SELECT count(*) FROM index_failures").fetchone()[0] if has_tables else 0
    latest = store.latest_cursor()
    status = {
        "built": model is not None,
        "model": model,
        "notes": counts[0],
        "chunks": counts[1],
        "behind_by_changes": 0 if scanning else max(0, latest - cursor),
        "first_scan_running": scanning,
        "failed_notes": failures,
        "lease_holder": Lease(store.db).holder(),
        "sqlite_vec": store.db.vec_error or "loaded",
    }
    if ctx.json:
        ctx.emit(status)
        return 0
    for key, value in status.items():
        ctx.out(f"{key.replace('_', ' ')}: {value}")
    return 0

"""``noted index``: build or follow the semantic index from the command line.

``noted index`` brings the index up to date and exits, with a progress bar on stderr;
``--watch`` keeps following changes until Ctrl-C; ``--rebuild`` drops the vectors first;
``noted index status`` says what is indexed and who holds the indexing lease.

When another process (the app, the MCP server) holds the lease, ``noted index`` says who and how
far it is, and exits 0 only if the index is up to date, else ``EXIT_NOT_UP_TO_DATE``; ``--wait``
waits for it instead, and ``--rebuild`` asks the holder to rebuild. A ``--watch`` that loses the
lease (it stalled past its expiry and another process took it) waits for that one in turn.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import signal
import sys
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from noted.cli.args import Commands
from noted.cli.context import CliContext
from noted.cli.exits import ExitCode
from noted.errors import (
    BackendError,
    ConfigError,
    CredentialsRefusedError,
    ModelAwayError,
    NotedError,
    UnavailableError,
)
from noted.wording import plural

if TYPE_CHECKING:  # the indexer (and numpy) load only when indexing
    from noted.indexer.service import IndexerService

EXIT_NOT_UP_TO_DATE = ExitCode.INDEX_NOT_UP_TO_DATE
"""``noted index`` when another process holds the lease and the index is not up to date yet
(EX_TEMPFAIL: try again later, or pass ``--wait``)."""
WAIT_POLL_SECONDS = 1.0


def register(sub: Commands) -> None:
    """Add ``index`` and ``index status``."""
    p = sub.add("index", cmd_index, "Bring the search-by-meaning index up to date.")
    p.add_argument("--watch", action="store_true", help="keep indexing changes until interrupted")
    p.add_argument("--rebuild", action="store_true", help="drop the index and build it again")
    p.add_argument(
        "--wait",
        action="store_true",
        help="when another process is indexing, wait until the index is up to date (or take over)",
    )
    p.add_argument("action", nargs="?", choices=["status"], help="status: what is indexed, and by whom")


def cmd_index(args: argparse.Namespace, ctx: CliContext) -> int:
    if args.action == "status":
        return _status(ctx)
    service = ctx.services.indexer_service(label="noted index")
    signalled: list[int] = []
    try:
        with _terminated_as_interrupt(signalled):
            return _index(args, ctx, service)
    except KeyboardInterrupt:  # Ctrl+C, or SIGTERM: what is stored stays, and the next run goes on
        _say_stopped(ctx, service)
        return ExitCode.TERMINATED if signalled else ExitCode.INTERRUPTED
    finally:
        service.close()  # gives the lease back (if taken) and closes its model


def _index(args: argparse.Namespace, ctx: CliContext, service: IndexerService) -> int:
    from noted.indexer.lease import LeaseLost

    if service.unavailable:
        raise UnavailableError(f"cannot index: the sqlite-vec extension did not load ({service.unavailable})")
    taker: str | None = None
    while True:
        outcome = _take_lease(args, ctx, service, taker)
        if outcome is not None:
            return outcome
        try:
            return _run(args, ctx, service)
        except LeaseLost:  # --watch only: this one stalled past its lease; wait for the taker
            taker = service.lease.holder() or "another process"
            ctx.error(f"{taker} took over the indexing; waiting for it (Ctrl+C stops)")


@contextlib.contextmanager
def _terminated_as_interrupt(came: list[int]) -> Iterator[None]:
    """SIGTERM unwinds as Ctrl+C does (a write under way rolls back whole), adding itself to
    ``came``. Outside the main thread (no signals there) it changes nothing."""

    def stop(signum: int, _frame: object) -> None:
        came.append(signum)
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _say_stopped(ctx: CliContext, service: IndexerService) -> None:
    """One line on what a stopped ``noted index`` left: what the index covers, and who goes on."""
    coverage = ctx.services.index_coverage()
    holder = service.lease.current()
    other = holder is not None and not service.lease.held and service.lease.holder()
    left = coverage.notice()
    if left is None:
        ctx.error("stopped; the index is up to date")
    else:
        ctx.error(f"stopped; {left}: " + (f"{other} is indexing" if other else "run `noted index` to finish"))
    if ctx.json:
        ctx.emit({"stopped": True, "index": coverage.as_json()})


def _take_lease(
    args: argparse.Namespace, ctx: CliContext, service: IndexerService, taker: str | None
) -> int | None:
    """Take the lease, waiting for its holder as ``args`` say; an exit code when it ends the command.

    ``taker`` is the process that took the lease from this one, which said so already.
    """
    waited = taker
    while True:
        stalled = service.lease.stalled()  # its lease lapsed, but its process runs: not "stopped"
        if service.take_lease():
            break
        waited = service.lease.holder() or "another process"
        if taker is not None:  # told already that it waits (for --watch): wait without a word
            while service.lease.current() is not None:
                time.sleep(WAIT_POLL_SECONDS)
            continue
        outcome = _held_elsewhere(args, ctx, service)
        if outcome is not None:
            return outcome
    if stalled is not None:
        holder, seconds = stalled
        ctx.error(
            f"{holder.describe()} stalled (still running, silent for {seconds:.0f} s); indexing here now"
        )
    elif waited is not None:  # said once that it waits: say too that the wait is over
        ctx.error(f"{waited} stopped indexing; indexing here now")
    return None


def _held_elsewhere(args: argparse.Namespace, ctx: CliContext, service: IndexerService) -> int | None:
    """Another process holds the lease: pass a rebuild on, report, and wait or return an exit code.

    Returns None when the caller should try to take the lease again (the holder is gone).
    """
    lease = service.lease
    holder = lease.holder() or "another process"
    if args.rebuild:
        service.rebuild("noted index --rebuild")  # not ours: asks the holder
        args.rebuild = False  # asked once; the holder honours it before its next batch
        ctx.error(f"asked {holder} to rebuild the index")
        if not args.wait:
            return EXIT_NOT_UP_TO_DATE
        # Judge coverage only once the holder has taken the request (it looks before every batch).
        while service.rebuild_pending() and lease.current() is not None:
            time.sleep(WAIT_POLL_SECONDS / 4)
    coverage = ctx.services.index_coverage()
    if coverage.complete and not args.watch:
        _report_done(ctx, coverage.notes_indexed, ctx.services.index_report().chunks, 0, holder)
        return 0
    if not args.wait and not args.watch:
        ctx.error(
            f"{holder} is indexing this profile: {coverage.notes_indexed:,} of {coverage.notes_total:,} notes"
            " done. Run again later, or with --wait."
        )
        if ctx.json:
            ctx.emit({"up_to_date": False, "indexed_by": holder, "index": coverage.as_json()})
        return EXIT_NOT_UP_TO_DATE
    ctx.error(f"waiting for {holder}: {coverage.notes_indexed:,} of {coverage.notes_total:,} notes done…")
    while lease.current() is not None:
        time.sleep(WAIT_POLL_SECONDS)
        coverage = ctx.services.index_coverage()
        if coverage.complete and not args.watch:
            _report_done(ctx, coverage.notes_indexed, ctx.services.index_report().chunks, 0, holder)
            return 0
    return None  # the holder is gone: take the lease


def _away(ctx: CliContext, said: list[NotedError], reason: NotedError | None) -> None:
    """Say that ``--watch`` waits for the notes' backend (Joplin) or the embedding endpoint to
    answer, and that it answers (``said``: the reason told last)."""
    if reason is not None:
        said[:] = [reason]
        ctx.error(f"{reason}; waiting for it (Ctrl+C stops)")
    elif said and isinstance(said[0], ModelAwayError):
        ctx.error("the embedding endpoint answers again; watching")
    else:
        ctx.error("the notes can be read again; watching")


def _run(args: argparse.Namespace, ctx: CliContext, service: IndexerService) -> int:
    from noted.cli.index_progress import IndexBar
    from noted.indexer.lease import LeaseLost
    from noted.indexer.priority import lowered

    bar = IndexBar(enabled=sys.stderr.isatty() and not ctx.json)
    # Below the app's priority (if it is open, its keys come first); idle CPU is still all ours.
    with lowered(), bar:
        bar.start(_notes_total(ctx, watch=args.watch))
        try:
            if args.rebuild:
                service.rebuild("noted index --rebuild")  # ours: the vectors go now
                args.rebuild = False  # once: a watch that takes the lease back goes on from there
            if args.watch:  # followed for long: outside changes are watched, Joplin's polled at a pace
                ctx.services.start_watching()
            done = service.run_here(bar.update, watch=args.watch, on_away=functools.partial(_away, ctx, []))
        except LeaseLost:
            bar.stop()
            if args.watch:  # the caller waits for the one that took it
                raise
            ctx.error(f"stopped: {service.lease.holder() or 'another process'} took over the indexing")
            return EXIT_NOT_UP_TO_DATE
    index = ctx.services.index_report()
    notes, chunks = index.notes, index.chunks
    failed = service.indexer.failed
    if ctx.json:
        ctx.emit({"notes": notes, "chunks": chunks, "looked_at": done, "failed": failed})
    else:
        _report_done(ctx, notes, chunks, failed, None)
    return 0


def _notes_total(ctx: CliContext, *, watch: bool) -> int:
    """The notes to index, for the bar; 0 when watching a backend that does not answer yet
    (Joplin off): ``run_here`` says so and waits for it."""
    try:
        return sum(ctx.services.store.folder_note_counts().values())
    except BackendError as exc:
        if not watch or isinstance(exc, CredentialsRefusedError):
            raise
        return 0


def _report_done(ctx: CliContext, notes: int, chunks: int, failed: int, holder: str | None) -> None:
    if ctx.json:
        ctx.emit({"notes": notes, "chunks": chunks, "looked_at": 0, "failed": failed, "indexed_by": holder})
        return
    by = f" (kept up to date by {holder})" if holder else ""
    failures = f"; {failed} failed (see the log)" if failed else ""
    ctx.out(f"Index up to date: {plural(notes, 'note')} in {plural(chunks, 'chunk')}{failures}{by}.")


def _status(ctx: CliContext) -> int:
    report = ctx.services.index_report()
    if report.run_advised:  # say first when it cannot run here
        try:
            ctx.services.embedder()  # builds it (its tokenizer, say) without loading the model
        except (ConfigError, UnavailableError) as exc:
            report = dataclasses.replace(report, state=f"cannot index: {exc}")
    status = report.as_json()
    if ctx.json:
        ctx.emit(status)
        return 0
    for key, value in status.items():
        ctx.out(f"{key.replace('_', ' ')}: {value}")
    return 0

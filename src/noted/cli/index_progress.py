"""The progress bar of ``noted index`` on a terminal: Rich's, on stderr.

It appears as soon as indexing starts (the note count is known before any embedding) and shows
notes and chunks done of their totals, the rate in chunks per second and the time left. The
chunk total is an estimate from the characters still to index, refined as notes are stored.
"""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from noted.indexer.engine import IndexProgress


class IndexBar:
    """A context manager showing ``IndexProgress`` reports; does nothing when not ``enabled``."""

    def __init__(self, *, enabled: bool) -> None:
        self.enabled = enabled
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        if enabled:
            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TextColumn("{task.completed:,.0f}/{task.total:,.0f} notes"),
                TextColumn("· {task.fields[chunks]}"),
                TextColumn("· {task.fields[rate]}"),
                TextColumn("· {task.fields[left]}"),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                transient=False,
            )

    def __enter__(self) -> IndexBar:
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def start(self, notes_total: int) -> None:
        """Show the bar at once, before the first batch is done."""
        if self._progress is not None:
            self._task = self._progress.add_task(
                "indexing",
                total=max(notes_total, 1),
                chunks="chunks: counting",
                rate="starting",
                left="… left",
            )

    def update(self, progress: IndexProgress) -> None:
        """Take one report from the indexer (it calls this after every commit)."""
        if self._progress is None or self._task is None or progress.phase == "idle":
            return
        rate = f"{progress.chunks_per_second:,.1f} chunks/s"
        if progress.phase != "scan":
            self._progress.update(self._task, description="following changes", rate=rate, chunks="", left="")
            return
        chunks = f"{progress.chunks_done:,}/~{max(progress.chunks_total, progress.chunks_done):,} chunks"
        left = "… left" if progress.seconds_left is None else f"{_duration(progress.seconds_left)} left"
        self._progress.update(
            self._task,
            completed=progress.done,
            total=max(progress.total, 1),
            chunks=chunks,
            rate=rate,
            left=left,
        )

    def stop(self) -> None:
        """Leave the last state on screen and give the terminal back."""
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


def _duration(seconds: float) -> str:
    whole = int(seconds)
    if whole >= 3600:
        return f"{whole // 3600}h{whole % 3600 // 60:02d}m"
    if whole >= 60:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole}s"

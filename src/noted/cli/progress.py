"""A progress bar on stderr for long commands, shown only on a terminal and only after a second.

Short runs print nothing extra, and output piped to a file or another program stays clean.
"""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:  # Rich is imported when a bar is first drawn: most commands never need it
    from rich.progress import Progress, TaskID

DELAY_S = 1.0
"""How long a command runs before its bar appears."""


_LABELS = {
    "reading": "Reading files",
    "checking": "Checking links",
    "writing": "Writing notes",
    "folder": "Reading the Markdown folder",
}
"""What the bar says in each phase (``import`` reads, checks, writes; a Markdown folder's first
open reads the folder)."""


class LazyProgress:
    """A callable ``(phase, done, total)`` that draws a Rich progress bar once ``DELAY_S`` has passed.

    Use it as a context manager so the bar is removed when the command ends.
    """

    def __init__(
        self, *, enabled: bool | None = None, delay_s: float | None = None, file: TextIO | None = None
    ) -> None:
        """``enabled`` defaults to "stderr is a terminal"; ``delay_s`` to ``DELAY_S``; ``file``
        (default stderr) is where the bar goes."""
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.delay_s = DELAY_S if delay_s is None else delay_s
        self._file = file
        self._start = time.monotonic()
        self._bar: Progress | None = None
        self._task: TaskID | None = None
        self._phase = ""

    def __call__(self, phase: str, done: int, total: int | None) -> None:
        if not self.enabled:
            return
        if self._bar is None:
            if time.monotonic() - self._start < self.delay_s:
                return
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=Console(stderr=True)
                if self._file is None
                else Console(file=self._file, force_terminal=True),
                transient=True,
            )
            self._bar.start()
        if phase != self._phase or self._task is None:
            if self._task is not None:
                self._bar.remove_task(self._task)
            self._task = self._bar.add_task(_LABELS.get(phase, phase.capitalize()))
            self._phase = phase
        self._bar.update(self._task, completed=done, total=total)

    def __enter__(self) -> LazyProgress:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._bar is not None:
            self._bar.stop()

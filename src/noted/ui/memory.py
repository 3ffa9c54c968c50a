"""Keep Python's cycle collector from stalling the app: pauses of 100–250 ms while a note opened.

Two causes, both measured on a 10,000-note profile (``tests/bench/bench_ui.py``):

- Textual made nearly every line it painted a reference cycle: ``noted.ui.patches.strip_cycles``
  says how, and stops it.
- A full collection walks every object the app holds, most of them built once at start-up
  (modules, styles, widgets): about a microsecond each, 60–120 ms in all. ``Collector.settle``
  moves what exists once the app is up out of the collector's sight (``gc.freeze``), and
  ``Collector`` runs the full collections Python would have run, at Python's own pace, but in a
  moment when the person has not pressed a key for a second rather than in the middle of one.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable


def quiet_start() -> None:
    """No cyclic collections while the app starts; ``Collector.settle`` turns them on again.

    Start-up builds a few hundred thousand objects that live as long as the app, and makes almost
    no garbage (8,000 objects on a 10,000-note profile); the collections Python would run over
    them meanwhile took 50–100 ms. Call this before the app's modules load.
    """
    gc.disable()


FULL_EVERY = 10
"""Python's own pace: a full collection once the middle generation has been collected ten times."""
FULL_AT_THE_LATEST = 100
"""Someone who never pauses for a second still gets a full collection this often."""
NEVER = 1_000_000_000
"""A threshold for the oldest generation that Python never reaches on its own."""


class Collector:
    """Runs Python's full collections when the person is not typing.

    ``settle`` (once the app is up) also takes the full collections out of Python's hands (the
    young ones, a few milliseconds each, stay automatic); ``tick``, called every second or so,
    runs one when it is due and no key came in for ``quiet`` seconds; ``stop`` gives everything
    back, frozen objects included, so a process that runs several apps (the tests) frees what
    each one left behind.
    """

    def __init__(self, *, quiet: float = 1.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.quiet = quiet
        self._clock = clock
        self._last_input = clock()
        self._thresholds: tuple[int, int, int] | None = None

    def settle(self) -> None:
        """Freeze the app as it stands after start-up, and collect from then on.

        Not collected first: after ``quiet_start`` that would walk everything start-up built (170 ms)
        to free about a megabyte.
        """
        if self._thresholds is None:
            self._thresholds = gc.get_threshold()
            young, middle, _ = self._thresholds
            gc.set_threshold(young, middle, NEVER)
            gc.freeze()
            gc.enable()

    def input_seen(self) -> None:
        self._last_input = self._clock()

    def tick(self) -> bool:
        """Run a full collection if one is due and the moment is quiet; say whether it ran."""
        if self._thresholds is None:
            return False
        due = gc.get_count()[2]
        quiet = self._clock() - self._last_input >= self.quiet
        if due >= FULL_AT_THE_LATEST or (due >= FULL_EVERY and quiet):
            gc.collect()
            return True
        return False

    def stop(self) -> None:
        if self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            self._thresholds = None
            gc.unfreeze()
        gc.enable()

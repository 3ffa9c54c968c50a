"""Everything the app does only to be fast, in one place, behind one switch.

``NOTED_STOCK_TEXTUAL=1`` in the environment turns all of it off for the process: the app then
runs Textual as it ships, slower and otherwise the same (a way to tell whether a fault is one of
ours, and what each part is worth: ``tests/bench/bench_ui.py --stock``). With the switch set:

- the Textual patches that exist only for speed (``Patch.speed``) stay out; the two that change
  behaviour (``crash_output``, ``raw_output``) stay in;
- Python's cycle collector runs as Python runs it. Otherwise it is off while the app starts
  (``quiet_start``), and ``Collector`` then runs the full collections when no key came in for a
  second, not in the middle of a key press (pauses of 100–250 ms while a note opened on a
  10,000-note profile);
- the panes read their first rows once mounted. Otherwise ``FirstLook`` reads them in a thread
  while Textual loads (about half a second), so the first frame shows them;
- nothing is warmed up. Otherwise the assistant's tools and the code highlighter's lexers load in a
  thread a second after start-up (``Speedups.start``), and the search glossary when the search
  screen opens in a mode that uses it (``warm_glossary``).

This module imports no Textual at load time (``noted.ui.launch`` starts the first look before
Textual loads). The start-up line of the log (``log_ready``) is here too, logged either way.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import noted
from noted.errors import NotedError
from noted.services import Services
from noted.store.protocol import NoteOrder
from noted.ui.data import ALL_NOTES, PAGE_SIZE, NotePage, TreeData, load_page, load_tree
from noted.ui.workers import in_task

if TYPE_CHECKING:
    from textual.app import App
    from textual.dom import DOMNode

log = logging.getLogger(__name__)

STOCK_TEXTUAL = "NOTED_STOCK_TEXTUAL"
"""The switch: ``1`` (or ``true``, ``yes``, ``on``) runs stock Textual, without any of the above."""
WARM_UP_AFTER = 1.0
"""Seconds after start-up the warm-up thread starts (the first frames come first)."""


def enabled(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the speed-ups are on: the switch is not set (read from the environment each time)."""
    value = (os.environ if environ is None else environ).get(STOCK_TEXTUAL, "")
    return value.strip().lower() not in ("1", "true", "yes", "on")


# The cycle collector ----------------------------------------------------------------------------
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

    A full collection walks every object the app holds, most of them built once at start-up
    (modules, styles, widgets): 60–120 ms in all. ``settle`` (once the app is up) moves them out of
    the collector's sight (``gc.freeze``) and takes the full collections out of Python's hands (the
    young ones, a few milliseconds each, stay automatic); ``tick``, called every second or so, runs
    one when it is due and no key came in for ``quiet`` seconds; ``stop`` gives everything back,
    frozen objects included, so a process that runs several apps (the tests) frees what each left.
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


# The first screen, read while the app loads -----------------------------------------------------
class FirstLook:
    """The first page of All notes (newest first) and the notebook tree, read in a thread.

    Each is handed out once, and only if it has arrived: a pane given nothing reads for itself, as
    it does whenever it loads. ``cursor`` is where the change feed stood before the reading, so a
    change made meanwhile by another process still reaches the screen. It keeps no reader state
    (list rows and the tree, never a note to show).
    """

    def __init__(self, services: Services) -> None:
        self._services = services
        self.cursor: int | None = None
        self._page: NotePage | None = None
        self._tree: TreeData | None = None
        self._thread = threading.Thread(target=self._read, name="noted-first-look", daemon=True)

    def start(self) -> FirstLook:
        self._thread.start()
        return self

    def _read(self) -> None:
        store = self._services.store
        try:
            self.cursor = store.latest_cursor()
            self._page = load_page(store, ALL_NOTES, NoteOrder.UPDATED, 0, PAGE_SIZE, self._services.keyword)
            self._tree = load_tree(store)
        except NotedError as exc:  # the panes read again, and say what is wrong if it still is
            log.warning("reading the first screen ahead failed: %s", exc)
        except Exception:
            log.exception("reading the first screen ahead failed")

    def wait(self, timeout: float | None = None) -> None:
        """Until the reading is done (tests; the app itself never waits for it)."""
        self._thread.join(timeout)

    def take_page(self) -> NotePage | None:
        page, self._page = self._page, None
        return page

    def take_tree(self) -> TreeData | None:
        tree, self._tree = self._tree, None
        return tree


def first_look(services: Services) -> FirstLook | None:
    """Start reading the first screen and pause the collector (before the app's modules load), or
    None with the switch set."""
    if not enabled():
        return None
    quiet_start()
    return FirstLook(services).start()


# What the app owns ------------------------------------------------------------------------------
class Speedups:
    """The app's speed-ups (``NotedApp.speed``), all on or all off (``on``) as the switch says.

    Built with the app, which then calls ``start`` when it mounts, ``input_seen`` for each key or
    click, and ``stop`` when it unmounts.
    """

    def __init__(self, first: FirstLook | None = None) -> None:
        from noted.ui import patches  # Textual: loaded by the app anyway, not before ``first_look``

        self.on = enabled()
        self.first_look = first if self.on else None
        """What ``first_look`` read, for the panes and the change-feed follower (None: read it)."""
        self.collector = Collector() if self.on else None
        patches.install(speed=self.on)

    def start(self, app: App[Any], warm_up: Callable[[], None]) -> None:
        """Run ``warm_up`` in a thread a second after start-up, then let the collector settle;
        from then on run a full collection in a quiet moment."""
        collector = self.collector
        if collector is None:
            return

        async def warm() -> None:
            await asyncio.to_thread(warm_up)
            collector.settle()  # the app is up: later collections need not walk all of it again

        def later() -> None:
            in_task(app, warm, "warm-up", "loading the assistant's tools and the code highlighter")

        app.set_timer(WARM_UP_AFTER, later)
        app.set_interval(1.0, collector.tick)

    def input_seen(self) -> None:
        if self.collector is not None:
            self.collector.input_seen()

    def stop(self) -> None:
        if self.collector is not None:
            self.collector.stop()


def warm_glossary(node: DOMNode) -> None:
    """Load the query glossary in a thread of ``node`` (the first query in Spanish, German or
    French would otherwise wait about 0.2 s for it); nothing with the switch set."""
    if enabled():
        from noted.search import translate

        node.run_worker(
            translate.warm, thread=True, group="warm", exit_on_error=False, description="loading the glossary"
        )


# The start-up figure ----------------------------------------------------------------------------
def log_ready(listed: float, cpu: float, age: float | None) -> None:
    """Log when the first notes went into the list, a frame before they are on screen (``listed``:
    ``time.perf_counter()``; ``cpu``: ``time.process_time()``; ``age``: the process's age then,
    from ``process_age``). Start-up time is a promise of the app, so each run logs it."""
    log.info(
        "ready: the first notes were listed %.0f ms after noted was imported, %s after the process "
        "started (%.0f ms of CPU), to be painted in the next frame%s",
        (listed - noted.STARTED) * 1000,
        "?" if age is None else f"{age * 1000:.0f} ms",
        cpu * 1000,
        "" if enabled() else f"; {STOCK_TEXTUAL} is set",
    )


def process_age() -> float | None:
    """Seconds since this process started (to a hundredth), where /proc says; None elsewhere."""
    try:
        with open("/proc/self/stat", encoding="ascii") as stat, open("/proc/uptime", encoding="ascii") as up:
            started = int(stat.read().rsplit(")", 1)[1].split()[19])  # field 22: start time in clock ticks
            return float(up.read().split()[0]) - started / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None

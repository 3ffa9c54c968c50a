"""Benchmark of the settings screen (F2): from the key to the first frame that shows it, each time.

Usage::

    python3 tests/bench/bench_settings.py               # 10 opens at 120x40
    python3 tests/bench/bench_settings.py --runs 20 --size 80x24

A fresh profile (the settings do not depend on the notes) opens in the real app under Pilot. Each
run calls F2's action and notes the first frame painted with the screen shown (what a person sees
first), then waits until every section is built and painted (the screen builds those below the
first after that frame: the last frame), and closes it with Esc. It prints, in milliseconds, the
first open apart from the later ones (the first one loads the screen's modules and builds it; the
app keeps it), as wall time and as the UI thread's CPU time (on a loaded machine wall time includes
waiting for a core).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from noted.profile import Profile
from noted.services import Services


def line(what: str, samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[max(0, int(len(ordered) * 0.95) - 1)]
    return f"{what:<28} median {statistics.median(ordered):7.1f}  p95 {p95:7.1f}  (n={len(ordered)})"


async def opens(services: Services, runs: int, size: tuple[int, int]) -> dict[str, list[float]]:
    from noted.ui.app import NotedApp
    from noted.ui.screens.settings import SettingsScreen

    found: dict[str, list[float]] = {
        "first paint": [],
        "first paint cpu": [],
        "settled": [],
        "settled cpu": [],
    }
    app = NotedApp(services, background=False)
    # Each frame painted while the settings screen is the one shown: when, and the UI thread's CPU.
    paints: list[tuple[float, float]] = []
    display = type(app)._display

    def displayed(self: NotedApp, screen: object, update: object) -> None:
        display(self, screen, update)  # type: ignore[arg-type]
        if update is not None and isinstance(screen, SettingsScreen):
            paints.append((time.perf_counter(), time.thread_time()))

    type(app)._display = displayed  # type: ignore[assignment,method-assign]
    async with app.run_test(size=size) as pilot:
        await pilot.pause(1)
        _ = services.registry  # the app's warm-up builds it in a thread after the start: not measured here
        for _ in range(runs):
            paints.clear()
            wall, cpu = time.perf_counter(), time.thread_time()
            app.action_settings()  # what F2 runs (Pilot's press adds its own waits)
            while not paints:  # a plain sleep: Pilot's pause forces repaints
                await asyncio.sleep(0.001)
            found["first paint"].append((paints[0][0] - wall) * 1000)
            found["first paint cpu"].append((paints[0][1] - cpu) * 1000)
            screen = app.screen
            assert isinstance(screen, SettingsScreen)
            while not getattr(screen, "built", True):  # (a screen built whole at once has no such flag)
                await asyncio.sleep(0.001)
            await pilot.pause()  # every section is built and painted
            found["settled"].append((paints[-1][0] - wall) * 1000)
            found["settled cpu"].append((paints[-1][1] - cpu) * 1000)
            await pilot.press("escape")
            while isinstance(app.screen, SettingsScreen):
                await asyncio.sleep(0.001)
            await pilot.pause(0.2)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--size", default="120x40", help="the terminal, COLUMNSxROWS")
    args = parser.parse_args()
    width, height = (int(n) for n in args.size.split("x"))
    with tempfile.TemporaryDirectory() as tmp:
        services = Services.open(Profile(Path(tmp) / "profile").ensure(), welcome=False)
        try:
            found = asyncio.run(opens(services, args.runs, (width, height)))
        finally:
            services.close()
    print(f"settings screen at {width}x{height}: key to its first frame, and to its last (every section in)")
    for kind, samples in found.items():
        print(line(f"first open: {kind}", samples[:1]))
        print(line(f"later opens: {kind}", samples[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

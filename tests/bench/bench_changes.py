"""Benchmark of the Changes view with 10,000 recorded changes (issue 38: opens and filters ≤ 100 ms p95).

Usage::

    python3 tests/bench/bench_changes.py                 # 10,000 changes over 2,500 notes
    python3 tests/bench/bench_changes.py --changes 2000 --runs 10

A fresh embedded profile gets ``--changes`` changes by four outside actors (each a review entry of
its own: a different actor on the same note starts a new one). Then it measures:

- ``first read``: the review reading the whole feed once (``Review.refresh``), done once per profile;
- ``open (core)``: what the view's worker does each time it opens: refresh (nothing new), the rows;
- ``filter (core)``: the rows for an actor filter and for a title filter (in SQL, newest 200);
- ``open (app)``: F3's action in the real app (under Pilot) until the list holds the rows read afresh;
- ``open+paint (app)``: the same, and Pilot's pause until the screen is idle (painted);
- ``filter (app)``: a filter typed into the view's input until the list holds its rows.

The figures are medians and p95 over ``--runs`` runs, in milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from noted.models import NoteDraft, NotePatch, mcp_actor
from noted.ops.review_list import items
from noted.profile import Profile
from noted.services import Services

ACTORS = (mcp_actor("claude"), mcp_actor("cursor"), "assistant:c1", "sync")


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    pos = (len(ordered) - 1) * q / 100
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def fill(services: Services, changes: int) -> None:
    store = services.store
    notes = max(1, changes // len(ACTORS))
    with store.batch():
        folders = [store.create_folder(f"Notebook {i}", actor="user").id for i in range(20)]
        ids = [
            store.create_note(
                NoteDraft(f"Note {i}", f"line {i}\n", parent_id=folders[i % 20]), actor="user"
            ).id
            for i in range(notes)
        ]
    services.review.refresh()  # the person's notes: nothing to review
    with store.batch():
        for n in range(changes):
            note = ids[n % notes]
            store.update_note(note, NotePatch(append=f"change {n}"), actor=ACTORS[(n // notes) % len(ACTORS)])


def timed(samples: list[float], fn: object) -> object:
    start = time.perf_counter()
    result = fn()  # type: ignore[operator]
    samples.append((time.perf_counter() - start) * 1000)
    return result


def line(name: str, samples: list[float]) -> str:
    return f"{name:<16} median {statistics.median(samples):8.1f} ms   p95 {percentile(samples, 95):8.1f} ms   (n={len(samples)})"


async def app_runs(services: Services, runs: int) -> tuple[list[float], list[float], list[float]]:
    from textual.widgets import Input

    from noted.ui.app import NotedApp
    from noted.ui.screens.changes import ChangesList, ChangesScreen

    opened: list[float] = []
    drawn: list[float] = []
    filtering: list[float] = []
    app = NotedApp(services, background=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        loads = 0
        for _ in range(runs):
            start = time.perf_counter()
            app.action_changes()  # what F3 runs (Pilot's press adds its own waits for the screen to settle)
            while not (isinstance(app.screen, ChangesScreen) and app.screen.loads > loads):
                await asyncio.sleep(0.001)
            screen = app.screen
            loads = screen.loads
            opened.append((time.perf_counter() - start) * 1000)
            await pilot.pause()
            drawn.append((time.perf_counter() - start) * 1000)
            assert screen.query_one(ChangesList).option_count
            for text in ("cursor", "Note 12", ""):
                start = time.perf_counter()
                screen.query_one("#changes-filter", Input).value = text  # the Changed handler reloads
                while screen.filtered_as != text or screen.loads == loads:
                    await asyncio.sleep(0.001)
                loads = screen.loads
                filtering.append((time.perf_counter() - start) * 1000)
                await pilot.pause()
            await pilot.press("escape")
            while isinstance(app.screen, ChangesScreen):
                await asyncio.sleep(0.001)
    return opened, drawn, filtering


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--no-app", action="store_true", help="leave out the Pilot measures")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        services = Services.open(Profile(Path(tmp) / "profile").ensure(), welcome=False)
        try:
            fill(services, args.changes)
            review = services.review
            first: list[float] = []
            timed(first, review.refresh)
            print(f"{review.rows.count():,} changes wait for review")
            opening: list[float] = []
            for _ in range(args.runs):
                timed(opening, lambda: (review.refresh(), items(review)))
            filtering: list[float] = []
            for _ in range(args.runs):
                for text in ("cursor", "Note 12"):
                    timed(filtering, lambda t=text: items(review, t))
            print(line("first read", first))
            print(line("open (core)", opening))
            print(line("filter (core)", filtering))
            if not args.no_app:
                opened, drawn, typed = asyncio.run(app_runs(services, args.runs))
                print(line("open (app)", opened))
                print(line("open+paint (app)", drawn))
                print(line("filter (app)", typed))
        finally:
            services.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark of the terminal app on a big profile: start-up, note open (key to paint), memory.

Usage: ``python3 tests/bench/bench_ui.py PROFILE_DIR [--opens 20] [--starts 10] [--indexing] [--stock]`` (PROFILE_DIR
holds ``notes.db``, or ``vault.db`` and the ``config.toml`` of a Markdown folder's profile; ``tests/bench/corpus.py --notes 10000 --out DIR`` makes one). The profile is copied
first, so the benchmark never changes it. The app runs headless at 120×40 without the indexer (its model
load is measured by the indexer's own benchmark), or with ``--indexing`` with it, making a first full
index of the copy with the real model; the measurements start once it has stored its first chunks.

``--stock`` runs it all with ``NOTED_STOCK_TEXTUAL=1``: stock Textual, without noted's speed-ups
(``noted.ui.speed``), to show what they are worth.

- start-up: from the first import of noted to the frame that paints the note list's first page
  (the end of the first frame painted after the app's ``FirstNotesListed``), measured as wall time and as this process's
  CPU time (on a loaded machine wall time includes waiting for a core); and to the first note shown
  in the reader beside it, when the screen has settled. noted's modules are compiled to bytecode
  first, as an install leaves them;
- note open: from the key press (``j``) to the end of the frame that shows the new note (the last
  frame painted before the viewer's ``Shown`` message, which it posts once that frame is painted);
  p50 and p95 over ``--opens``, as wall time, and the UI thread's CPU time until ``Shown`` (on a
  loaded machine wall time includes waiting for a core). Then the same
  for notes far from the cursor (opened by id, as search and links do), which nothing read ahead;
  and for notes opened from the search screen: Enter on the first result for a word from a title,
  which opens the note and closes the screen (the workspace is painted again whole), once with the
  page focused and once starting in the list, so the focus moves too;
- focus moves: Enter in the list (the note is shown already; the focus moves to it) and Esc back,
  from the key to the first frame painted after it (the one that shows the move), and to the last
  frame the move caused;
- the list filter (``/`` in the note list, then a few letters of a title): from ``/`` until every
  note of the list is read (a worker), and from each key to the first frame painted after the
  list narrowed; after the memory figures are taken, so they compare with a tree without it;
- memory: the peak resident set size of the process, and how much of it was private (anonymous)
  and file-backed at most, sampled every 10 ms. The file-backed part is mostly the database, which
  SQLite reads through a memory map (``mmap_size``): its pages count in RSS once touched but are the
  kernel's page cache, shared and dropped under pressure, so it moves with which pages a run happened
  to read (two modes about 17 MB apart on the 10,000-note profile). Private memory is the figure to
  compare between trees.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import importlib.util
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any


class MemoryPeaks:
    """The largest private (``RssAnon``) and file-backed (``RssFile``) resident sizes seen, in MB."""

    def __init__(self) -> None:
        self.anon = self.file = 0.0
        threading.Thread(target=self._sample, daemon=True, name="memory-peaks").start()

    def _sample(self) -> None:
        status = Path("/proc/self/status")
        while True:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
            self.anon = max(self.anon, int(fields["RssAnon"].split()[0]) / 1024)
            self.file = max(self.file, int(fields["RssFile"].split()[0]) / 1024)
            time.sleep(0.01)


def report(what: str, times: list[float], cpu_times: list[float]) -> None:
    times, cpu_times = sorted(times), sorted(cpu_times)
    p95 = times[max(0, int(len(times) * 0.95) - 1)]
    cpu_p95 = cpu_times[max(0, int(len(cpu_times) * 0.95) - 1)]
    print(
        f"{what}: p50 {statistics.median(times):.0f} ms, p95 {p95:.0f} ms wall; the UI thread's CPU in "
        f"that time p50 {statistics.median(cpu_times):.0f} ms, p95 {cpu_p95:.0f} ms; over {len(times)} notes"
    )


async def run(
    root: Path, opens: int, searches: int, t0: float, cpu0: float, peaks: MemoryPeaks, indexing: bool = False
) -> None:
    # Imported here, after the profile is copied, so the start-up clock counts them as a person waits
    # for them; the app opens as ``noted tui`` opens it.
    from noted.profile import Profile
    from noted.services import Services
    from noted.settings import Settings
    from noted.ui.launch import open_app

    profile = Profile(root)
    environ = {"NOTED_SEARCH_INDEXER_ENABLED": "true" if indexing else "false"}
    settings = Settings.load(profile, environ=environ)
    # As the app opens (a Markdown folder read before: shown at once, its watcher scans it).
    services = Services.open(profile, welcome=False, settings=settings, scan_in_background=True)
    app = open_app(services, background=indexing)  # the app as a person runs it, indexer and all
    from noted.ui.messages import FirstNotesListed, OpenNote
    from noted.ui.widgets.note_list import NoteList
    from noted.ui.widgets.note_viewer import NoteViewer

    shown: list[tuple[float, float]] = []
    arrived = asyncio.Event()
    first_notes: list[FirstNotesListed] = []

    def hook(message: object) -> None:
        if isinstance(message, FirstNotesListed):
            first_notes.append(message)
        if isinstance(message, NoteViewer.Shown) and not arrived.is_set():
            shown.append((time.perf_counter(), time.thread_time()))
            arrived.set()

    # When each frame with something in it was painted: ``Shown`` comes after the frame that shows
    # the note, but can wait behind other work (a focus move); the paint is what a person sees.
    paints: list[float] = []
    paint_cpu: list[float] = []  # this process's CPU time at each paint
    display = type(app)._display

    def displayed(self: object, screen: object, update: object) -> None:
        display(self, screen, update)  # type: ignore[arg-type]
        if update is not None:
            paints.append(time.perf_counter())
            paint_cpu.append(time.process_time())

    type(app)._display = displayed  # type: ignore[assignment]

    def note_painted() -> float:
        """The end of the last frame painted before the last ``Shown``: the one showing the note."""
        return max(t for t in paints if t <= shown[-1][0])

    async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
        # The first page is listed, then the next frame paints it: the end of that frame.
        while not first_notes or not paints or paints[-1] < first_notes[0].listed:
            # A plain sleep: pilot.pause() forces a repaint each time, which would slow what it measures.
            await asyncio.sleep(0.001)
        frame = next(i for i, t in enumerate(paints) if t >= first_notes[0].listed)
        notes = app.workspace.query_one(NoteList)
        wall, cpu = paints[frame] - t0, paint_cpu[frame] - cpu0
        await arrived.wait()  # the first note, drawn in the reader: the screen has settled
        settled = shown[0][0] - t0
        print(
            f"start-up to the first page of {len(notes.rows)} notes: {wall * 1000:.0f} ms wall, {cpu * 1000:.0f} ms CPU; "
            f"the first note shown beside it at {settled * 1000:.0f} ms"
        )
        if opens == 0:
            return
        if indexing:  # the app's own indexer, embedding a first full index while keys are pressed
            await _until_embedding(services)
        await asyncio.sleep(0.2)  # let the first note's paint and the start-up work settle
        times, cpu_times = [], []
        cpu_before = time.process_time()
        for _ in range(opens):
            arrived.clear()
            pressed, pressed_cpu = time.perf_counter(), time.thread_time()
            await pilot.press("j")
            await arrived.wait()
            times.append((note_painted() - pressed) * 1000)
            cpu_times.append((shown[-1][1] - pressed_cpu) * 1000)
            await asyncio.sleep(0.05)  # a person's pace: the next key comes after this paint
        cpu_each = (time.process_time() - cpu_before) / opens * 1000  # includes the idle 50 ms between keys
        report("note open (j in the list), key to paint", times, cpu_times)
        print(f"  {cpu_each:.0f} ms process CPU per open (all threads, the 50 ms between keys included)")
        # Cold: notes far from the cursor, so nothing was read ahead (as from search or a link).
        others = [meta.id for meta in services.store.list_notes(limit=5000)]
        random.Random(7).shuffle(others)
        times, cpu_times = [], []
        for note_id in others[:opens]:
            arrived.clear()
            asked, asked_cpu = time.perf_counter(), time.thread_time()
            app.post_message(OpenNote(note_id))
            await arrived.wait()
            times.append((note_painted() - asked) * 1000)
            cpu_times.append((shown[-1][1] - asked_cpu) * 1000)
            await asyncio.sleep(0.05)
        report("note open, cold (not read ahead), request to paint", times, cpu_times)
        # Focus moves: Enter in the list moves the focus to the note it already shows; Esc moves it
        # back. Nothing but the focus (its ring, the keys offered) changes on screen.
        from noted.ui.widgets.note_viewer import NoteScroll

        page, listed = app.workspace.query_one(NoteScroll), app.workspace.query_one(NoteList)
        firsts, lasts = [], []
        for key, target in [("escape", listed), ("enter", page)] * (opens // 2):  # the page has it now
            paints.clear()
            pressed = time.perf_counter()
            await pilot.press(key)
            while app.workspace.focused is not target:
                await asyncio.sleep(0.001)
            await asyncio.sleep(0.1)  # every frame the move asked for is painted by now
            firsts.append((min(paints) - pressed) * 1000)
            lasts.append((max(paints) - pressed) * 1000)
        if firsts:
            firsts.sort()
            lasts.sort()
            print(
                f"focus move (Enter in the list, Esc back): key to the first paint after it, p50 "
                f"{statistics.median(firsts):.0f} ms, p95 {firsts[int(len(firsts) * 0.95) - 1]:.0f} ms; "
                f"to the last paint it caused (Textual paints some widgets again in a second frame) p50 "
                f"{statistics.median(lasts):.0f} ms; over {len(firsts)} moves"
            )
        # From search: Enter on the first result opens the note there and closes the search screen;
        # once with the page focused (the focus stays), once starting in the list (it moves).
        from noted.ui.screens.search import SearchScreen

        words = [meta.title.split()[0] for meta in services.store.list_notes(limit=400)[::10]]
        for start in ("page", "list"):
            times, cpu_times = [], []
            for word in words[:searches]:
                if start == "list":
                    await pilot.press("escape")
                    while app.workspace.focused is not listed:
                        await asyncio.sleep(0.005)
                    await asyncio.sleep(0.05)
                await pilot.press("ctrl+f")
                while not isinstance(app.screen, SearchScreen):
                    await asyncio.sleep(0.005)
                screen = app.screen
                await pilot.press(*word)
                await asyncio.sleep(0.4)  # past the typing pause, so the results are the final ones
                while not screen.rows:
                    await asyncio.sleep(0.01)
                await asyncio.sleep(0.05)  # the results painted, the highlighted one read ahead
                arrived.clear()
                pressed, pressed_cpu = time.perf_counter(), time.thread_time()
                await pilot.press("enter")
                await arrived.wait()
                times.append((note_painted() - pressed) * 1000)
                cpu_times.append((shown[-1][1] - pressed_cpu) * 1000)
                await asyncio.sleep(0.05)
            if times:
                where = "the page focused" if start == "page" else "started in the list: focus moves"
                report(f"note open from search ({where}), Enter to paint", times, cpu_times)
        # The memory figures are taken here, before the filter (which reads every note's row), so
        # they compare with a tree that has no filter.
        peak, anon, file = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, peaks.anon, peaks.file
        if hasattr(listed, "filter"):
            await _filter_keys(pilot, listed, paints, words[:searches])
    services.close()
    print(
        f"peak memory (RSS): {peak:.0f} MB, at most {anon:.0f} MB of it private and {file:.0f} MB "
        f"file-backed; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
        + ("; stock Textual (NOTED_STOCK_TEXTUAL=1)" if os.environ.get("NOTED_STOCK_TEXTUAL") else "")
    )


async def _filter_keys(pilot: Any, notes: Any, paints: list[float], words: list[str]) -> None:
    """``/`` in the list, then each word typed a key at a time: the read of every note (``/`` until the
    filter has them all) and each key to the first paint after the list narrowed."""
    await pilot.press("escape")  # to the list
    reads, keys, read = [], [], 0
    for word in words:
        pressed = time.perf_counter()
        await pilot.press("slash")
        while notes.filter.pool_size is None:
            await asyncio.sleep(0.001)
        reads.append((time.perf_counter() - pressed) * 1000)
        read, typed = notes.filter.pool_size, ""
        for key in [c for c in word.lower() if c.isalpha()][:4]:
            typed += key
            paints.clear()
            pressed = time.perf_counter()
            await pilot.press(key)
            while notes.filter.text != typed or not paints:
                await asyncio.sleep(0.001)
            keys.append((min(paints) - pressed) * 1000)
            await asyncio.sleep(0.05)
        await pilot.press("escape")
        await asyncio.sleep(0.05)
    if keys:
        keys.sort()
        print(
            f"list filter over {read:,} notes: '/' to every note read p50 "
            f"{statistics.median(reads):.0f} ms; each key to the narrowed list painted p50 "
            f"{statistics.median(keys):.0f} ms, p95 {keys[int(len(keys) * 0.95) - 1]:.0f} ms; over {len(keys)} keys"
        )


def starts(profile: Path, count: int) -> None:
    """Start-up measured in ``count`` fresh processes (one varies by a tenth of a second or more)."""
    walls = []
    for _ in range(count):
        out = subprocess.run(
            [sys.executable, __file__, str(profile), "--opens", "0"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        walls.append(float(re.search(r"notes: (\d+) ms wall", out).group(1)))  # type: ignore[union-attr]
    walls.sort()
    print(
        f"start-up over {count} processes: median {statistics.median(walls):.0f} ms wall, "
        f"fastest {walls[0]:.0f} ms, slowest {walls[-1]:.0f} ms"
    )


async def _until_embedding(services: object) -> None:
    """Wait until the app's indexer has stored its first chunks (its model is loaded and busy)."""
    started = time.perf_counter()
    while True:
        service = services.indexer  # type: ignore[attr-defined]
        status = service.status if service is not None else None
        if status is not None and status.state == "indexing" and status.progress is not None:
            if status.progress.chunks_done > 0:
                break
        if status is not None and status.state == "error":
            raise SystemExit(f"the indexer failed: {status.error}")
        await asyncio.sleep(0.1)
    print(
        f"indexing: the app's indexer stored its first chunks {time.perf_counter() - started:.1f} s after start-up"
    )


def _unindex(db: Path) -> None:
    """Forget the copy's index (if it has one), so the app's indexer makes a full one."""
    import apsw

    conn = apsw.Connection(str(db))
    try:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'meta'").fetchone():
            conn.execute("DELETE FROM meta WHERE key LIKE 'index.%'")
    finally:
        conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profile", type=Path)
    parser.add_argument("--opens", type=int, default=20)
    parser.add_argument("--searches", type=int, default=20, help="notes opened from the search screen")
    parser.add_argument(
        "--starts", type=int, default=1, help="start the app this many times first, each in a new process"
    )
    parser.add_argument(
        "--indexing",
        action="store_true",
        help="measure while the app's own indexer (the real model) runs a first full index",
    )
    parser.add_argument(
        "--stock",
        action="store_true",
        help="run stock Textual, without noted's speed-ups (NOTED_STOCK_TEXTUAL=1)",
    )
    args = parser.parse_args()
    if args.stock:  # before noted loads; the processes of --starts inherit it
        os.environ["NOTED_STOCK_TEXTUAL"] = "1"
    if args.starts > 1:
        starts(args.profile, args.starts)
    # An installed noted has its modules compiled to bytecode (pip does that); a checkout may not, as
    # where PYTHONDONTWRITEBYTECODE is set, and compiling them all again would count as start-up.
    spec = importlib.util.find_spec("noted")
    assert spec is not None and spec.origin is not None
    compileall.compile_dir(Path(spec.origin).parent, quiet=1)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "profile"
        root.mkdir()
        # A Markdown folder's profile (backend = vault) holds vault.db and the config naming the folder.
        for name in ("notes.db", "vault.db", "config.toml"):
            if (args.profile / name).exists():
                shutil.copy2(args.profile / name, root / name)
        (root / "resources").mkdir()
        if args.indexing:
            _unindex(root / "notes.db")
            made = Path(__file__).resolve().parent / "out" / "models"  # the model copy noted made once
            if made.is_dir():
                shutil.copytree(made, root / "models")
        peaks = MemoryPeaks()
        t0, cpu0 = time.perf_counter(), time.process_time()
        asyncio.run(run(root, args.opens, args.searches, t0, cpu0, peaks, args.indexing))


if __name__ == "__main__":
    main()

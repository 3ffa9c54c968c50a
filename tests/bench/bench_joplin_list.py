"""What a page of the note list costs on Joplin: time and bytes read from its Data API.

    python3 tests/bench/bench_joplin_list.py [--notes 1000] [--big-mb 39] [--runs 5] [--src OTHER/src]

Starts a real Joplin (the terminal app of ``.ci/joplin-setup``) on a free port and puts in one
notebook ``--notes`` notes of about 1 kB, the newest of them ``--big-mb`` MB long (a pasted log
or book). Then times, over ``--runs`` runs each, with the bytes Joplin sent counted below httpx
(``tests.support.joplin.Wire``): the app's first page of the notebook (``noted.ui.data.load_page``),
``noted list`` (its page of notes), the MCP tools ``list_notebook_notes`` and ``list_notes`` (a
page of 20), and opening the big note, for scale. Each page holds the big note, as the newest note
leads it.

``--src`` runs another checkout's code (``/work/main/src``) to compare.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

if TYPE_CHECKING:
    from tests.support.joplin import Wire


def _fill(server_url: str, token: str, notes: int, big_mb: float) -> str:
    """A notebook of ``notes`` notes, the last made (the newest) ``big_mb`` MB long; its id."""
    api = httpx.Client(base_url=server_url, params={"token": token}, timeout=600)
    folder = str(api.post("/folders", json={"title": "Bench list"}).json()["id"])
    line = "A line of the notes about the garden, the budget and the plan. " * 16 + "\n"
    for i in range(notes - 1):
        api.post("/notes", json={"title": f"Note {i}", "body": f"# Note {i}\n\n{line}", "parent_id": folder})
    big = "2026-12-07 02:00:00 INFO a line of a long log, as pasted into a note\n"
    body = big * int(big_mb * 1e6 / len(big))
    api.post("/notes", json={"title": "Big log", "body": body, "parent_id": folder})
    api.close()
    return folder


def _timed(wire: Wire, runs: int, work: Callable[[], object]) -> tuple[float, float]:
    """Median ms and median MB read per run."""
    times, sizes = [], []
    for _ in range(runs):
        wire.clear()
        start = time.perf_counter()
        work()
        times.append((time.perf_counter() - start) * 1000)
        sizes.append(wire.received / 1e6)
    return statistics.median(times), statistics.median(sizes)


def _tool(registry: Any, context: Any, name: str, **args: Any) -> None:
    result = asyncio.run(registry.call(name, args, context))
    if not result.ok:
        raise SystemExit(f"{name} failed: {result.message}")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--big-mb", type=float, default=39.0)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--src", type=Path, default=REPO / "src", help="the noted code to run")
    args = parser.parse_args()
    sys.path.insert(0, str(args.src.resolve()))
    from tests.support.joplin import JoplinServer, Wire, free_port, unavailable_reason

    from noted.search.joplin import keyword_search_for
    from noted.settings import Settings
    from noted.store.protocol import NoteOrder
    from noted.tools import ToolContext, build_registry
    from noted.ui.data import NoteSource, SourceKind, load_page

    reason = unavailable_reason()
    if reason:
        print(f"cannot run: {reason}")
        return 1
    work = Path(tempfile.mkdtemp(prefix="bench-joplin-list-"))
    server = JoplinServer(work / "joplin", free_port())
    server.start()
    try:
        started = time.perf_counter()
        folder = _fill(server.url, server.token, args.notes, args.big_mb)
        print(f"{args.notes} notes, one of {args.big_mb:g} MB, made in {time.perf_counter() - started:.0f} s")
        wire = Wire()
        store = server.store(work / "profile", wire=wire)
        settings = Settings.load(work / "config.toml", environ={})
        registry = build_registry(settings)
        source = NoteSource(SourceKind.FOLDER, folder, "Bench list")
        keyword = keyword_search_for(store)
        context = ToolContext(store=store, settings=settings, keyword=keyword, actor="mcp:bench")
        measures: dict[str, Callable[[], object]] = {
            "app's first page": lambda: load_page(store, source, NoteOrder.UPDATED),
            "noted list (50)": lambda: store.list_notes(folder_id=folder, limit=50),
        }
        measures["list_notebook_notes (20)"] = lambda: _tool(
            registry, context, "list_notebook_notes", notebook_id=folder, limit=20
        )
        measures["list_notes (20)"] = lambda: _tool(registry, context, "list_notes", limit=20)
        big = store.list_notes(folder_id=folder, limit=1)[0].id
        measures["opening the big note"] = lambda: store.get_note(big)
        for name, fn in measures.items():
            ms, mb = _timed(wire, args.runs, fn)
            print(f"{name:26} {ms:9.1f} ms {mb:9.2f} MB")
        store.close()
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

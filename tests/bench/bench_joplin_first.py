"""What the app's first page of the note list costs on Joplin: time and requests to its Data API.

    python3 tests/bench/bench_joplin_first.py [--notes 1000] [--runs 5] [--src OTHER/src]

Starts a real Joplin (the terminal app of ``.ci/joplin-setup``) on a free port and puts in one
notebook ``--notes`` notes of about 1 kB, one in five carrying one or two of ten tags. Then times,
over ``--runs`` runs each (the median is printed), with the requests counted below httpx
(``tests.support.joplin.Wire``), the first page (``noted.ui.data.load_page``) of: all notes, the
notebook, one tag, and a search matching every note. The load average is printed before and after,
as other work on the machine moves the times.

``--src`` runs another checkout's code (``/work/main/src``) to compare.
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import httpx

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

if TYPE_CHECKING:
    from tests.support.joplin import Wire

    from noted.store.joplin import JoplinStore
    from noted.ui.data import NoteSource


def _fill(server_url: str, token: str, notes: int) -> tuple[str, str]:
    """A notebook of ``notes`` notes, a fifth of them tagged; its id, and the first tag's."""
    api = httpx.Client(base_url=server_url, params={"token": token}, timeout=600)
    folder = str(api.post("/folders", json={"title": "Bench first"}).json()["id"])
    tags = [str(api.post("/tags", json={"title": f"topic{t}"}).json()["id"]) for t in range(10)]
    line = "A line of the notes about the garden, the budget and the plan. " * 16 + "\n"
    for i in range(notes):
        body = f"# Note {i}\n\n{line}"
        note = str(
            api.post("/notes", json={"title": f"Note {i}", "body": body, "parent_id": folder}).json()["id"]
        )
        if i % 5 == 0:
            for tag in {tags[i % 10], tags[(i // 5) % 10]}:
                api.post(f"/tags/{tag}/notes", json={"id": note})
    api.close()
    return folder, tags[0]


def _timed(wire: Wire, runs: int, work: Callable[[], object]) -> tuple[float, int]:
    """Median ms and requests per run."""
    times, counts = [], []
    for _ in range(runs):
        wire.clear()
        start = time.perf_counter()
        work()
        times.append((time.perf_counter() - start) * 1000)
        counts.append(len(wire.requests))
    return statistics.median(times), int(statistics.median(counts))


def _measure(store: JoplinStore, wire: Wire, sources: dict[str, NoteSource], runs: int) -> None:
    from noted.search.joplin import keyword_search_for
    from noted.store.protocol import NoteOrder
    from noted.ui.data import load_page

    keyword = keyword_search_for(store)
    for name, source in sources.items():
        first = load_page(store, source, NoteOrder.UPDATED, keyword=keyword)  # search: the recent notes read
        page = functools.partial(load_page, store, source, NoteOrder.UPDATED, keyword=keyword)
        ms, requests = _timed(wire, runs, page)
        print(f"{name:16} {ms:8.1f} ms {requests:5d} requests   ({len(first.rows)} rows of {first.total})")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--src", type=Path, default=REPO / "src", help="the noted code to run")
    args = parser.parse_args()
    sys.path.insert(0, str(args.src.resolve()))
    from tests.support.joplin import Wire, bench_server

    from noted.ui.data import ALL_NOTES, NoteSource, SourceKind

    with bench_server("bench-joplin-first-") as (server, work):
        started = time.perf_counter()
        folder, tag = _fill(server.url, server.token, args.notes)
        print(f"{args.notes} notes made in {time.perf_counter() - started:.0f} s; code: {args.src}")
        print("load average before: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
        wire = Wire()
        store = server.store(work / "profile", wire=wire)
        sources = {
            "all notes": ALL_NOTES,
            "the notebook": NoteSource(SourceKind.FOLDER, folder, "Bench first"),
            "one tag": NoteSource(SourceKind.TAG, tag, "topic0"),
            "search 'garden'": NoteSource(SourceKind.SEARCH, "garden", "garden"),
        }
        _measure(store, wire, sources, args.runs)
        print("load average after:  {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
        store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The Joplin backend's speed against a real Joplin (the terminal app from ``../shared/scripts``).

    python3 tests/bench/bench_joplin.py --notes 500            # starts its own Joplin on a free port
    python3 tests/bench/bench_joplin.py --url http://127.0.0.1:41184 --token TOKEN --notes 500

Creates ``--notes`` notes in a new notebook through noted, then times, over ``--runs`` runs each:
opening a note, a page of 50 notes, an idle change-feed poll, a keyword search (Joplin's index plus
noted's pass over recently changed notes) and an update. Prints p50/p95 wall times in ms.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.support.joplin import JoplinServer, free_port, unavailable_reason  # noqa: E402

from noted.models import NoteDraft, NotePatch  # noqa: E402
from noted.search.joplin import JoplinKeywordSearch  # noqa: E402
from noted.store.joplin import JoplinStore  # noqa: E402


def _body(i: int) -> str:
    para = f"Notes about topic {i % 17}: the garden, the budget and the plan number {i}. "
    return f"# Note {i}\n\n{para * 8}\n\n## Details\n\n{para * 4}\n"


def _timed(runs: int, work: Callable[[int], object]) -> tuple[float, float]:
    samples = []
    for i in range(runs):
        start = time.perf_counter()
        work(i)
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return statistics.median(samples), samples[min(len(samples) - 1, int(len(samples) * 0.95))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="")
    parser.add_argument("--token", default="")
    parser.add_argument("--notes", type=int, default=500)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-joplin-"))
    server = None
    if not args.url:
        reason = unavailable_reason()
        if reason:
            print(f"cannot run: {reason}")
            return 1
        server = JoplinServer(work / "joplin", free_port())
        started = time.perf_counter()
        server.start()
        print(f"joplin-server start: {time.perf_counter() - started:.1f} s")
        args.url, args.token = server.url, server.token
    store = JoplinStore.open(work / "profile", url=args.url, token=args.token)
    try:
        store.latest_cursor()
        folder = store.create_folder(f"Bench {time.time():.0f}", actor="user")
        started = time.perf_counter()
        ids = [
            store.create_note(NoteDraft(f"Note {i}", _body(i), folder.id), actor="user").id
            for i in range(args.notes)
        ]
        per_note = (time.perf_counter() - started) * 1000 / max(1, args.notes)
        print(f"create_note: {per_note:.1f} ms per note ({args.notes} notes)")
        search = JoplinKeywordSearch(store)
        measures: dict[str, Callable[[int], object]] = {
            "get_note": lambda i: store.get_note(ids[i % len(ids)]),
            "list_notes(limit=50)": lambda i: store.list_notes(folder_id=folder.id, limit=50),
            "changes_since (idle)": lambda i: store.changes_since(store.latest_cursor()),
            "keyword search": lambda i: search.search("note", limit=20),
            "update_note": lambda i: store.update_note(
                ids[i % len(ids)], NotePatch(append="x"), actor="user"
            ),
        }
        for name, fn in measures.items():
            p50, p95 = _timed(args.runs, fn)
            print(f"{name:24} p50 {p50:7.1f} ms   p95 {p95:7.1f} ms")
    finally:
        store.close()
        if server is not None:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

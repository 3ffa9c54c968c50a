"""Two machines kept in step by Joplin sync: from ``joplin sync`` finishing on the receiving side to noted finding it.

    python3 tests/bench/bench_joplin_sync.py --runs 10           # the local embedding model
    python3 tests/bench/bench_joplin_sync.py --runs 10 --fake    # the fake embedder (no model)

Starts two Joplin terminal-app profiles syncing through one folder (``tests.support.joplin_sync``).
Each run: a note is made on the laptop, the laptop syncs, then the server syncs; the clock starts
when the server's ``joplin sync`` returns and stops when the server's noted finds the note by
meaning (an indexer following the change feed as ``noted index --watch`` does, polling every
0.25 s, and a semantic search after each pass). Then the same for the note trashed on the laptop:
until the server's semantic and keyword search no longer return it. Prints the median, the p90
and the time Joplin's own sync took on the server, with the load average.
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.support.joplin_sync import Pair, start_pair  # noqa: E402

from noted.embeddings import Embedder, make_embedder  # noqa: E402
from noted.indexer.engine import Indexer  # noqa: E402
from noted.models import NoteDraft  # noqa: E402
from noted.search.joplin import JoplinKeywordSearch  # noqa: E402
from noted.search.semantic import SemanticSearch  # noqa: E402

POLL = 0.25


def _until(check: Callable[[], bool], timeout: float = 120.0) -> float:
    """Seconds until ``check`` holds (polling every ``POLL`` s); raises after ``timeout``."""
    start = time.perf_counter()
    while not check():
        if time.perf_counter() - start > timeout:
            raise TimeoutError("noted did not catch up")
        time.sleep(POLL)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--fake", action="store_true", help="the fake embedder instead of the local model")
    args = parser.parse_args()
    embedder: Embedder = make_embedder("fake" if args.fake else "local")
    with tempfile.TemporaryDirectory(prefix="bench-sync-") as tmp:
        pair = start_pair(Path(tmp))
        try:
            found, gone, syncs = _measure(pair, embedder, args.runs, Path(tmp))
        finally:
            pair.stop()
    load = os.getloadavg()
    for name, samples in (("found by meaning", found), ("trash left search", gone), ("joplin sync", syncs)):
        p90 = sorted(samples)[max(0, round(0.9 * len(samples)) - 1)]
        print(f"{name:>18}: median {statistics.median(samples):.2f} s, p90 {p90:.2f} s (n={len(samples)})")
    print(
        f"embedder: {'fake' if args.fake else 'local'}; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    return 0


def _measure(
    pair: Pair, embedder: Embedder, runs: int, tmp: Path
) -> tuple[list[float], list[float], list[float]]:
    laptop = pair.laptop.joplin.store(tmp / "laptop-noted")
    server = pair.server.joplin.store(tmp / "server-noted")
    indexer = Indexer(server, server.db, embedder)
    indexer.prepare()
    indexer.run_until_idle()
    semantic = SemanticSearch(server, server.db, embedder)
    keyword = JoplinKeywordSearch(server)
    folder = laptop.create_folder("Bench " + secrets.token_hex(3), actor="user")
    found: list[float] = []
    gone: list[float] = []
    syncs: list[float] = []

    def first_hit(query: str) -> str | None:
        indexer.run_until_idle()
        hits = semantic.search(query)
        return hits[0].note_id if hits else None

    for i in range(runs):
        word = "zq" + secrets.token_hex(4)
        body = f"The lighthouse keeper {word} logs ships and storms on night {i}."
        note = laptop.create_note(NoteDraft(f"Log {word}", body, folder.id), actor="user")
        query = f"lighthouse keeper {word} ships storms"
        pair.laptop.sync()
        start = time.perf_counter()
        pair.server.sync()
        syncs.append(time.perf_counter() - start)

        def arrived(q: str = query, n: str = note.id) -> bool:
            return first_hit(q) == n

        found.append(_until(arrived))
        laptop.trash_note(note.id, actor="user")
        pair.laptop.sync()
        pair.server.sync()

        def left(q: str = query, n: str = note.id, w: str = word) -> bool:
            return first_hit(q) != n and not keyword.search(w).hits

        gone.append(_until(left))
    laptop.close()
    server.close()
    return found, gone, syncs


if __name__ == "__main__":
    raise SystemExit(main())

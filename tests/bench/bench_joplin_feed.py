"""The Joplin sidecar's reads of one item's feed rows, with and without the feed's item index.

    python3 tests/bench/bench_joplin_feed.py --rows 10000 --notes 2000

Fills a new sidecar's ``joplin_feed`` with ``--rows`` rows over ``--notes`` notes (a model's and
Joplin's changes, some keeping a place), then times what the review reads by item: a page of 500
notes' newest change (``Sidecar.item_changes``, as ``note_history`` asks before each diff and
line count) and a note's last kept place (``Sidecar.kept_place``, before each of noted's note
writes). It times them with the index (``joplin_feed_item``, schema 7), then drops it and times
them again. Prints the medians in ms. No Joplin is needed.
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

from noted.models import ChangeType, ItemType, Place  # noqa: E402
from noted.store.joplin.sidecar import Sidecar  # noqa: E402

PAGE = 500


def _fill(sidecar: Sidecar, rows: int, notes: int) -> list[str]:
    ids = [f"{i:032x}" for i in range(notes)]
    for start in range(0, rows, 1000):
        with sidecar.db.write() as conn:
            for n in range(start, min(rows, start + 1000)):
                note_id = ids[(n * 7919) % notes]
                placed = n % 2 == 0
                conn.execute(
                    "INSERT INTO joplin_feed(joplin_id, item_type, item_id, change_type, time, actor, place) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        None if placed else n,
                        ItemType.NOTE.value,
                        note_id,
                        ChangeType.UPDATE.value,
                        n,
                        "mcp:bench" if placed else "joplin",
                        '["f", 0, []]' if placed else None,
                    ),
                )
    sidecar.record(ItemType.NOTE, [ids[0]], ChangeType.UPDATE, "mcp:bench", {ids[0]: Place("f", 0, ())})
    return ids


def _median(runs: int, work: Callable[[], object]) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def _time(sidecar: Sidecar, ids: list[str], runs: int) -> tuple[float, float]:
    page = ids[:PAGE]
    history = _median(runs, lambda: [sidecar.item_changes([i], 1) for i in page])
    place = _median(runs * 20, lambda: sidecar.kept_place(ids[-1]))
    return history, place


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--notes", type=int, default=2_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        sidecar = Sidecar.open(Path(tmp) / "sidecar.db")
        ids = _fill(sidecar, args.rows, args.notes)
        with_index = _time(sidecar, ids, args.runs)
        with sidecar.db.write() as conn:
            conn.execute("DROP INDEX joplin_feed_item")
        without = _time(sidecar, ids, args.runs)
        sidecar.close()
    print(f"feed of {args.rows:,} rows over {args.notes:,} notes (median ms)")
    print(
        f"  newest change of each of {PAGE} notes: {without[0]:8.1f} without the index, {with_index[0]:8.1f} with it"
    )
    print(
        f"  one note's last kept place:           {without[1]:8.3f} without the index, {with_index[1]:8.3f} with it"
    )


if __name__ == "__main__":
    main()

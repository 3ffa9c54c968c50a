"""Benchmark of note history: database size and save time as revisions pile up.

Two cases of issue 34:

- ``appends``: ten notes, each appended to ``--appends`` times (1,000 by default) with a line of
  about 85 bytes, by one actor, as an AI app logging into notes does;
- ``saves``: ``--notes`` notes (10,000) from ``corpus.py``, then ``--saves`` saves (50,000) of
  random notes, each a separate command (a new revision): half append a line, half rewrite a
  paragraph.

For each: the database size (pages, after a checkpoint) before and after the saves, the median and
p95 wall time of one ``update_note``, and, where the code has it, ``prune_history`` after the
revisions have aged a month (so the thinning rule applies) with the size after it.

Usage (from the repository root)::

    python3 tests/bench/bench_history.py                       # both cases, this checkout
    PYTHONPATH=/tmp/old/src python3 tests/bench/bench_history.py   # another checkout's store

Results go to stdout and ``tests/bench/out/bench-history.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

from corpus import Corpus, fill_store

import noted
from noted.models import NoteDraft, NotePatch
from noted.store.sqlite import SqliteStore

OUT = Path(__file__).resolve().parent / "out"
DAY_MS = 24 * 60 * 60 * 1000


def _size(store: SqliteStore) -> int:
    conn = store.db.connection()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    return int(pages) * int(conn.execute("PRAGMA page_size").fetchone()[0])


def _timed(samples: list[float], call: Any) -> None:
    start = time.perf_counter()
    call()
    samples.append((time.perf_counter() - start) * 1000)


def _summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "median_ms": round(statistics.median(ordered), 3),
        "p95_ms": round(ordered[int(len(ordered) * 0.95)], 3),
        "total_s": round(sum(ordered) / 1000, 1),
    }


def _age_and_prune(store: SqliteStore) -> dict[str, Any] | None:
    """Age every revision by 30 days and prune, when this checkout can prune."""
    if not hasattr(store, "prune_history"):
        return None
    with store.db.write() as conn:
        conn.execute("UPDATE revisions SET time = time - ?, first_time = first_time - ?", (30 * DAY_MS,) * 2)
    start = time.perf_counter()
    pruned = store.prune_history()
    return {
        "seconds": round(time.perf_counter() - start, 1),
        "removed": pruned.removed,
        "size_after_mb": round(_size(store) / 1e6, 1),
    }


def appends(root: Path, count: int) -> dict[str, Any]:
    store = SqliteStore.open(root / "notes.db", root / "resources")
    folder = store.create_folder("Logs", actor="user")
    ids = [
        store.create_note(NoteDraft(title=f"Log {i}", body="", parent_id=folder.id), actor="mcp:logger").id
        for i in range(10)
    ]
    before = _size(store)
    samples: list[float] = []
    for n in range(count):
        for note_id in ids:
            line = f"{n:05d} {time.time():.6f} the agent looked at the build and found it green again\n"
            patch = NotePatch(append=line)
            _timed(samples, partial(store.update_note, note_id, patch, actor="mcp:logger"))
    result: dict[str, Any] = {
        "size_before_mb": round(before / 1e6, 1),
        "size_after_mb": round(_size(store) / 1e6, 1),
    }
    result |= _summary(samples) | {"prune": _age_and_prune(store)}
    store.close()
    return result


def saves(root: Path, notes: int, count: int) -> dict[str, Any]:
    store = SqliteStore.open(root / "notes.db", root / "resources")
    corpus = Corpus(notes)
    fill_store(store, corpus)
    ids = [m.id for m in store.list_notes()]
    before = _size(store)
    rng = random.Random(7)
    samples: list[float] = []
    for n in range(count):
        note_id = rng.choice(ids)
        if n % 2:
            patch = NotePatch(append=f"\n{n} a line added to the note at the end, as people do\n")
        else:
            body = store.get_note(note_id).body
            paragraphs = body.split("\n\n")
            at = rng.randrange(len(paragraphs))
            words = paragraphs[at].split() or ["empty"]
            paragraphs[at] = f"Rewritten in save {n}: " + " ".join(rng.sample(words, min(len(words), 12)))
            patch = NotePatch(body="\n\n".join(paragraphs))
        _timed(samples, partial(store.update_note, note_id, patch, actor="user"))
    result: dict[str, Any] = {
        "size_before_mb": round(before / 1e6, 1),
        "size_after_mb": round(_size(store) / 1e6, 1),
    }
    result |= _summary(samples) | {"prune": _age_and_prune(store)}
    store.close()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=("appends", "saves", "both"), default="both")
    parser.add_argument("--appends", type=int, default=1000)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--saves", type=int, default=50_000)
    args = parser.parse_args(argv)
    report: dict[str, Any] = {
        "store": str(Path(noted.__file__).parent),
        "load_average": os.getloadavg(),
    }
    with tempfile.TemporaryDirectory(prefix="bench-history-") as tmp:
        if args.case in ("appends", "both"):
            report["appends"] = appends(Path(tmp, "appends"), args.appends)
            print("appends:", json.dumps(report["appends"]), flush=True)
        if args.case in ("saves", "both"):
            report["saves"] = saves(Path(tmp, "saves"), args.notes, args.saves)
            print("saves:", json.dumps(report["saves"]), flush=True)
    report["load_average_after"] = os.getloadavg()
    OUT.mkdir(exist_ok=True)
    (OUT / "bench-history.json").write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Tool calls by a client confined to one notebook (and its sub-notebooks), against unconfined ones.

Usage::

    python3 tests/bench/bench_scope.py                      # 10,000 notes, 30 runs of each call
    PYTHONPATH=/path/to/other/src python3 tests/bench/bench_scope.py   # another checkout's code

The profile is ``corpus.py``'s (cached under ``tests/bench/out/scope-N``). The scope is the
top-level notebook whose subtree holds the fewest notes but at least 1 % of them, so most notes lie
outside it. Each call goes through the registry as an MCP call does, with a ``ToolContext`` whose
scope names that notebook by id (``Scope.of``, the same in every checkout since issue 33). Printed:
the median and p95 wall time per call, the median CPU time of the process per call, and the load
average. The calls: ``list_tags``, ``list_notes``, ``get_tag`` and ``list_tag_notes`` of the most
used tag, ``search_notes`` of a common word, ``list_notebooks``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from corpus import Corpus, fill_store  # noqa: E402

from noted.profile import Profile  # noqa: E402
from noted.search.keyword import KeywordSearch  # noqa: E402
from noted.settings import Settings  # noqa: E402
from noted.store.sqlite import SqliteStore  # noqa: E402
from noted.tools import Scope, ToolContext, build_registry  # noqa: E402

OUT = Path(__file__).parent / "out"


def profile_of(notes: int) -> Path:
    root = OUT / f"scope-{notes}"
    if not (root / "notes.db").exists():
        Profile(root).ensure()
        store = SqliteStore.open(root / "notes.db", root / "resources")
        try:
            fill_store(store, Corpus(notes, seed=1))
        finally:
            store.close()
    return root


def scope_root(store: SqliteStore, notes: int) -> str:
    """The top-level notebook with the smallest subtree holding at least 1 % of the notes."""
    folders = store.list_folders()
    counts = store.folder_note_counts()
    children: dict[str, list[str]] = {}
    for folder in folders:
        children.setdefault(folder.parent_id, []).append(folder.id)

    def total(folder_id: str) -> int:
        return counts.get(folder_id, 0) + sum(total(c) for c in children.get(folder_id, ()))

    sizes = sorted((total(f.id), f.id) for f in folders if not f.parent_id)
    return next(i for size, i in sizes if size >= notes // 100)


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    root = profile_of(args.notes)
    store = SqliteStore.open(root / "notes.db", root / "resources")
    settings = Settings.load(Profile(root))
    registry = build_registry(settings)
    tag = store.list_tags(with_notes_only=True)
    top_tag = max(tag, key=lambda t: t.note_count).id
    calls: dict[str, dict[str, Any]] = {
        "list_tags": {},
        "list_notes": {"limit": 50},
        "get_tag": {"id": top_tag},
        "list_tag_notes": {"tag_id": top_tag},
        "search_notes": {"query": "the", "limit": 20},
        "list_notebooks": {},
    }
    report: dict[str, Any] = {"notes": args.notes, "runs": args.runs}
    for label, scope in (("scoped", Scope.of([scope_root(store, args.notes)])), ("unscoped", Scope())):
        ctx = ToolContext(store, settings, KeywordSearch(store), actor="mcp:bench", scope=scope)
        rows: dict[str, Any] = {}
        for name, arguments in calls.items():
            walls, cpus = [], []
            for _ in range(args.runs):
                cpu, wall = time.process_time(), time.perf_counter()
                result = await registry.call(name, arguments, ctx)
                walls.append((time.perf_counter() - wall) * 1000)
                cpus.append((time.process_time() - cpu) * 1000)
                assert result.ok, result.message
            walls.sort()
            rows[name] = {
                "median_ms": round(statistics.median(walls), 2),
                "p95_ms": round(walls[int(0.95 * (len(walls) - 1))], 2),
                "cpu_median_ms": round(statistics.median(cpus), 2),
            }
        report[label] = rows
    store.close()
    report["load_average"] = [round(x, 2) for x in os.getloadavg()]
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=30)
    print(json.dumps(asyncio.run(measure(parser.parse_args())), indent=2))


if __name__ == "__main__":
    main()

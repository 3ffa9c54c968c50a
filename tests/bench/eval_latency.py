"""Search's latency over the evaluation's corpora, English queries and the others apart.

``python3 tests/bench/eval_latency.py [--mode semantic]`` runs every query of
``eval_suite_queries.json`` once through ``Finder.search`` in hybrid mode (or the one named; limit 10), as the front ends run it, over the MiniLM indexes ``eval_suite.py`` builds, after one
warm-up search per corpus, and prints the wall-clock p50 and p95 of the English queries and of
the Spanish, German and French ones (which go through ``noted.search.translate``; the first of
them in a process also loads the glossary, about 0.2 s, see ``bench_index.py --query-only``).
Wall time includes waiting for a core on a busy machine; CPU time (of the searching thread; the
model runs on one thread) does not. Run it with another checkout's ``src`` first on
``PYTHONPATH`` for a before/after pair.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import eval_models
import eval_suite

QUERIES = Path(__file__).resolve().parent / "eval_suite_queries.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--mode", choices=("hybrid", "semantic", "keyword"), default="hybrid")
    mode = parser.parse_args().mode
    queries = json.loads(QUERIES.read_text(encoding="utf-8"))["queries"]
    walls: dict[str, list[float]] = {"english": [], "foreign": []}
    cpus: dict[str, list[float]] = {"english": [], "foreign": []}
    for corpus in ("git", "pg"):
        store, embedder, _ = eval_models.open_indexed(eval_models.DEFAULT, corpus)
        finder = eval_suite.finder_for(store, embedder)
        finder.search("warm up the model", mode=mode, limit=10)
        for q in queries:
            if q["corpus"] != corpus:
                continue
            kind = "foreign" if q["category"] == "foreign" else "english"
            started, cpu = time.perf_counter(), time.thread_time()
            finder.search(q["query"], mode=mode, limit=10)
            walls[kind].append(time.perf_counter() - started)
            cpus[kind].append(time.thread_time() - cpu)
        store.close()
    for kind, values in walls.items():
        print(f"{kind}: {len(values)} queries, wall {_summary(values)}; CPU {_summary(cpus[kind])}")
    return 0


def _summary(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[int(0.95 * (len(ordered) - 1))]
    return f"p50 {statistics.median(ordered) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms"


if __name__ == "__main__":
    raise SystemExit(main())

"""Search's latency over the evaluation's corpora, English queries and the others apart.

``python3 tests/bench/eval_latency.py [--mode semantic]`` runs every query of
``eval_suite_queries.json`` once through ``Finder.search`` in hybrid mode (or the one named; limit 10), as the front ends run it, over the MiniLM indexes ``eval_suite.py`` builds, after one
warm-up search per corpus, and prints the wall-clock p50 and p95 of the English queries and of
the Spanish, German and French ones (which go through ``noted.search.translate``; the first of
them in a process also loads the glossary, about 0.2 s, see ``bench_index.py --query-only``).
Wall time includes waiting for a core on a busy machine; CPU time (of the searching thread; the
model runs on one thread) does not. Run it with another checkout's ``src`` first on
``PYTHONPATH`` for a before/after pair.

``--generated N --behind M`` times instead a generated corpus of N notes (``corpus.py``) indexed by
the fake embedder (384 dimensions: no model, so the figures are search's own work), first up to date,
then with M indexed notes edited since (the index behind, as when no process follows the feed), and
``index_coverage`` alone in both states (what says ``N notes changed since indexed``).
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
    parser.add_argument("--generated", type=int, default=0, help="notes of a generated corpus instead")
    parser.add_argument(
        "--behind", type=int, default=2000, help="with --generated: notes edited after indexing"
    )
    args = parser.parse_args()
    mode = args.mode
    if args.generated:
        return _behind(args.generated, args.behind, mode)
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


def _behind(notes: int, behind: int, mode: str) -> int:
    """Search over a generated corpus up to date, then with ``behind`` notes edited since indexing."""
    import os
    import tempfile

    import corpus as generated

    from noted.embeddings.fake import FakeEmbedder
    from noted.indexer.coverage import index_coverage
    from noted.indexer.engine import Indexer
    from noted.models import NotePatch
    from noted.store.sqlite import SqliteStore

    folder = Path(tempfile.mkdtemp(prefix="eval-latency-"))
    store = SqliteStore.open(folder / "notes.db", folder / "resources")
    made = generated.Corpus(notes)
    generated.fill_store(store, made)
    embedder = FakeEmbedder(dim=384)
    indexer = Indexer(store, store.db, embedder)
    indexer.prepare()
    indexer.run_until_idle()
    finder = eval_suite.finder_for(store, embedder)
    queries = [" ".join(made.note(i).title.split()[:3]) for i in range(0, notes, max(1, notes // 60))]
    finder.search("warm up", mode=mode, limit=10)
    ids = [m.id for m in store.list_notes()][:behind]
    for state in ("up to date", f"{len(ids):,} notes changed since indexed"):
        if ids and state != "up to date":
            with store.batch():
                for note_id in ids:
                    store.update_note(note_id, NotePatch(append="edited"), actor="user")
        walls: dict[str, list[float]] = {"search": [], "coverage": []}
        cpus: dict[str, list[float]] = {"search": [], "coverage": []}
        for q in queries:
            for part in ("search", "coverage"):
                started, cpu = time.perf_counter(), time.thread_time()
                if part == "search":
                    finder.search(q, mode=mode, limit=10)
                else:
                    coverage = index_coverage(store, store.db)
                walls[part].append(time.perf_counter() - started)
                cpus[part].append(time.thread_time() - cpu)
        coverage = index_coverage(store, store.db)  # as the last query left it
        print(f"{notes:,} notes, {state} ({coverage.notice() or 'complete'}), load {os.getloadavg()[0]:.2f}:")
        print(f"  {mode} search: wall {_summary(walls['search'])}; CPU {_summary(cpus['search'])}")
        print(f"  index_coverage alone: wall {_summary(walls['coverage'])}; CPU {_summary(cpus['coverage'])}")
    store.close()
    return 0


def _summary(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[int(0.95 * (len(ordered) - 1))]
    return f"p50 {statistics.median(ordered) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms"


if __name__ == "__main__":
    raise SystemExit(main())

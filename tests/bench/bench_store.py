"""Benchmark of the embedded notebook: import time, keyword search, note open time, database size.

Usage::

    python3 tests/bench/bench_store.py --notes 10000
    python3 tests/bench/bench_store.py --notes 100000      # several minutes the first time

The corpus (``corpus.py``) and the imported profile are cached under ``tests/bench/out/`` (git
ignored), so a second run only measures the searches; ``--fresh`` rebuilds them. Import goes
through ``noted.store.transfer.import_markdown`` (what ``noted import DIR`` runs) when that module
exists, else through the batched fast path of ``corpus.fill_store``; the report says which.
Results are printed as a table and written to ``tests/bench/out/bench-<notes>-<path>.json``.

Targets on the reference 2-core machine: keyword search p95 < 30 ms at 10k notes and < 150 ms at
100k; opening a note (``get_note`` + ``markdown.outline``) < 5 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import asdict
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import apsw
from bench_queries import BenchQuery, build_queries
from corpus import DAY_MS, Corpus, fill_store, write_markdown

from noted.errors import NotedError
from noted.markdown import outline
from noted.store.sqlite import SqliteStore

OUT = Path(__file__).resolve().parent / "out"
SEARCH_P95_TARGET_MS = {10_000: 30.0, 100_000: 150.0}
OPEN_P95_TARGET_MS = 5.0
T = TypeVar("T")


def percentile(samples: list[float], q: float) -> float:
    """The ``q``-th percentile (0–100) by linear interpolation, as numpy's default does."""
    ordered = sorted(samples)
    if not ordered:
        return float("nan")
    pos = (len(ordered) - 1) * q / 100
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def summary(samples_ms: list[float]) -> dict[str, float]:
    return {
        "n": len(samples_ms),
        "p50_ms": round(percentile(samples_ms, 50), 3),
        "p95_ms": round(percentile(samples_ms, 95), 3),
        "p99_ms": round(percentile(samples_ms, 99), 3),
        "max_ms": round(max(samples_ms), 3) if samples_ms else float("nan"),
    }


def log(message: str) -> None:
    print(f"[{datetime.now():%H:%M:%S}] {message}", file=sys.stderr, flush=True)


# Building the profile ------------------------------------------------------------------------
def transfer_available() -> bool:
    try:
        import noted.store.transfer  # noqa: F401
    except ImportError:
        return False
    return True


def today_anchor() -> int:
    """Midnight UTC today: the corpus's "now", so relative date filters find recent notes."""
    now = int(time.time() * 1000)
    return now - now % DAY_MS


def build_profile(args: argparse.Namespace, path: str, profile: Path, record: Path) -> dict[str, Any]:
    """Create the profile through the chosen import path and time the import alone."""
    anchor = today_anchor()
    corpus = Corpus(args.notes, seed=args.seed, anchor_ms=anchor)
    shutil.rmtree(profile, ignore_errors=True)
    if path == "transfer":
        from noted.store.transfer import import_markdown

        source = OUT / f"md-{args.notes}-s{args.seed}"
        done = OUT / f"md-{args.notes}-s{args.seed}.complete"
        if args.fresh or not done.exists():
            shutil.rmtree(source, ignore_errors=True)
            log(f"writing {args.notes:,} Markdown files to {source}")
            write_markdown(corpus, source, lambda n: log(f"  {n:,} files") if n % 10_000 == 0 else None)
            done.write_text(json.dumps({"anchor_ms": anchor}), encoding="utf-8")
        anchor = int(json.loads(done.read_text(encoding="utf-8"))["anchor_ms"])
        store = SqliteStore.open(profile / "notes.db", profile / "resources")
        log(f"importing {source} through noted.store.transfer.import_markdown")
        start, start_cpu = time.perf_counter(), time.process_time()
        report = import_markdown(store, source)
        seconds, cpu = time.perf_counter() - start, time.process_time() - start_cpu
        created = report.notes_created
    else:
        log(f"generating {args.notes:,} notes in memory (not timed)")
        notes = list(corpus.notes())
        store = SqliteStore.open(profile / "notes.db", profile / "resources")
        log("importing through corpus.fill_store (create_note in batches of 1000)")
        start, start_cpu = time.perf_counter(), time.process_time()
        fill_store(store, corpus, iter(notes), lambda n: log(f"  {n:,} notes") if n % 10_000 == 0 else None)
        seconds, cpu = time.perf_counter() - start, time.process_time() - start_cpu
        created = len(notes)
    store.close()
    result = {
        "path": path,
        "notes": created,
        "seconds": round(seconds, 2),
        "cpu_seconds": round(cpu, 2),
        "load_avg_1m_after": round(os.getloadavg()[0], 2),
        "notes_per_s": round(created / seconds, 1),
        "anchor_ms": anchor,
        "db_mb_after_import": round(db_size(profile)["total_mb"], 1),
    }
    record.write_text(json.dumps(result, indent=2), encoding="utf-8")
    return result


def db_size(profile: Path) -> dict[str, float]:
    sizes = {}
    for suffix in ("", "-wal", "-shm"):
        file = profile / f"notes.db{suffix}"
        sizes[f"notes.db{suffix}"] = file.stat().st_size / 1e6 if file.exists() else 0.0
    db, wal = sizes["notes.db"], sizes["notes.db-wal"]
    return {"db_mb": round(db, 1), "wal_mb": round(wal, 1), "total_mb": round(db + wal, 1)}


# Measuring ----------------------------------------------------------------------------------
def corpus_stats(store: SqliteStore) -> dict[str, Any]:
    with store.db.read() as conn:
        n, avg, longest, todos = conn.execute(
            "SELECT count(*), avg(length(body)), max(length(body)), sum(is_todo) FROM notes"
        ).fetchone()
        lengths = [r[0] for r in conn.execute("SELECT length(body) FROM notes")]
        links = conn.execute("SELECT count(*) FROM note_tags").fetchone()[0]
    folders = store.list_folders()
    depth: dict[str, int] = {}
    by_id = {f.id: f for f in folders}
    for f in folders:
        d, cur = 0, f
        while cur.parent_id in by_id:
            d, cur = d + 1, by_id[cur.parent_id]
        depth[f.id] = d
    return {
        "notes": n,
        "notebooks": len(folders),
        "max_notebook_depth": max(depth.values()) + 1 if depth else 0,
        "tags": len(store.list_tags()),
        "tag_links": links,
        "todos": todos,
        "body_chars_median": int(statistics.median(lengths)) if lengths else 0,
        "body_chars_mean": int(avg or 0),
        "body_chars_max": longest,
    }


class Samples:
    """Latencies of one kind of operation, in wall time and in this thread's CPU time (ms).

    CPU time is kept beside wall time because the machine is shared: when other processes keep
    the cores busy, wall time includes waiting for a core, CPU time does not.
    """

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def time(self, fn: Callable[[], T]) -> T:
        """Call ``fn``, record how long it took, and return what it returned."""
        start, start_cpu = time.perf_counter(), time.thread_time()
        value = fn()
        self.wall.append((time.perf_counter() - start) * 1000)
        self.cpu.append((time.thread_time() - start_cpu) * 1000)
        return value

    def extend(self, other: Samples) -> None:
        self.wall += other.wall
        self.cpu += other.cpu

    def summary(self) -> dict[str, dict[str, float]]:
        return {"wall": summary(self.wall), "cpu": summary(self.cpu)}


def time_queries(
    store: SqliteStore, queries: list[BenchQuery], runs: int
) -> tuple[list[dict[str, Any]], dict[str, Samples]]:
    """Run each query once (warm-up, hit count) then ``runs`` times, timed."""
    from noted.search.keyword import KeywordSearch

    search = KeywordSearch(store)
    rows: list[dict[str, Any]] = []
    by_category: dict[str, Samples] = {}
    for query in queries:
        try:
            hits = search.search(query.text, limit=20).total
        except NotedError as exc:
            rows.append({**asdict(query), "error": str(exc)})
            log(f"  query {query.text!r} failed: {exc}")
            continue
        samples = Samples()
        for _ in range(runs):
            samples.time(partial(search.search, query.text, limit=20))
        by_category.setdefault(query.category, Samples()).extend(samples)
        rows.append(
            {
                **asdict(query),
                "hits": hits,
                "median_ms": round(statistics.median(samples.wall), 3),
                "median_cpu_ms": round(statistics.median(samples.cpu), 3),
            }
        )
    return rows, by_category


def time_opens(store: SqliteStore, count: int, seed: int) -> dict[str, dict[str, dict[str, float]]]:
    """Open ``count`` random notes: ``get_note`` then ``outline`` of the body, as the viewer does."""
    with store.db.read() as conn:
        ids = [r[0] for r in conn.execute("SELECT id FROM notes ORDER BY rowid")]
    picks = random.Random(seed).choices(ids, k=count)
    for note_id in picks[:50]:  # warm-up: connection, parser, page cache
        outline(store.get_note(note_id).body)
    opens, gets, outlines = Samples(), Samples(), Samples()
    for note_id in picks:
        note = gets.time(partial(store.get_note, note_id))
        outlines.time(partial(outline, note.body))
        opens.wall.append(gets.wall[-1] + outlines.wall[-1])
        opens.cpu.append(gets.cpu[-1] + outlines.cpu[-1])
    return {"open": opens.summary(), "get_note": gets.summary(), "outline": outlines.summary()}


def wait_for_keyword(timeout_s: float) -> None:
    """Poll until ``noted.search.keyword`` imports (it may be still being written)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            from noted.search.keyword import KeywordSearch  # noqa: F401

            return
        except ImportError as exc:
            if time.monotonic() > deadline:
                raise SystemExit(f"noted.search.keyword is not importable: {exc}") from exc
            log(f"waiting for noted.search.keyword ({exc})")
            time.sleep(30)


# Report ---------------------------------------------------------------------------------------
def print_report(result: dict[str, Any]) -> None:
    imp, search, opens, size = result["import"], result["search"], result["open"], result["size"]
    target = result["targets_ms"]
    print(f"\nnoted store benchmark: {result['corpus']['notes']:,} notes, {result['machine']}")
    load = result["load_avg_1m"]
    print(f"load average (1 min) before/after: {load}; above {os.cpu_count()} the cores were contended")
    print(f"corpus: {json.dumps(result['corpus'])}")
    print(f"{'':<32}{'---- wall ----':>20}{'---- CPU -----':>20}")
    print(f"{'measure':<32}{'p50':>10}{'p95':>10}{'p50':>10}{'p95':>10}  target")
    cpu_s = imp.get("cpu_seconds", float("nan"))
    print(
        f"{'import (' + imp['path'] + ')':<32}{imp['seconds']:>9.1f}s{imp['notes_per_s']:>8.0f}/s"
        f"{cpu_s:>9.1f}s{imp['notes'] / cpu_s:>8.0f}/s"
    )

    def line(name: str, s: dict[str, dict[str, float]], t: str = "") -> None:
        w, c = s["wall"], s["cpu"]
        print(
            f"{name:<32}{w['p50_ms']:>8.2f}ms{w['p95_ms']:>8.2f}ms{c['p50_ms']:>8.2f}ms{c['p95_ms']:>8.2f}ms  {t}"
        )

    line(
        f"keyword search ({search['all']['wall']['n']} runs)",
        search["all"],
        f"p95 < {target['search_p95']:g} ms",
    )
    for category, stats in search["by_category"].items():
        line(f"  {category}", stats)
    line("open note (get_note + outline)", opens["open"], f"p95 < {target['open_p95']:g} ms")
    line("  get_note", opens["get_note"])
    line("  outline", opens["outline"])
    print(
        f"{'database size':<32}{size['total_mb']:>8.1f}MB  (notes.db {size['db_mb']} MB + WAL {size['wal_mb']} MB)"
    )
    slow = sorted((q for q in result["queries"] if "median_ms" in q), key=lambda q: -q["median_cpu_ms"])[:10]
    print("slowest queries: median wall ms, median CPU ms, hits, query")
    for q in slow:
        print(f"  {q['median_ms']:>9.2f} {q['median_cpu_ms']:>9.2f} {q['hits']:>7}  {q['text']}")
    for q in result["queries"]:
        if "error" in q:
            print(f"  FAILED {q['text']}: {q['error']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000, help="corpus size (default 10000)")
    parser.add_argument("--seed", type=int, default=1, help="corpus seed (default 1)")
    parser.add_argument("--runs", type=int, default=7, help="timed runs of each query after a warm-up")
    parser.add_argument("--opens", type=int, default=1000, help="how many random notes to open")
    parser.add_argument("--import-path", choices=("auto", "transfer", "batch"), default="auto")
    parser.add_argument("--fresh", action="store_true", help="rebuild the cached corpus and profile")
    args = parser.parse_args(argv)
    path = args.import_path
    if path == "auto":
        path = "transfer" if transfer_available() else "batch"
    OUT.mkdir(parents=True, exist_ok=True)
    profile = OUT / f"profile-{args.notes}-s{args.seed}-{path}"
    record = OUT / f"profile-{args.notes}-s{args.seed}-{path}.json"
    if args.fresh or not record.exists():
        imported = build_profile(args, path, profile, record)
    else:
        imported = json.loads(record.read_text(encoding="utf-8"))
        log(f"reusing {profile} (imported in {imported['seconds']} s; --fresh rebuilds it)")
    wait_for_keyword(timeout_s=3600)
    load_before = os.getloadavg()[0]
    store = SqliteStore.open(profile / "notes.db", profile / "resources")
    try:
        stats = corpus_stats(store)
        corpus = Corpus(args.notes, seed=args.seed, anchor_ms=imported["anchor_ms"])
        queries = build_queries(corpus, store.list_folders(), store.folder_note_counts())
        log(f"timing {len(queries)} queries x {args.runs} runs")
        rows, by_category = time_queries(store, queries, args.runs)
        log(f"opening {args.opens} random notes")
        opens = time_opens(store, args.opens, args.seed)
        size = db_size(profile)
    finally:
        store.close()
    every = Samples()
    for samples in by_category.values():
        every.extend(samples)
    nearest = min(SEARCH_P95_TARGET_MS, key=lambda n: abs(n - args.notes))
    result = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()} {os.cpu_count()} cpus, Python {platform.python_version()}, "
        f"SQLite {apsw.sqlite_lib_version()}",
        "command": "python3 tests/bench/bench_store.py "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        "load_avg_1m": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "corpus": stats,
        "import": imported,
        "search": {
            "all": every.summary(),
            "by_category": {c: s.summary() for c, s in by_category.items()},
        },
        "open": opens,
        "size": size,
        "targets_ms": {"search_p95": SEARCH_P95_TARGET_MS[nearest], "open_p95": OPEN_P95_TARGET_MS},
        "queries": rows,
    }
    out = OUT / f"bench-{args.notes}-{path}.json"
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
    print_report(result)
    print(f"\nresults written to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The indexer's speed figures of issue 3: throughput against the raw model, freshness, query
latency at 100,000 chunks, and the memory the model adds.

Run: ``python3 tests/bench/bench_index.py [--notes 150] [--rounds 2] [--fresh-runs 20]
[--chunks 100000] [--queries 50]``; results go to ``tests/bench/out/bench-index.json``.

1. **Throughput**: a store of ``--notes`` corpus notes (``corpus.py``) is cut by ``chunk_note``
   into the exact texts the indexer embeds, grouped as the indexer groups them (``batch_notes``
   notes per batch, in id order, duplicate texts of a batch once). ``embed_documents`` over those
   batches gives the raw chunks/s; a fresh ``Indexer.run_until_idle`` over the same store gives the
   pipeline's. Raw and pipeline alternate ``--rounds`` times (the load on a shared machine drifts).
2. **Freshness**: an ``IndexerService`` follows the store; each run creates or updates a note with
   a unique sentence, calls ``notify`` and polls ``SemanticSearch.search`` until that note is first.
3. **Query latency**: a fresh database with ``--chunks`` chunk rows over ~``--chunks / 10`` real
   notes and random unit vectors (plus a few near each query, so the loose floor lets hits through
   and the per-note step does its real work), then ``--queries`` searches, with the query
   embedding and the KNN SQL also timed alone.
4. **Memory**: VmRSS before the embedder, after building it, after the first embed, after a batch
   of 32 chunks of the model's full length.

Times are wall (``perf_counter``) and CPU (``process_time``: every thread of this process, ONNX
Runtime's included); ratios compare figures of the same clock. On a shared machine the wall clock
includes waiting for a core; the load average is printed with each section.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "src"))
sys.path.insert(0, str(HERE))

from corpus import Corpus, fill_store  # noqa: E402

from noted.embeddings import Embedder, make_embedder  # noqa: E402
from noted.indexer.chunking import chunk_note, content_hash  # noqa: E402
from noted.indexer.engine import Indexer  # noqa: E402
from noted.indexer.lease import Lease  # noqa: E402
from noted.indexer.service import IndexerService  # noqa: E402
from noted.indexer.vectors import META_MODEL, VectorTables, as_blob, set_meta  # noqa: E402
from noted.models import ACTOR_USER, NoteDraft, NotePatch  # noqa: E402
from noted.search.semantic import SemanticSearch  # noqa: E402
from noted.store.protocol import NoteOrder  # noqa: E402
from noted.store.sqlite import SqliteStore  # noqa: E402

OUT = HERE / "out" / "bench-index.json"

SENTENCES = (
    "The plumber said the boiler pressure valve in the basement must be replaced before winter.",
    "Grandma's recipe for plum dumplings uses cottage cheese, breadcrumbs fried in butter and cinnamon.",
    "Our flight to Lisbon leaves at 6:40 from terminal two, so the taxi is booked for four in the morning.",
    "The vet prescribed antibiotics for the cat's ear infection, twice a day for ten days.",
    "Kubernetes pods kept restarting because the liveness probe timed out during garbage collection.",
    "The book club chose a novel about a lighthouse keeper on a remote Scottish island.",
    "Tomato seedlings need to be hardened off outdoors for a week before planting in the garden bed.",
    "The landlord agreed to repaint the kitchen and fix the leaking bathroom tap next month.",
    "Invoice 2291 from the printing company is still unpaid and the reminder fee is fifteen euros.",
    "The marathon training plan adds one long slow run each Sunday, increasing by two kilometres.",
    "Remember that the passport renewal needs two photos and the old passport at the consulate.",
    "The choir rehearses the Brahms requiem on Thursday evenings in the church hall.",
    "Switching the database to write-ahead logging stopped the readers from blocking the importer.",
    "The telescope's mirror must cool for an hour before observing Jupiter's moons sharply.",
    "Aunt Maria's birthday party is at the lake house; bring the folding chairs and a lemon cake.",
    "The solar panels produced eleven kilowatt hours on the sunniest day of June.",
    "Our daughter's school trip to the science museum needs a signed consent form by Friday.",
    "The bicycle's rear derailleur skips gears; the mechanic suspects a stretched chain.",
    "A sourdough starter fed twice daily with rye flour doubles in about six hours.",
    "The insurance claim for the hail-damaged car roof was approved after the adjuster's visit.",
)

QUERIES = (
    "how to fix a leaking tap",
    "recipe for chocolate cake",
    "meeting notes about the quarterly budget",
    "ssh key setup for github",
    "python list comprehension example",
    "things to pack for a camping trip",
    "doctor appointment next week",
    "book recommendations about history",
    "how to reset the router password",
    "tax return documents checklist",
    "ideas for the garden in spring",
    "sql query to find duplicate rows",
    "birthday gift ideas for my brother",
    "train times to the airport",
    "notes from the design review",
    "how does garbage collection work",
    "car insurance renewal",
    "weekly grocery list",
    "learning spanish vocabulary",
    "docker container keeps restarting",
    "running plan for a half marathon",
    "what the landlord said about the heating",
    "project deadlines in march",
    "summary of the podcast about sleep",
    "install printer driver on linux",
)


# Helpers -----------------------------------------------------------------------------------
def rss_mib() -> dict[str, float]:
    values = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key] = round(int(rest.split()[0]) / 1024, 1)
    return values


def load() -> float:
    return round(os.getloadavg()[0], 2)


def timed(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    """``fn()``, its wall seconds and the process's CPU seconds."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def summary_ms(values: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(pct(values, 50) * 1000, 2),
        "p95_ms": round(pct(values, 95) * 1000, 2),
        "max_ms": round(max(values) * 1000, 2),
    }


def say(text: str) -> None:
    print(text, flush=True)


# 4. Memory (first: it must see the process before the model) ------------------------------
def measure_memory() -> tuple[Embedder, dict[str, Any]]:
    before = rss_mib()
    embedder = make_embedder("local")
    built = rss_mib()
    embedder.embed_query("warm up the model")
    first = rss_mib()
    corpus = Corpus(400, seed=7)
    chunks = [c.text for n in corpus.notes() for c in chunk_note(n.id, n.title, n.body, embedder)]
    longest = sorted(chunks, key=embedder.count_tokens, reverse=True)[:32]
    tokens = [embedder.count_tokens(t) for t in longest]
    embedder.embed_documents(longest)
    batch = rss_mib()
    out = {
        "before_embedder": before,
        "after_make_embedder": built,
        "after_first_embed": first,
        "after_batch_32_long": batch,
        "batch_tokens_min_max": [min(tokens), max(tokens)],
        "model_adds_mib": round(batch["VmRSS"] - before["VmRSS"], 1),
    }
    say(
        f"memory: VmRSS {before['VmRSS']} MiB before, {built['VmRSS']} after make_embedder, "
        f"{first['VmRSS']} after first embed, {batch['VmRSS']} after 32 chunks of "
        f"{min(tokens)}-{max(tokens)} tokens (peak {batch['VmHWM']}); the model adds {out['model_adds_mib']} MiB"
    )
    return embedder, out


# 1. Throughput -----------------------------------------------------------------------------
def indexer_batches(store: SqliteStore, embedder: Embedder, batch_notes: int) -> list[list[str]]:
    """The texts the indexer embeds for a full scan, grouped per ``embed_documents`` call."""
    ids = [n.id for n in store.list_notes(order=NoteOrder.ID)]
    batches = []
    for start in range(0, len(ids), batch_notes):
        notes = store.get_notes(ids[start : start + batch_notes])
        todo: dict[str, str] = {}
        for n in notes:
            if n.is_trashed or n.is_conflict or not (n.title.strip() or n.body.strip()):
                continue
            for c in chunk_note(n.id, n.title, n.body, embedder):
                todo.setdefault(c.content_hash, c.text)
        if todo:
            batches.append(list(todo.values()))
    return batches


def measure_throughput(store: SqliteStore, embedder: Embedder, rounds: int) -> dict[str, Any]:
    batch_notes = Indexer(store, store.db, embedder).batch_notes
    batches = indexer_batches(store, embedder, batch_notes)
    total = sum(len(b) for b in batches)
    say(f"throughput: {total} chunks in {len(batches)} batches of {batch_notes} notes (load {load()})")
    runs: list[dict[str, Any]] = []
    for r in range(rounds):
        _, raw_wall, raw_cpu = timed(lambda: [embedder.embed_documents(b) for b in batches])
        with store.db.write() as conn:  # forget the index: the next prepare() rebuilds it
            set_meta(conn, META_MODEL, None)
        indexer = Indexer(store, store.db, embedder, batch_notes=batch_notes)
        indexer.prepare()
        _, pipe_wall, pipe_cpu = timed(indexer.run_until_idle)
        stored = indexer.tables.counts()[1]
        run = {
            "raw_chunks_per_s_wall": round(total / raw_wall, 1),
            "raw_chunks_per_s_cpu": round(total / raw_cpu, 1),
            "pipeline_chunks_per_s_wall": round(stored / pipe_wall, 1),
            "pipeline_chunks_per_s_cpu": round(stored / pipe_cpu, 1),
            "ratio_wall": round((stored / pipe_wall) / (total / raw_wall), 3),
            "ratio_cpu": round((stored / pipe_cpu) / (total / raw_cpu), 3),
            "raw_s": [round(raw_wall, 2), round(raw_cpu, 2)],
            "pipeline_s": [round(pipe_wall, 2), round(pipe_cpu, 2)],
            "chunks_stored": stored,
            "load": load(),
        }
        runs.append(run)
        say(
            f"  round {r + 1}: raw {run['raw_chunks_per_s_wall']} chunks/s wall, "
            f"{run['raw_chunks_per_s_cpu']} /CPU-s; pipeline {run['pipeline_chunks_per_s_wall']} wall, "
            f"{run['pipeline_chunks_per_s_cpu']} /CPU-s; ratio {run['ratio_wall']} wall, "
            f"{run['ratio_cpu']} CPU (load {run['load']})"
        )
    out = {
        "notes": len(store.list_notes()),
        "chunks": total,
        "batches": len(batches),
        "batch_notes": batch_notes,
        "runs": runs,
        "median_ratio_wall": round(statistics.median(r["ratio_wall"] for r in runs), 3),
        "median_ratio_cpu": round(statistics.median(r["ratio_cpu"] for r in runs), 3),
        "target_ratio": 0.8,
    }
    say(f"  median ratio pipeline/raw: {out['median_ratio_wall']} wall, {out['median_ratio_cpu']} CPU")
    return out


# 2. Freshness ------------------------------------------------------------------------------
def measure_freshness(store: SqliteStore, embedder: Embedder, runs: int) -> dict[str, Any]:
    service = IndexerService(Indexer(store, store.db, embedder), Lease(store.db))
    search = SemanticSearch(store, store.db, embedder)
    service.start()
    deadline = time.monotonic() + 600
    while service.status.state != "idle" and time.monotonic() < deadline:
        time.sleep(0.05)
    say(f"freshness: service {service.status.state} (load {load()})")
    existing = [n.id for n in store.list_notes(order=NoteOrder.ID)]
    folder = store.get_note(existing[0]).parent_id
    seconds: list[float] = []
    cpu: list[float] = []
    kinds: list[str] = []
    try:
        for i in range(runs):
            sentence = SENTENCES[i % len(SENTENCES)] + (f" (run {i})" if i >= len(SENTENCES) else "")
            wall0, cpu0 = time.perf_counter(), time.process_time()
            if i % 2 == 0:
                note_id = store.create_note(
                    NoteDraft(f"Note {i}", f"# Today\n\n{sentence}\n", parent_id=folder), actor=ACTOR_USER
                ).id
            else:
                note_id = existing[i * 7 % len(existing)]
                store.update_note(
                    note_id, NotePatch(append=f"\n\n## Later\n\n{sentence}\n"), actor=ACTOR_USER
                )
            service.notify()
            while True:
                hits = search.search(sentence, relevance="loose")
                if hits and hits[0].note_id == note_id:
                    break
                if time.perf_counter() - wall0 > 60:
                    raise RuntimeError(f"run {i}: the note was not found in 60 s")
                time.sleep(0.01)
            seconds.append(time.perf_counter() - wall0)
            cpu.append(time.process_time() - cpu0)
            kinds.append("create" if i % 2 == 0 else "update")
    finally:
        service.stop()
    out: dict[str, Any] = {
        "runs": runs,
        "wall": summary_ms(seconds),
        "cpu": summary_ms(cpu),
        "seconds": [round(s, 3) for s in seconds],
        "kinds": kinds,
        "target_p95_ms": 2000,
        "load": load(),
    }
    say(
        f"  found after p50 {out['wall']['p50_ms']} ms, p95 {out['wall']['p95_ms']} ms, "
        f"max {out['wall']['max_ms']} ms wall (CPU p50 {out['cpu']['p50_ms']} ms) (load {out['load']})"
    )
    return out


# 3. Query latency at 100k chunks -----------------------------------------------------------
def build_big_index(path: Path, embedder: Embedder, chunks: int, queries: list[str]) -> SqliteStore:
    store = SqliteStore.open(path / "notes.db", path / "resources")
    notes = max(1, chunks // 10)
    _, wall, _ = timed(lambda: fill_store(store, Corpus(notes, seed=3)))
    say(f"  {notes} notes created in {wall:.1f} s")
    VectorTables(store.db, embedder.model_id, embedder.dim).ensure()
    all_ids = [n.id for n in store.list_notes(order=NoteOrder.ID)]
    ids = [
        (n.id, len(n.body))
        for i in range(0, len(all_ids), 500)
        for n in store.get_notes(all_ids[i : i + 500])
    ]
    rng = np.random.default_rng(5)
    near = [np.asarray(embedder.embed_query(q), dtype=np.float32) for q in queries]
    started = time.perf_counter()
    per_note = -(-chunks // len(ids))
    rowid = 0
    with store.db.write() as conn:
        for note_id, length in ids:
            for idx in range(per_note):
                if rowid >= chunks:
                    break
                rowid += 1
                start, end = length * idx // per_note, length * (idx + 1) // per_note
                conn.execute(
                    'INSERT INTO index_chunks(rowid, note_id, idx, section, heading, start, "end", hash) '
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (rowid, note_id, idx, "0", "", start, end, content_hash(f"{note_id}:{idx}")),
                )
                vector = rng.standard_normal(embedder.dim).astype(np.float32)
                if rowid % 33 == 0:  # ~3% of the chunks sit near one of the queries (cosine ~0.5)
                    vector = near[rowid % len(near)] + vector / np.sqrt(embedder.dim) * 1.5
                vector /= np.linalg.norm(vector)
                conn.execute(
                    "INSERT INTO index_vectors(rowid, embedding) VALUES (?, ?)", (rowid, as_blob(vector))
                )
        set_meta(conn, "index.cursor", str(store.latest_cursor()))
    say(f"  {rowid} chunks and vectors inserted in {time.perf_counter() - started:.1f} s")
    return store


def measure_queries(embedder: Embedder, chunks: int, count: int) -> dict[str, Any]:
    queries = [QUERIES[i % len(QUERIES)] for i in range(count)]
    tmp = Path(tempfile.mkdtemp(prefix="bench-index-"))
    try:
        say(f"query latency: building {chunks} chunks (load {load()})")
        store = build_big_index(tmp, embedder, chunks, list(QUERIES))
        search = SemanticSearch(store, store.db, embedder)
        for q in QUERIES[:5]:  # warm-up: page cache, the model's first runs
            search.search(q, relevance="loose")
        full_w, full_c, emb_w, emb_c, knn_w, knn_c, hits = [], [], [], [], [], [], []
        for q in queries:
            out, w, c = timed(functools.partial(search.search, q, relevance="loose"))
            full_w.append(w)
            full_c.append(c)
            hits.append(len(out))
        vectors = []
        for q in queries:
            v, w, c = timed(functools.partial(embedder.embed_query, q))
            v = as_blob(v)
            vectors.append(v)
            emb_w.append(w)
            emb_c.append(c)
        for v in vectors:
            with store.db.read() as conn:
                _, w, c = timed(functools.partial(SemanticSearch._nearest, conn, v, 400, None))
            knn_w.append(w)
            knn_c.append(c)
        store.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out = {
        "chunks": chunks,
        "queries": count,
        "relevance": "loose (k=400)",
        "search": {"wall": summary_ms(full_w), "cpu": summary_ms(full_c)},
        "embed_query": {"wall": summary_ms(emb_w), "cpu": summary_ms(emb_c)},
        "knn_sql": {"wall": summary_ms(knn_w), "cpu": summary_ms(knn_c)},
        "median_hits": statistics.median(hits),
        "target_p95_ms": 100,
        "load": load(),
    }
    for name in ("search", "embed_query", "knn_sql"):
        w, c = out[name]["wall"], out[name]["cpu"]
        say(
            f"  {name}: p50 {w['p50_ms']} ms, p95 {w['p95_ms']} ms wall; "
            f"p50 {c['p50_ms']} ms, p95 {c['p95_ms']} ms CPU"
        )
    say(f"  median notes per answer {out['median_hits']} (load {out['load']})")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--fresh-runs", type=int, default=20)
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=50)
    args = parser.parse_args(argv)
    random.seed(1)
    results: dict[str, Any] = {"cpus": len(os.sched_getaffinity(0)), "load_start": load()}
    embedder, results["memory"] = measure_memory()
    tmp = Path(tempfile.mkdtemp(prefix="bench-index-"))
    try:
        store = SqliteStore.open(tmp / "notes.db", tmp / "resources")
        fill_store(store, Corpus(args.notes, seed=11))
        results["throughput"] = measure_throughput(store, embedder, args.rounds)
        results["freshness"] = measure_freshness(store, embedder, args.fresh_runs)
        store.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    results["query"] = measure_queries(embedder, args.chunks, args.queries)
    results["memory"]["end_of_run"] = rss_mib()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(results, indent=2) + "\n")
    say(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

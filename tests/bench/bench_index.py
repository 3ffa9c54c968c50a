"""The indexer's speed figures of issue 3: throughput against the raw model, freshness, query
latency at 100,000 chunks, and the memory the model adds.

Run: ``python3 tests/bench/bench_index.py [--notes 150] [--rounds 2] [--fresh-runs 20]
[--chunks 100000] [--queries 50] [--query-only]``; results go to ``tests/bench/out/bench-index.json``
(``bench-index-query.json`` with ``--query-only``, which skips parts 1 and 2).

1. **Throughput**: a store of ``--notes`` corpus notes (``corpus.py``) is cut by ``chunk_note``
   into the exact texts the indexer embeds, grouped as the indexer groups them (``batch_notes``
   notes per batch, in id order, duplicate texts of a batch once). ``embed_documents`` over those
   batches gives the raw chunks/s; a fresh ``Indexer.run_until_idle`` over the same store gives the
   pipeline's. Raw and pipeline alternate ``--rounds`` times (the load on a shared machine drifts).
2. **Freshness**: an ``IndexerService`` follows the store; each run creates or updates a note with
   a unique sentence, calls ``notify`` and polls ``SemanticSearch.search`` until that note is first.
3. **Query latency**: a fresh database with ``--chunks`` chunk rows over ~``--chunks / 10`` real
   notes and random unit vectors written through ``VectorTables.put_note`` (plus a few near each
   query, so the loose floor lets hits through and the per-note step does its real work), then
   ``--queries`` searches per preset (loose, normal, strict), with the query embedding and the
   two-stage KNN (``SemanticSearch.nearest``) also timed alone; then, per distinct query, the
   chunks and top-10 notes are compared with an exact search that scores every chunk.
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

import apsw
import numpy as np
import numpy.typing as npt

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "src"))
sys.path.insert(0, str(HERE))

from corpus import Corpus, fill_store  # noqa: E402

from noted.embeddings import Embedder, make_embedder  # noqa: E402
from noted.indexer.chunking import OUTLINE_INDEX, chunk_note, content_hash  # noqa: E402
from noted.indexer.engine import Indexer  # noqa: E402
from noted.indexer.lease import Lease  # noqa: E402
from noted.indexer.service import IndexerService  # noqa: E402
from noted.indexer.vectors import (  # noqa: E402
    META_MODEL,
    ChunkMatch,
    NewChunk,
    VectorTables,
    as_blob,
)
from noted.models import ACTOR_USER, NoteDraft, NotePatch  # noqa: E402
from noted.search.keyword import KeywordSearch  # noqa: E402
from noted.search.sections import query_words  # noqa: E402
from noted.search.semantic import PRESETS, Relevance, SemanticSearch  # noqa: E402
from noted.search.translate import to_english  # noqa: E402
from noted.store.protocol import NoteOrder  # noqa: E402
from noted.store.sqlite import SqliteStore  # noqa: E402
from noted.store.sqlite.db import set_meta  # noqa: E402

OUT = HERE / "out" / "bench-index.json"
OUT_QUERY = HERE / "out" / "bench-index-query.json"

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
    tables = VectorTables(store.db, embedder.model_id, embedder.dim)
    tables.ensure()
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
    with store.db.write() as conn:  # through the indexer's own write path (vectors and sign bits)
        for note_id, length in ids:
            rows: list[NewChunk] = []
            for idx in range(min(per_note, chunks - rowid)):
                rowid += 1
                start, end = length * idx // per_note, length * (idx + 1) // per_note
                vector = rng.standard_normal(embedder.dim).astype(np.float32)
                if rowid % 33 == 0:  # ~3% of the chunks sit near one of the queries (cosine ~0.5)
                    vector = near[rowid % len(near)] + vector / np.float32(np.sqrt(embedder.dim)) * 1.5
                vector /= np.linalg.norm(vector)
                key = content_hash(f"{note_id}:{idx}")
                rows.append(NewChunk(note_id, idx, "0", "", start, end, key, as_blob(vector)))
            whole = rng.standard_normal(embedder.dim).astype(np.float32)  # the note's outline vector
            whole /= np.linalg.norm(whole)
            key = content_hash(f"{note_id}:outline")
            rows.append(NewChunk(note_id, OUTLINE_INDEX, "", "", 0, 0, key, as_blob(whole)))
            tables.put_note(conn, note_id, rows)
        set_meta(conn, "index.cursor", str(store.latest_cursor()))
    say(f"  {rowid} chunks and vectors inserted in {time.perf_counter() - started:.1f} s")
    return store


def _overlap(got: list[object], want: list[object]) -> float:
    return len(set(got) & set(want)) / len(want) if want else 1.0


def exact_nearest(conn: apsw.Connection, vector: npt.NDArray[np.float32], k: int) -> list[ChunkMatch]:
    """The oracle: every chunk scored by sqlite-vec's own cosine, in SQL."""
    rows = conn.execute(
        'SELECT c.rowid, c.note_id, c.section, c.heading, c.start, c."end", '
        "1.0 - vec_distance_cosine(e.embedding, ?) AS score "
        "FROM index_embeddings e JOIN index_chunks c ON c.rowid = e.rowid ORDER BY score DESC LIMIT ?",
        (as_blob(vector), k),
    )
    return [ChunkMatch(*r) for r in rows]


def notes_of(matches: list[ChunkMatch], floor: float, limit: int) -> list[str]:
    """The per-note step of ``SemanticSearch`` over ``matches``: first chunk of each note over the floor."""
    out: list[str] = []
    for m in matches:
        if m.score >= floor and m.note_id not in out:
            out.append(m.note_id)
    return out[:limit]


OUTLINES = "outlines of the arm's notes (hybrid)"


def measure_preset(
    search: SemanticSearch, oracle: dict[str, list[ChunkMatch]], queries: list[str], relevance: Relevance
) -> dict[str, Any]:
    """Whole searches, then the query embedding and the two-stage KNN alone, and agreement with exact."""
    preset = PRESETS["default"][relevance]
    full_w, full_c, emb_w, emb_c, knn_w, knn_c, hits = [], [], [], [], [], [], []
    for q in queries:
        out, w, c = timed(functools.partial(search.search, q, relevance=relevance))
        full_w.append(w)
        full_c.append(c)
        hits.append(len(out))
    vectors = []
    for q in queries:
        v, w, c = timed(functools.partial(search.embedder.embed_query, q))
        vectors.append(v)
        emb_w.append(w)
        emb_c.append(c)
    for v in vectors:
        _, w, c = timed(functools.partial(search.nearest, v, preset.chunks))
        knn_w.append(w)
        knn_c.append(c)
    # A query taken for another language embeds two wordings and asks the KNN twice; every search
    # by meaning then ranks the sections of the notes it shows (Finder: 10 for the tools, 50 on screen).
    # Hybrid search also reads the outline vectors of the semantic arm's notes (up to 100).
    two_w, two_c, pas_w, pas_c, out_w, out_c = [], [], [], [], [], []
    for q, v in zip(queries, vectors, strict=True):
        _, w, c = timed(functools.partial(search.search, q, also=(q + " translated",), relevance=relevance))
        two_w.append(w)
        two_c.append(c)
        shown = [h.note_id for h in search.search_vectors([v], relevance=relevance, limit=50)]
        _, w, c = timed(functools.partial(search.passages, [v], shown, query_words([q])))
        pas_w.append(w)
        pas_c.append(c)
        arm = [h.note_id for h in search.search_vectors([v], relevance=relevance, limit=100)]
        _, w, c = timed(functools.partial(search.outlines, [v], arm))
        out_w.append(w)
        out_c.append(c)
    chunk_recall, top10, top1 = [], [], []
    for q, v in list(zip(queries, vectors, strict=True))[: len(oracle)]:
        want = oracle[q][: preset.chunks]
        got = search.nearest(v, preset.chunks)
        chunk_recall.append(_overlap([m.rowid for m in got], [m.rowid for m in want]))
        notes_got: list[object] = [h.note_id for h in search.search(q, relevance=relevance, limit=10)]
        notes_want: list[object] = list(notes_of(want, preset.floor, 10))
        top10.append(_overlap(notes_got, notes_want))
        top1.append(float(notes_got[:1] == notes_want[:1]))
    return {
        "chunks_k": preset.chunks,
        "candidates": search.candidates(preset.chunks),
        "search": {"wall": summary_ms(full_w), "cpu": summary_ms(full_c)},
        "embed_query": {"wall": summary_ms(emb_w), "cpu": summary_ms(emb_c)},
        "knn": {"wall": summary_ms(knn_w), "cpu": summary_ms(knn_c)},
        "search, two wordings": {"wall": summary_ms(two_w), "cpu": summary_ms(two_c)},
        "sections of 50 notes": {"wall": summary_ms(pas_w), "cpu": summary_ms(pas_c)},
        OUTLINES: {"wall": summary_ms(out_w), "cpu": summary_ms(out_c)},
        "median_hits": statistics.median(hits),
        "vs_exact": {
            "chunk_recall_mean": round(statistics.fmean(chunk_recall), 4),
            "chunk_recall_min": round(min(chunk_recall), 4),
            "top10_notes_overlap_mean": round(statistics.fmean(top10), 4),
            "top1_same": round(statistics.fmean(top1), 4),
        },
        "load": load(),
    }


FOREIGN_QUERIES = (
    "borrar un archivo del repositorio",
    "cómo cambiar la contraseña del router",
    "copia de seguridad de las fotos",
    "Rechnung für die Versicherung finden",
    "Termin beim Arzt nächste Woche",
    "Drucker unter Linux installieren",
    "liste de courses de la semaine",
    "recette de gâteau au chocolat",
    "supprimer les lignes en double",
)
"""Queries in Spanish, German and French, for the glossary's look-up (``noted.search.translate``)."""


def measure_translate(store: SqliteStore, count: int) -> dict[str, Any]:
    """How long turning a query into English takes over this store: the first (the glossary
    loads) and then ``count`` more, the note counts that weigh senses read from its FTS index."""
    keyword = KeywordSearch(store)
    started = time.perf_counter()
    to_english(FOREIGN_QUERIES[0], keyword)
    first = time.perf_counter() - started
    walls = []
    for i in range(count):
        started = time.perf_counter()
        to_english(FOREIGN_QUERIES[i % len(FOREIGN_QUERIES)], keyword)
        walls.append(time.perf_counter() - started)
    return {"first_ms": round(first * 1000, 1), "wall": summary_ms(walls)}


def measure_queries(embedder: Embedder, chunks: int, count: int) -> dict[str, Any]:
    queries = [QUERIES[i % len(QUERIES)] for i in range(count)]
    tmp = Path(tempfile.mkdtemp(prefix="bench-index-"))
    out: dict[str, Any] = {"chunks": chunks, "queries": count, "target_p95_ms": 100}
    try:
        say(f"query latency: building {chunks} chunks (load {load()})")
        store = build_big_index(tmp, embedder, chunks, list(QUERIES))
        search = SemanticSearch(store, store.db, embedder)
        deepest = max(p.chunks for p in PRESETS["default"].values())
        with store.db.read() as conn:
            oracle = {q: exact_nearest(conn, embedder.embed_query(q), deepest) for q in QUERIES}
        for q in QUERIES[:5]:  # warm-up: page cache, the model's first runs
            search.search(q, relevance="loose")
        for relevance in (Relevance.LOOSE, Relevance.NORMAL, Relevance.STRICT):
            r = out[relevance.value] = measure_preset(search, oracle, queries, relevance)
            say(f"  {relevance.value} (k={r['chunks_k']}, {r['candidates']} candidates):")
            for name in (
                "search",
                "embed_query",
                "knn",
                "search, two wordings",
                "sections of 50 notes",
                OUTLINES,
            ):
                w, c = r[name]["wall"], r[name]["cpu"]
                say(
                    f"    {name}: p50 {w['p50_ms']} ms, p95 {w['p95_ms']} ms wall; "
                    f"p50 {c['p50_ms']} ms, p95 {c['p95_ms']} ms CPU"
                )
            x = r["vs_exact"]
            say(
                f"    vs exact: chunk recall {x['chunk_recall_mean']} (min {x['chunk_recall_min']}), "
                f"top-10 notes {x['top10_notes_overlap_mean']}, same first note {x['top1_same']}; "
                f"median notes per answer {r['median_hits']} (load {r['load']})"
            )
        t = out["translate"] = measure_translate(store, count)
        say(
            f"  a query in another language into English: first {t['first_ms']} ms (the glossary loads), "
            f"then p50 {t['wall']['p50_ms']} ms, p95 {t['wall']['p95_ms']} ms wall"
        )
        store.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--fresh-runs", type=int, default=20)
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument(
        "--query-only", action="store_true", help=f"only memory and query latency, to {OUT_QUERY.name}"
    )
    args = parser.parse_args(argv)
    random.seed(1)
    results: dict[str, Any] = {"cpus": len(os.sched_getaffinity(0)), "load_start": load()}
    wall0, cpu0 = time.perf_counter(), time.process_time()
    embedder, results["memory"] = measure_memory()
    if not args.query_only:
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
    results["run"] = {
        "wall_s": round(time.perf_counter() - wall0, 1),
        "cpu_s": round(time.process_time() - cpu0, 1),
        "load_end": load(),
    }
    out = OUT_QUERY if args.query_only else OUT
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    say(
        f"run: {results['run']['wall_s']} s wall, {results['run']['cpu_s']} s CPU (load {load()}); wrote {out}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

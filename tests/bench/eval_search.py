"""The search evaluation: keyword, semantic and hybrid fusions over Git's documentation.

One command: ``python3 tests/bench/eval_search.py``. It converts git-doc into a profile (cached by
``eval_corpus.py``), indexes it with the model noted runs (the dynamic-int8 copy of all-MiniLM-L6-v2;
``--original-model`` for the packaged file), each cached in its own profile (``eval_models.py``),
runs the labelled queries of ``eval_queries.json`` through every arm, fuses them in several ways,
and prints nDCG@10, recall@10 and MRR per method, per query kind, and the score distributions the
semantic presets are tuned from. Everything is written to ``tests/bench/out/eval_results.json``.

When git-doc is not installed (and nothing is cached) it says so and exits 0: CI does not run it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import eval_metrics as m
import eval_models
import numpy as np
from eval_corpus import OUT, GitDocMissing, ensure_profile

from noted.embeddings import Embedder
from noted.errors import QueryError
from noted.indexer.engine import Indexer
from noted.search import semantic
from noted.search.hybrid import HybridSearch
from noted.search.keyword import KeywordSearch
from noted.search.semantic import Preset, Relevance, SemanticSearch
from noted.store.sqlite import SqliteStore

QUERIES = Path(__file__).resolve().parent / "eval_queries.json"
RESULTS = OUT / "eval_results.json"
DEPTH = 100
"""How many notes of each arm are fused (far past the cut-off of 10)."""


@dataclass(frozen=True, slots=True)
class EvalQuery:
    id: str
    kind: str
    text: str
    labels: dict[str, int]  # note id -> grade


@dataclass(frozen=True, slots=True)
class Arms:
    """What each arm returned for one query."""

    kw_and: m.Run
    kw_or: m.Run
    semantic: dict[str, m.Run]  # preset name (and "none") -> run
    cosine: dict[str, float]  # every candidate's best-chunk cosine
    hybrid: dict[str, m.Run]  # noted.search.hybrid itself, per preset


def load_queries(notes: list[dict[str, str]]) -> list[EvalQuery]:
    by_title = {n["title"]: n["note_id"] for n in notes}
    out: list[EvalQuery] = []
    for q in json.loads(QUERIES.read_text(encoding="utf-8"))["queries"]:
        missing = [t for t in q["relevant"] if t not in by_title]
        if missing:
            raise SystemExit(f"query {q['id']}: no note titled {missing} in the corpus")
        out.append(
            EvalQuery(q["id"], q["kind"], q["query"], {by_title[t]: g for t, g in q["relevant"].items()})
        )
    return out


def index(store: SqliteStore, embedder: Embedder) -> dict[str, float]:
    """Bring the index up to date (a no-op when cached); returns its size and the time it took."""
    started = time.perf_counter()
    indexer = Indexer(store, store.db, embedder)
    indexer.prepare()
    indexer.run_until_idle()
    with store.db.read() as conn:
        chunks = int(conn.execute("SELECT COUNT(*) FROM index_chunks").fetchone()[0])
    return {"chunks": chunks, "seconds": round(time.perf_counter() - started, 1)}


@contextlib.contextmanager
def unfloored(chunks: int) -> Iterator[None]:
    """Make ``loose`` mean "no floor, look at ``chunks`` chunks" for the duration."""
    saved = {name: presets[Relevance.LOOSE] for name, presets in semantic.PRESETS.items()}
    for presets in semantic.PRESETS.values():
        presets[Relevance.LOOSE] = Preset(chunks, -1.0)
    try:
        yield
    finally:
        for name, presets in semantic.PRESETS.items():
            presets[Relevance.LOOSE] = saved[name]


def _keyword(search: KeywordSearch, text: str) -> m.Run:
    try:
        return [(h.note_id, h.score) for h in search.search(text, limit=DEPTH).hits]
    except QueryError:
        return []  # the grammar refused the text: the arm finds nothing, as a person would see


def collect(store: SqliteStore, embedder: Embedder, queries: list[EvalQuery], chunks: int) -> list[Arms]:
    keyword = KeywordSearch(store)
    sem = SemanticSearch(store, store.db, embedder)
    fused = HybridSearch(keyword, lambda: sem)
    out: list[Arms] = []
    for q in queries:
        kw_and = _keyword(keyword, q.text)
        kw_or = _keyword(keyword, "any:1 " + q.text)
        runs = {
            r.value: [(h.note_id, h.score) for h in sem.search(q.text, relevance=r, limit=DEPTH)]
            for r in Relevance
        }
        with unfloored(chunks):  # every chunk a candidate: exact cosine for the whole corpus
            runs["none"] = [(h.note_id, h.score) for h in sem.search(q.text, relevance="loose", limit=DEPTH)]
            cosine = dict(runs["none"])
            extra = {n for n, _ in kw_and + kw_or} - cosine.keys() | q.labels.keys() - cosine.keys()
            if extra:
                scoped = sem.search(q.text, relevance="loose", limit=DEPTH, note_ids=extra)
                cosine.update((h.note_id, h.score) for h in scoped)
        hybrid = {
            r.value: [(h.note_id, h.score) for h in fused.search(q.text, relevance=r, limit=DEPTH).hits]
            for r in Relevance
        }
        out.append(Arms(kw_and, kw_or, runs, cosine, hybrid))
    return out


Method = Callable[..., m.Run]
"""Takes the arms of one query (and, in the lambdas below, defaults that bind the loop variables)."""


def methods() -> dict[str, Method]:
    """Every method compared, by the name printed in the table."""
    out: dict[str, Method] = {
        "keyword (AND)": lambda a: a.kw_and,
        "keyword (OR, any:1)": lambda a: a.kw_or,
    }
    for preset in ("strict", "normal", "loose", "none"):
        out[f"semantic ({preset})"] = lambda a, p=preset: a.semantic[p]
    for kw in ("AND", "OR"):
        pick: Callable[[Arms], m.Run] = (lambda a: a.kw_and) if kw == "AND" else (lambda a: a.kw_or)
        for k in (10, 30, 60, 100):
            out[f"RRF k={k} kw={kw}"] = lambda a, k=k, pick=pick: m.rrf(pick(a), a.semantic["normal"], k=k)
        for w in (0.6, 0.7, 0.8):
            out[f"RRF k=60 w_sem={w} kw={kw}"] = lambda a, w=w, pick=pick: m.rrf(
                pick(a), a.semantic["normal"], k=60, w_semantic=w
            )
        for norm in ("minmax", "zscore", "maxcos"):
            for w in (0.3, 0.4, 0.5, 0.6, 0.7, 0.9):
                out[f"{norm} w_sem={w} kw={kw}"] = lambda a, w=w, n=norm, pick=pick: m.weighted(
                    pick(a), a.semantic["normal"], w_semantic=w, norm=n
                )
        for beta in (0.05, 0.1, 0.2):
            for graded in (False, True):
                name = f"sem+boost {'bm25' if graded else 'flat'} b={beta} kw={kw}"
                out[name] = lambda a, b=beta, g=graded, pick=pick: m.boost(
                    pick(a), a.semantic["normal"], a.cosine, beta=b, graded=g
                )
    out["keyword, else semantic"] = lambda a: m.fallback(a.kw_and, a.semantic["normal"])
    for preset in ("strict", "normal", "loose"):
        out[f"HybridSearch as built ({preset})"] = lambda a, p=preset: a.hybrid[p]
    return out


def evaluate(queries: list[EvalQuery], arms: list[Arms]) -> dict[str, dict[str, object]]:
    kinds = sorted({q.kind for q in queries})
    table: dict[str, dict[str, object]] = {}
    for name, method in methods().items():
        runs = [[n for n, _ in method(a)] for a in arms]
        row: dict[str, object] = {"all": asdict(m.score(runs, [q.labels for q in queries]))}
        for kind in kinds:
            picked = [(r, q.labels) for r, q in zip(runs, queries, strict=True) if q.kind == kind]
            row[kind] = asdict(m.score([r for r, _ in picked], [lab for _, lab in picked]))
        row["per_query"] = {q.id: round(m.ndcg(r, q.labels), 4) for r, q in zip(runs, queries, strict=True)}
        row["top10"] = {q.id: r[:10] for r, q in zip(runs, queries, strict=True)}
        table[name] = row
    return table


def distributions(queries: list[EvalQuery], arms: list[Arms]) -> dict[str, dict[str, float]]:
    """Best-chunk cosines of answers, related pages, and the other notes of the unfloored top 10."""
    groups: dict[str, list[float]] = {"answer (2)": [], "related (1)": [], "other top-10": [], "rank 1": []}
    for q, a in zip(queries, arms, strict=True):
        for note, grade in q.labels.items():
            if note in a.cosine:
                groups["answer (2)" if grade == 2 else "related (1)"].append(a.cosine[note])
        groups["other top-10"] += [s for n, s in a.semantic["none"][:10] if n not in q.labels]
        groups["rank 1"] += [s for _, s in a.semantic["none"][:1]]
    return {name: _summary(values) for name, values in groups.items()}


def _summary(values: list[float]) -> dict[str, float]:
    qs = statistics.quantiles(values, n=20) if len(values) > 1 else values * 19
    return {
        "n": len(values), "min": round(min(values), 3), "p5": round(qs[0], 3), "p10": round(qs[1], 3),
        "p25": round(qs[4], 3), "median": round(qs[9], 3), "p75": round(qs[14], 3), "p90": round(qs[17], 3),
        "max": round(max(values), 3),
    }  # fmt: skip


def kept(
    queries: list[EvalQuery], arms: list[Arms], floors: Mapping[str, float]
) -> dict[str, dict[str, float]]:
    """For candidate floors: the share of answers and related pages kept, and of other top-10 notes cut."""
    out: dict[str, dict[str, float]] = {}
    pairs = list(zip(queries, arms, strict=True))
    for name, floor in floors.items():
        answers = [a.cosine[n] >= floor for q, a in pairs for n, g in q.labels.items() if g == 2]
        related = [a.cosine[n] >= floor for q, a in pairs for n, g in q.labels.items() if g == 1]
        others = [s < floor for q, a in pairs for n, s in a.semantic["none"][:10] if n not in q.labels]
        empty = sum(1 for a in arms if not a.semantic["none"] or a.semantic["none"][0][1] < floor)
        out[name] = {
            "floor": floor, "answers kept": round(statistics.fmean(answers), 3),
            "related kept": round(statistics.fmean(related), 3),
            "others cut": round(statistics.fmean(others), 3), "queries left empty": empty,
        }  # fmt: skip
    return out


SINGLE_ARMS = ("keyword (AND)", "keyword (OR, any:1)", "semantic (strict)", "semantic (normal)",
               "semantic (loose)", "semantic (none)")  # fmt: skip
BUILT = "HybridSearch as built (normal)"


def print_table(table: dict[str, dict[str, object]], kinds: list[str]) -> None:
    head = f"{'method':<36} {'nDCG@10':>7} {'R@10':>6} {'MRR':>6} {'empty':>5}  " + " ".join(
        f"{k[:9]:>9}" for k in kinds
    )
    print(head + "\n" + "-" * len(head))
    for name, row in table.items():
        s = row["all"]
        assert isinstance(s, dict)
        per_kind = " ".join(f"{row[k]['ndcg']:>9.3f}" for k in kinds)  # type: ignore[index]
        print(
            f"{name:<36} {s['ndcg']:>7.3f} {s['recall']:>6.3f} {s['mrr']:>6.3f} {s['empty']:>5}  {per_kind}"
        )
    print(f"(per-kind columns: nDCG@10 over the {', '.join(kinds)} queries)")


def compare(table: dict[str, dict[str, object]], queries: list[EvalQuery], method: str) -> dict[str, object]:
    """``method`` against the best single arm: nDCG@10 difference, paired bootstrap interval, wins."""

    def mean_ndcg(name: str) -> float:
        return float(table[name]["all"]["ndcg"])  # type: ignore[index]

    best_single = max(SINGLE_ARMS, key=mean_ndcg)
    a = [table[method]["per_query"][q.id] for q in queries]  # type: ignore[index]
    b = [table[best_single]["per_query"][q.id] for q in queries]  # type: ignore[index]
    diff, lo, hi = m.paired_bootstrap(a, b)
    return {
        "method": method, "best_single": best_single, "ndcg_diff": round(diff, 4),
        "ci95": [round(lo, 4), round(hi, 4)],
        "better_on": sum(1 for x, y in zip(a, b, strict=True) if x > y + 1e-9),
        "worse_on": sum(1 for x, y in zip(a, b, strict=True) if y > x + 1e-9),
    }  # fmt: skip


def print_verdict(label: str, v: dict[str, object]) -> None:
    print(f"{label}: {v['method']} vs {v['best_single']}: nDCG@10 {v['ndcg_diff']:+.4f} "
          f"(95% CI {v['ci95']}), better on {v['better_on']} queries, worse on {v['worse_on']}")  # fmt: skip


SCALE_TO = 100_000
"""The index size the first stage of semantic search is checked for (``two_stage_at_scale``)."""


def two_stage_at_scale(store: SqliteStore, embedder: Embedder, queries: list[EvalQuery]) -> dict[str, Any]:
    """How much of the exact answer the sign-bit candidates keep, as if the index held ``SCALE_TO`` chunks.

    The corpus is too small to test the first stage as it is (the candidates are a third of it),
    so each preset's k and candidates are scaled to their share of ``SCALE_TO`` chunks: at 100,000
    chunks, loose's 3,200 candidates for k=400 are 3.2%, here 187 for k=23. Chunks are ranked with
    the stored sign bits and vectors, as ``VectorTables.nearest`` ranks them.
    """
    with store.db.read() as conn:
        rows = conn.execute(
            "SELECT c.note_id, e.embedding, b.bits FROM index_chunks c "
            "JOIN index_embeddings e ON e.rowid = c.rowid JOIN index_bits b ON b.rowid = c.rowid ORDER BY c.rowid"
        ).fetchall()
    notes = [r[0] for r in rows]
    vectors = np.stack([np.frombuffer(r[1], dtype=np.float32) for r in rows])
    bits = np.stack([np.frombuffer(r[2], dtype=np.uint8) for r in rows])
    search = SemanticSearch(store, store.db, embedder)
    share = len(rows) / SCALE_TO
    out: dict[str, Any] = {}
    for relevance, preset in semantic.presets_for(embedder.model_id).items():
        k = max(1, round(preset.chunks * share))
        kept = max(k, round(search.candidates(preset.chunks) * share))
        recall, top10, first = [], [], []
        for q in queries:
            query = embedder.embed_query(q.text)
            scores = vectors @ query
            distance = np.bitwise_count(bits ^ np.packbits(query > 0, bitorder="little")).sum(axis=1)
            exact = np.argsort(-scores, kind="stable")[:k]
            cand = np.argsort(distance, kind="stable")[:kept]
            two = cand[np.argsort(-scores[cand], kind="stable")][:k]
            recall.append(len(set(exact) & set(two)) / k)
            want, got = (_notes(idx, scores, notes, preset.floor) for idx in (exact, two))
            if want:
                top10.append(len(set(want) & set(got)) / len(want))
                first.append(float(want[0] == got[0]))
        out[relevance.value] = {
            "k": k, "candidates": kept, "chunk_recall": round(statistics.fmean(recall), 4),
            "chunk_recall_min": round(min(recall), 4), "top10_notes": round(statistics.fmean(top10), 4),
            "same_first_note": round(statistics.fmean(first), 4),
        }  # fmt: skip
    return out


def _notes(order: Any, scores: Any, notes: list[str], floor: float) -> list[str]:
    """The per-note step of semantic search: each note once, at its best chunk over the floor."""
    out: list[str] = []
    for i in order:
        if scores[i] >= floor and notes[i] not in out:
            out.append(notes[i])
    return out[:10]


def sweep_strict(
    store: SqliteStore,
    embedder: Embedder,
    queries: list[EvalQuery],
    floors: list[float],
    preset: Relevance = Relevance.STRICT,
) -> None:
    """nDCG@10 of semantic and hybrid search at ``preset`` with each candidate floor for it."""
    presets = semantic.presets_for(embedder.model_id)
    saved = presets[preset]
    keyword = KeywordSearch(store)
    sem = SemanticSearch(store, store.db, embedder)
    fused = HybridSearch(keyword, lambda: sem)
    labels = [q.labels for q in queries]
    try:
        for floor in floors:
            presets[preset] = Preset(saved.chunks, floor)
            sem_runs = [[h.note_id for h in sem.search(q.text, relevance=preset, limit=10)] for q in queries]
            hyb_runs = [
                [h.note_id for h in fused.search(q.text, relevance=preset, limit=10).hits] for q in queries
            ]
            print(f"{preset.value} floor {floor:.3f}: semantic nDCG@10 {m.score(sem_runs, labels).ndcg:.3f}, "
                  f"hybrid {m.score(hyb_runs, labels).ndcg:.3f}", flush=True)  # fmt: skip
    finally:
        presets[preset] = saved


CANDIDATE_FLOORS = {f"{f:.2f}": f for f in (0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rebuild", action="store_true", help="convert git-doc and index it again")
    parser.add_argument(
        "--original-model",
        action="store_true",
        help="run the packaged model file itself, not the dynamic-int8 copy noted runs (to compare)",
    )
    parser.add_argument(
        "--strict-floors",
        default="",
        help="comma-separated floors: print strict semantic and hybrid nDCG@10 with each (to tune it)",
    )
    parser.add_argument("--floors-of", default="strict", help="the preset --strict-floors tunes")
    args = parser.parse_args()
    try:
        profile, notes = ensure_profile(rebuild=args.rebuild)
    except GitDocMissing as exc:
        print(f"skipped: {exc}")
        return 0
    queries = load_queries(notes)
    # Each model's index in its own profile (eval_models.profile_for), so this script and the
    # suite never re-index one another's: the copy noted runs, or the packaged file itself.
    model = eval_models.PACKAGED if args.original_model else eval_models.DEFAULT
    if args.rebuild:  # the model's own copy of the profile is made again from the new one
        shutil.rmtree(eval_models.MODELS_OUT / model / "git", ignore_errors=True)
    where = eval_models.profile_for(model, "git")
    store = SqliteStore.open(where / "notes.db", where / "resources")
    embedder = eval_models.MODELS[model](None)
    results = RESULTS.with_name("eval_results_original.json") if args.original_model else RESULTS
    try:
        built = index(store, embedder)
        print(f"corpus: {len(notes)} notes, {built['chunks']} chunks ({embedder.model_id}); "
              f"index brought up to date in {built['seconds']} s")  # fmt: skip
        if args.strict_floors:
            floors = [float(f) for f in args.strict_floors.split(",")]
            sweep_strict(store, embedder, queries, floors, Relevance(args.floors_of))
        arms = collect(store, embedder, queries, int(built["chunks"]))
        scaled = two_stage_at_scale(store, embedder, queries)
    finally:
        embedder.close()
        store.close()
    kinds = sorted({q.kind for q in queries})
    print(f"{len(queries)} queries: " + ", ".join(f"{sum(q.kind == k for q in queries)} {k}" for k in kinds))
    table = evaluate(queries, arms)
    print_table(table, kinds)
    best = max((n for n in table if n not in SINGLE_ARMS), key=lambda n: table[n]["all"]["ndcg"])  # type: ignore[index]
    verdict = {"best": compare(table, queries, best), "built": compare(table, queries, BUILT)}
    print()
    print_verdict("best fused", verdict["best"])
    print_verdict("as built  ", verdict["built"])
    dist = distributions(queries, arms)
    print("\nbest-chunk cosine (all-MiniLM-L6-v2):")
    for name, summary in dist.items():
        print(f"  {name:<14} " + " ".join(f"{k}={v}" for k, v in summary.items()))
    kept_floors = kept(queries, arms, CANDIDATE_FLOORS)
    print("\nfloor  answers kept  related kept  others cut  queries left empty")
    for row in kept_floors.values():
        print(f"{row['floor']:.2f}   {row['answers kept']:>12.3f}  {row['related kept']:>12.3f}  "
              f"{row['others cut']:>10.3f}  {row['queries left empty']:>18}")  # fmt: skip
    print(f"\nsemantic search's first stage, scaled to {SCALE_TO:,} chunks (vs exact):")
    for name, row in scaled.items():
        print(f"  {name:<6} k={row['k']} candidates={row['candidates']}: chunk recall {row['chunk_recall']} "
              f"(min {row['chunk_recall_min']}), top-10 notes {row['top10_notes']}, "
              f"same first note {row['same_first_note']}")  # fmt: skip
    presets = {r.value: asdict(p) for r, p in semantic.presets_for(embedder.model_id).items()}
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(json.dumps({
        "model": embedder.model_id, "corpus": {"notes": len(notes), **built}, "presets": presets,
        "queries": [asdict(q) for q in queries], "verdict": verdict, "distributions": dist,
        "floors": kept_floors, "two_stage_at_scale": scaled, "methods": table,
    }, indent=1), encoding="utf-8")  # fmt: skip
    print(f"\nwritten: {results}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

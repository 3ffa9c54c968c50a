"""The search evaluation over two corpora and six kinds of query, reported on a held-out half.

``python3 tests/bench/eval_suite.py [--model NAME] [--split test|tune|all]`` converts Git's docs
(``eval_corpus.py``) and PostgreSQL's manual (``eval_pg_corpus.py``) into profiles, indexes each
with the model (by default the dynamic-int8 copy noted runs; ``eval_models.py``: cached under
``tests/bench/out``, so a model embeds a corpus once), runs every judged query of ``eval_suite_queries.json`` (checked first by ``eval_check.py``)
through each arm, and prints nDCG@10 per category for each method, the deep-section hit rate,
and a paired bootstrap interval of hybrid against the better single arm. The deep-section rate is
also given for a section-level ranking (the distinct sections of the nearest chunks, several per
note), beside the one section each hit names. The runs are saved
(``out/eval_suite/<model>/runs.json``) so fusions can be compared without searching again
(``eval_fusion.py``) and pooled for judging (``eval_pool.py``).

Methods: ``keyword`` is the keyword mode (Joplin's AND grammar), ``keyword OR`` the same words
OR'ed (``any:1``), ``semantic`` the semantic mode (normal relevance), ``hybrid`` what
``HybridSearch`` returns (normal relevance).

Deep-section queries are also scored at section level: a query counts when a hit in the top 10
is the note of one of its judged sections and names that section or a subsection of it.

``--queries FILE`` runs the judged queries of another file of the suite's form instead (queries
written and judged apart from the suite, e.g. ``eval_fresh_paraphrases.json``), every one of them,
its runs saved apart (``out/eval_suite/<model>/<file's name>/``).

When the documentation packages are not installed (and nothing is cached) it says so and exits 0.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import eval_check
import eval_corpus
import eval_metrics as m
import eval_models
import eval_pg_corpus

from noted.errors import QueryError
from noted.markdown import outline
from noted.search import hybrid
from noted.search.finder import Finder
from noted.search.keyword import KeywordSearch
from noted.search.results import Mode
from noted.search.semantic import SemanticSearch
from noted.settings import Settings

OUT = eval_corpus.OUT / "eval_suite"
DEPTH = 100
CORPORA = {"git": eval_corpus, "pg": eval_pg_corpus}
CATEGORIES = eval_check.CATEGORIES
ARMS = ("keyword", "keyword OR", "semantic", "hybrid")
SECTION_CHUNKS = 150
"""Nearest chunks read for the section ranking (the normal preset's k)."""

Hit = list[Any]
"""``[note title, score, section path or None, [every section path, best first]]``: one hit of a
saved run (runs saved before sections were offered have the first three only)."""


@dataclass(frozen=True, slots=True)
class Query:
    """A judged query: grades by note title, and for deep-section queries the answering sections."""

    id: str
    corpus: str
    category: str
    split: str
    text: str
    grades: dict[str, int]
    sections: tuple[tuple[str, str], ...]  # (note title, section path)


def load_queries(bodies: dict[str, dict[str, str]], path: Path = eval_check.SUITE) -> list[Query]:
    """The judged queries of ``path`` (the suite's by default), with each judged section turned
    into its path in the note."""
    out = []
    for q in eval_check.load(path):
        paths = []
        for s in q.get("sections", []):
            found = [
                x.path for x in outline(bodies[q["corpus"]][s["note"]]).sections if x.heading == s["heading"]
            ]
            paths += [(s["note"], p) for p in found]
        grades = {t: j["grade"] for t, j in q["judgements"].items() if j["grade"] > 0}
        out.append(Query(q["id"], q["corpus"], q["category"], q["split"], q["query"], grades, tuple(paths)))
    return out


# Running the arms ------------------------------------------------------------------------------


def _run(finder: Finder, mode: Mode, text: str, titles: dict[str, str]) -> list[Hit]:
    """One arm's hits through the entry point every front end calls."""
    try:
        hits = finder.search(text, mode=mode, limit=DEPTH).hits
    except QueryError:
        return []  # the grammar refused the text: the arm finds nothing, as a person would see
    return [
        [titles[h.note_id], h.score, h.section.path if h.section else None, [x.path for x in h.sections]]
        for h in hits
    ]


def finder_for(store: Any, embedder: Any) -> Finder:
    """Search over ``store`` as the front ends run it, the settings at their defaults."""
    semantic = SemanticSearch(store, store.db, embedder)
    return Finder(store, KeywordSearch(store), lambda: semantic, Settings(OUT / "none.toml", environ={}))


def run_corpus(model: str, corpus: str, queries: list[Query]) -> dict[str, dict[str, list[Hit]]]:
    """Every arm's hits (by note title) for each query of one corpus, indexing it first if needed."""
    store, embedder, built = eval_models.open_indexed(model, corpus)
    try:
        titles = {n.id: n.title for n in store.list_notes()}
        semantic = SemanticSearch(store, store.db, embedder)
        finder = Finder(
            store, KeywordSearch(store), lambda: semantic, Settings(OUT / "none.toml", environ={})
        )
        out: dict[str, dict[str, list[Hit]]] = {"_index": built}
        for q in queries:
            out[q.id] = {
                "keyword": _run(finder, Mode.KEYWORD, q.text, titles),
                "keyword OR": _run(finder, Mode.KEYWORD, "any:1 " + q.text, titles),
                "semantic": _run(finder, Mode.SEMANTIC, q.text, titles),
                "hybrid": _run(finder, Mode.HYBRID, q.text, titles),
                "sections": _sections(semantic, embedder, q.text, titles),
            }
        return out
    finally:
        embedder.close()
        store.close()


def runs_path(model: str, label: str = "", source: Path = eval_check.SUITE) -> Path:
    """Where the runs of ``model`` (made by the code ``label`` names, "" for the current) are saved:
    the suite's in the model's folder, those of another file of queries in a folder of its name."""
    folder = OUT / model if source == eval_check.SUITE else OUT / model / source.stem
    return folder / (f"runs-{label}.json" if label else "runs.json")


def _sections(semantic: SemanticSearch, embedder: Any, text: str, titles: dict[str, str]) -> list[Hit]:
    """The distinct sections of the nearest chunks, best first: section-level ranking, several per note."""
    out: list[Hit] = []
    seen: set[tuple[str, str]] = set()
    for match in semantic.nearest(embedder.embed_query(text), SECTION_CHUNKS):
        if (match.note_id, match.section_path) not in seen:
            seen.add((match.note_id, match.section_path))
            out.append([titles[match.note_id], match.score, match.section_path])
    return out[:DEPTH]


def collect(
    model: str, queries: list[Query], *, again: bool = False, label: str = "", source: Path = eval_check.SUITE
) -> dict[str, Any]:
    """The saved runs of ``model`` for the queries of ``source`` (searched again when missing,
    stale or ``again``)."""
    path = runs_path(model, label, source)
    signature = {q.id: q.text for q in queries}
    if path.is_file() and not again:
        saved = json.loads(path.read_text(encoding="utf-8"))
        if saved.get("queries") == signature:
            return dict(saved)
    runs: dict[str, Any] = {"queries": signature, "index": {}, "runs": {}}
    for corpus in CORPORA:
        got = run_corpus(model, corpus, [q for q in queries if q.corpus == corpus])
        runs["index"][corpus] = got.pop("_index")
        runs["runs"].update(got)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(runs, ensure_ascii=False), encoding="utf-8")
    return runs


# Scoring ---------------------------------------------------------------------------------------

Method = Callable[[dict[str, list[Hit]]], list[Hit]]


def answers(q: Query, note: str, path: str | None) -> bool:
    """Whether ``path`` of ``note`` is a judged answering section of ``q`` or a subsection of one."""
    return path is not None and any(
        note == n and (path == p or path.startswith(p + ".")) for n, p in q.sections
    )


def section_hit(run: Sequence[Hit], q: Query, k: int = m.CUTOFF) -> float:
    """1 when a hit of the top ``k`` is a judged section's note and names it or a subsection of it."""
    return float(any(answers(q, h[0], h[2]) for h in run[:k]))


def sections_of(hit: Hit) -> list[str]:
    """The sections a hit offers, best first."""
    return list(hit[3]) if len(hit) > 3 else ([hit[2]] if hit[2] is not None else [])


def section_named(run: Sequence[Hit], q: Query, shown: int = 1, k: int = m.CUTOFF) -> float:
    """1 when the best-ranked hit of the top ``k`` whose note holds an answering section offers
    one among its first ``shown`` sections (``shown`` 1: the section the note opens at)."""
    notes = {n for n, _ in q.sections}
    for h in run[:k]:
        if h[0] in notes:
            return float(any(answers(q, h[0], p) for p in sections_of(h)[:shown]))
    return 0.0


def per_query(runs: dict[str, Any], queries: list[Query], method: Method) -> dict[str, float]:
    """nDCG@10 of ``method`` on each query."""
    return {q.id: m.ndcg([h[0] for h in method(runs["runs"][q.id])], q.grades) for q in queries}


def table(
    runs: dict[str, Any], queries: list[Query], methods: dict[str, Method]
) -> dict[str, dict[str, float]]:
    """nDCG@10 per method: overall, per category and per corpus; deep-section hit rate as ``section@10``."""
    out: dict[str, dict[str, float]] = {}
    for name, method in methods.items():
        scores = per_query(runs, queries, method)
        row = {"all": statistics.fmean(scores.values())}
        for group in (*CATEGORIES, *CORPORA):
            picked = [scores[q.id] for q in queries if group in (q.category, q.corpus)]
            row[group] = statistics.fmean(picked) if picked else float("nan")
        deep = [q for q in queries if q.category == "section"]
        for column, score in (
            ("section@10", section_hit),
            ("§ first", section_named),
            ("§ top 3", lambda run, q: section_named(run, q, shown=3)),
        ):
            got = [score(method(runs["runs"][q.id]), q) for q in deep]
            row[column] = statistics.fmean(got) if got else float("nan")
        if name == "semantic" and all("sections" in runs["runs"][q.id] for q in queries):
            ranked = [
                section_hit(runs["runs"][q.id]["sections"], q) for q in queries if q.category == "section"
            ]
            out["semantic sections (10 best, any note)"] = {
                **{c: float("nan") for c in row},
                "section@10": statistics.fmean(ranked) if ranked else float("nan"),
                "§ first": float("nan"),
                "§ top 3": float("nan"),
            }
        out[name] = row
    return out


def arm(name: str) -> Method:
    """The saved run of one arm, as a method."""
    return lambda r: r[name]


def print_table(rows: dict[str, dict[str, float]], title: str) -> None:
    columns = ["all", *CATEGORIES, "section@10", "§ first", "§ top 3", *CORPORA]
    head = f"{title:<34}" + "".join(f"{c[:10]:>11}" for c in columns)
    print(head + "\n" + "-" * len(head))
    for name, row in rows.items():
        print(f"{name:<34}" + "".join(f"{row[c]:>11.3f}" for c in columns))


def verdict(runs: dict[str, Any], queries: list[Query], method: Method, singles: dict[str, Method]) -> str:
    """``method`` against the better single arm on ``queries``: difference and paired bootstrap interval."""
    a = per_query(runs, queries, method)
    best = max(singles, key=lambda n: statistics.fmean(per_query(runs, queries, singles[n]).values()))
    b = per_query(runs, queries, singles[best])
    diff, lo, hi = m.paired_bootstrap([a[q.id] for q in queries], [b[q.id] for q in queries])
    return f"vs {best}: nDCG@10 {diff:+.3f} (paired bootstrap 95% CI {lo:+.3f}..{hi:+.3f}, {len(queries)} queries)"


def prepare(
    model: str, *, again: bool = False, label: str = "", source: Path = eval_check.SUITE
) -> tuple[list[Query], dict[str, Any]]:
    """The checked queries of ``source`` (the suite's by default) and the runs of ``model``.

    Raises:
        eval_corpus.GitDocMissing: a documentation package is missing.
        SystemExit: the judged queries do not pass ``eval_check``.
    """
    profiles = {name: module.ensure_profile()[0] for name, module in CORPORA.items()}
    bodies = eval_check.corpora_from_profiles(profiles)
    problems = eval_check.problems(eval_check.load(source), bodies, suite=source == eval_check.SUITE)
    if problems:
        raise SystemExit("the judged queries have problems:\n" + "\n".join(problems))
    queries = load_queries(bodies, source)
    return queries, collect(model, queries, again=again, label=label, source=source)


def _weights(text: str) -> tuple[float, float]:
    """``--weights``: two numbers, the outline weight and the semantic weight, e.g. ``0.15,0.7``."""
    try:
        outline_weight, semantic_weight = (float(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give two numbers, e.g. 0.15,0.7") from None
    return outline_weight, semantic_weight


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=eval_models.DEFAULT, choices=sorted(eval_models.MODELS))
    parser.add_argument(
        "--split", choices=("test", "tune", "all"), help="default: test, or all with --queries"
    )
    eval_check.add_queries_option(parser)
    parser.add_argument("--again", action="store_true", help="search again even if the runs are saved")
    parser.add_argument("--label", default="", help="save or read the runs under this name (e.g. baseline)")
    parser.add_argument(
        "--against", metavar="LABEL", help="hybrid against the saved runs of LABEL ('' for unlabelled)"
    )
    parser.add_argument(
        "--weights",
        metavar="OUTLINE,SEMANTIC",
        type=_weights,
        help="search with these fusion weights in place of hybrid.py's (with --again and a --label)",
    )
    args = parser.parse_args()
    if args.weights:
        hybrid.OUTLINE_WEIGHT, hybrid.SEMANTIC_WEIGHT = args.weights
    try:
        queries, runs = prepare(args.model, again=args.again, label=args.label, source=args.queries)
    except eval_corpus.GitDocMissing as exc:
        print(f"skipped: {exc}")
        return 0
    split = args.split or ("test" if args.queries == eval_check.SUITE else "all")
    picked = [q for q in queries if split in ("all", q.split)]
    counts = {c: sum(q.category == c for q in picked) for c in CATEGORIES}
    print(f"model {args.model}; index {runs['index']}")
    print(f"{len(picked)} {split} queries: " + ", ".join(f"{n} {c}" for c, n in counts.items()))
    methods = {a: arm(a) for a in ARMS}
    print_table(table(runs, picked, methods), f"nDCG@10 ({split})")
    singles = {a: methods[a] for a in ("keyword", "keyword OR", "semantic")}
    print("\nhybrid " + verdict(runs, picked, methods["hybrid"], singles))
    if args.against is not None:
        before = json.loads(runs_path(args.model, args.against, args.queries).read_text(encoding="utf-8"))
        print(against(runs, before, picked, args.against or "unlabelled"))
    return 0


def against(runs: dict[str, Any], before: dict[str, Any], queries: list[Query], name: str) -> str:
    """Hybrid in ``runs`` against hybrid in ``before``, over all ``queries`` and per category:
    difference and paired bootstrap interval."""
    lines = []
    for category in ("all", *CATEGORIES):
        picked = [q for q in queries if category in ("all", q.category)]
        if not picked:
            continue
        a = per_query(runs, picked, arm("hybrid"))
        b = per_query(before, picked, arm("hybrid"))
        diff, lo, hi = m.paired_bootstrap([a[q.id] for q in picked], [b[q.id] for q in picked])
        lines.append(
            f"  {category:<11} {statistics.fmean(b.values()):.3f} -> {statistics.fmean(a.values()):.3f}"
            f"  {diff:+.3f} (95% CI {lo:+.3f}..{hi:+.3f}, {len(picked)} queries)"
        )
    return f"hybrid against {name}:\n" + "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())

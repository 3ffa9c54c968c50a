"""Run queries of the evaluation, or any text, through hybrid search and show where it goes wrong.

Usage::

    python3 tests/bench/query_probe.py --category foreign --split test
    python3 tests/bench/query_probe.py --corpus git -- "undo the last commit" "delete a remote branch"
    python3 tests/bench/query_probe.py --queries tests/bench/eval_fresh_queries.json --save out/fresh.json

For a judged query: its nDCG@10, the English it was searched as, and the top five notes with
their grades; for free text (``--corpus``) the same without grades. ``--queries`` reads judged
queries from another file of ``eval_suite_queries.json``'s form (``eval_fresh_queries.json``);
``--save`` writes every query's top 10 titles, for judging the pool. Uses the indexes
``eval_suite.py`` built (run it first). A diagnostic: nothing here is an evaluation figure.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import eval_check
import eval_metrics as m
import eval_models
import eval_suite

SHOWN = 5


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default=eval_models.DEFAULT)
    parser.add_argument("--category", choices=eval_check.CATEGORIES)
    parser.add_argument("--split", choices=("tune", "test", "all"), default="all")
    parser.add_argument(
        "--corpus", choices=tuple(eval_suite.CORPORA), help="search these texts in one corpus"
    )
    eval_check.add_queries_option(parser)
    parser.add_argument("--save", type=Path, help="write each query's top 10 titles here (JSON)")
    parser.add_argument("texts", nargs="*")
    args = parser.parse_args()
    if args.texts and not args.corpus:
        parser.error("free texts need --corpus")
    profiles = {name: module.ensure_profile()[0] for name, module in eval_suite.CORPORA.items()}
    bodies = eval_check.corpora_from_profiles(profiles)
    judged = eval_suite.load_queries(bodies, args.queries)
    queries = [q for q in judged if (args.category in (None, q.category)) and args.split in ("all", q.split)]
    saved: dict[str, list[str]] = {}
    total: list[float] = []
    for corpus in eval_suite.CORPORA:
        asked: list[tuple[eval_suite.Query | None, str]] = (
            [(None, t) for t in args.texts] if args.corpus == corpus else []
        )
        if not args.texts:
            asked = [(q, q.text) for q in queries if q.corpus == corpus]
        if not asked:
            continue
        store, embedder, _ = eval_models.open_indexed(args.model, corpus)
        try:
            titles = {n.id: n.title for n in store.list_notes()}
            finder = eval_suite.finder_for(store, embedder)
            for q, text in asked:
                results = finder.search(text, mode="hybrid", limit=eval_suite.DEPTH)
                ranked = [titles[h.note_id] for h in results.hits]
                grades: dict[str, int] = q.grades if q else {}
                score = m.ndcg(ranked, grades) if q else float("nan")
                if q:
                    total.append(score)
                    saved[q.id] = ranked[: m.CUTOFF]
                wanted = [t for t, g in grades.items() if g == 2]
                where = {t: ranked.index(t) + 1 for t in wanted if t in ranked}
                english = results.reading.translation.text if results.reading.translation else "-"
                print(f"{score:.3f}  {text!r} as {english!r}  answer at {where or 'none'}")
                for title in ranked[:SHOWN]:
                    print(f"        {grades.get(title, 0)} {title}")
        finally:
            embedder.close()
            store.close()
    if total:
        print(f"mean nDCG@10 {sum(total) / len(total):.3f} over {len(total)}")
    if args.save:
        args.save.write_text(json.dumps(saved, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

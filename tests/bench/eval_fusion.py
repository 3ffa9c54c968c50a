"""Fusions of the saved arms, tuned on the tune half of the suite and reported on the held-out half.

``python3 tests/bench/eval_fusion.py [--model NAME]`` reads the runs ``eval_suite.py`` saved (it
runs the suite first when they are missing), scores every fusion family of ``eval_metrics`` over a
grid of its parameters on the *tune* queries, picks each family's best there, and prints those
picks on the *test* queries beside the arms and ``HybridSearch`` as built, with paired bootstrap
intervals against the built hybrid and the better single arm. Nothing is chosen on the test half.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable

import eval_corpus
import eval_metrics as m
import eval_models
import eval_suite
from eval_suite import Hit, Method, Query

Family = dict[str, Method]


def _pairs(hits: list[Hit]) -> m.Run:
    return [(h[0], float(h[1])) for h in hits]


def _as_hits(run: m.Run, r: dict[str, list[Hit]]) -> list[Hit]:
    """The fused run as hits, each naming the section its semantic hit names, else its keyword hit's."""
    where = {h[0]: h[2] for h in r["keyword OR"]} | {h[0]: h[2] for h in r["semantic"]}
    return [[n, s, where.get(n)] for n, s in run]


def families() -> dict[str, Family]:
    """Fusion family -> its members by parameter, each a method over one query's saved arms."""
    out: dict[str, Family] = {"convex min-max": {}, "convex max-normalised": {}, "RRF": {}}
    for w in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
        for kw in ("keyword OR", "keyword"):
            for floor in (0.0, 0.4, 0.45):
                name = f"w_sem={w} {kw}" + (f" floor={floor}" if floor else "")
                out["convex min-max"][name] = _convex(w, kw, "minmax", floor)
                out["convex max-normalised"][name] = _convex(w, kw, "maxcos", floor)
    for k in (5, 20, 60):
        for w in (0.5, 0.6, 0.7):
            out["RRF"][f"k={k} w_sem={w}"] = _rrf(k, w)
    return out


def _convex(w: float, kw: str, norm: str, floor: float) -> Method:
    """A weighted sum of normalised scores; semantic hits under ``floor`` dropped first (a stricter preset)."""

    def fused(r: dict[str, list[Hit]]) -> list[Hit]:
        semantic = [(n, s) for n, s in _pairs(r["semantic"]) if s >= floor]
        return _as_hits(m.weighted(_pairs(r[kw]), semantic, w_semantic=w, norm=norm), r)

    return fused


def _rrf(k: int, w: float) -> Method:
    def fused(r: dict[str, list[Hit]]) -> list[Hit]:
        return _as_hits(m.rrf(_pairs(r["keyword OR"]), _pairs(r["semantic"]), k=k, w_semantic=w), r)

    return fused


def mean_ndcg(runs: dict[str, object], queries: list[Query], method: Method) -> float:
    return statistics.fmean(eval_suite.per_query(runs, queries, method).values())


def tuned(runs: dict[str, object], tune: list[Query]) -> dict[str, Method]:
    """Each family's best member on the tune queries, named with its parameters."""
    out: dict[str, Method] = {}
    for family, members in families().items():
        best = max(members, key=lambda name: mean_ndcg(runs, tune, members[name]))
        out[f"{family} ({best})"] = members[best]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=eval_models.DEFAULT, choices=sorted(eval_models.MODELS))
    parser.add_argument("--label", default="", help="the saved runs of this name (see eval_suite.py)")
    args = parser.parse_args()
    try:
        queries, runs = eval_suite.prepare(args.model, label=args.label)
    except eval_corpus.GitDocMissing as exc:
        print(f"skipped: {exc}")
        return 0
    tune = [q for q in queries if q.split == "tune"]
    test = [q for q in queries if q.split == "test"]
    arms: dict[str, Callable[[dict[str, list[Hit]]], list[Hit]]] = {
        a: eval_suite.arm(a) for a in eval_suite.ARMS
    }
    picks = tuned(runs, tune)
    print(f"model {args.model}: fusions tuned on {len(tune)} queries, scored on {len(test)} held-out ones")
    eval_suite.print_table(eval_suite.table(runs, test, {**arms, **picks}), "nDCG@10 (test)")
    singles = {a: arms[a] for a in ("keyword", "keyword OR", "semantic")}
    print()
    for name, method in picks.items():
        print(f"{name}: " + eval_suite.verdict(runs, test, method, singles))
        print(f"{'':>{len(name)}}  " + eval_suite.verdict(runs, test, method, {"hybrid": arms["hybrid"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

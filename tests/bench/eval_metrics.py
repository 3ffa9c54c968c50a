"""Ranking metrics and the fusion candidates the search evaluation compares.

A run is a ranked list of ``(note_id, score)``, best first. Fusions take the keyword run (BM25,
higher is better), the semantic run (cosine of the note's best chunk) and, for the "boost"
family, the cosine of every note (so a note only the keyword arm found still gets a semantic
score, as a scoped semantic query over the keyword hits would give it).
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

Run = list[tuple[str, float]]
Labels = Mapping[str, int]
"""Relevant note ids and their grade: 2 the answer, 1 related."""

CUTOFF = 10


# Metrics ---------------------------------------------------------------------------------------


def ndcg(run: Sequence[str], labels: Labels, k: int = CUTOFF) -> float:
    """nDCG@k with exponential gains (2^grade - 1): an answer counts three times a related page."""
    dcg = sum((2 ** labels.get(n, 0) - 1) / math.log2(i + 2) for i, n in enumerate(run[:k]))
    ideal = sorted(labels.values(), reverse=True)[:k]
    idcg = sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall(run: Sequence[str], labels: Labels, k: int = CUTOFF) -> float:
    """The share of the relevant notes (either grade) in the first k."""
    return sum(1 for n in run[:k] if n in labels) / len(labels)


def rr(run: Sequence[str], labels: Labels) -> float:
    """1 / the rank of the first relevant note (either grade), 0 when none is returned."""
    return next((1.0 / (i + 1) for i, n in enumerate(run) if n in labels), 0.0)


@dataclass(frozen=True, slots=True)
class Scores:
    """Mean metrics of one method over a set of queries."""

    ndcg: float
    recall: float
    mrr: float
    empty: int


def score(runs: Sequence[Sequence[str]], labels: Sequence[Labels]) -> Scores:
    return Scores(
        statistics.fmean(ndcg(r, lab) for r, lab in zip(runs, labels, strict=True)),
        statistics.fmean(recall(r, lab) for r, lab in zip(runs, labels, strict=True)),
        statistics.fmean(rr(r, lab) for r, lab in zip(runs, labels, strict=True)),
        sum(1 for r in runs if not r),
    )


def paired_bootstrap(
    a: Sequence[float], b: Sequence[float], rounds: int = 10_000
) -> tuple[float, float, float]:
    """Mean of ``a - b`` and its 95% bootstrap interval over queries (fixed seed)."""
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    rng = random.Random(7)
    means = sorted(statistics.fmean(rng.choices(diffs, k=len(diffs))) for _ in range(rounds))
    return statistics.fmean(diffs), means[int(0.025 * rounds)], means[int(0.975 * rounds)]


# Normalisation ---------------------------------------------------------------------------------


def minmax(run: Run) -> dict[str, float]:
    """Scores mapped to 0..1 within the run (1 for every hit of a run whose scores are all equal)."""
    if not run:
        return {}
    lo, hi = min(s for _, s in run), max(s for _, s in run)
    return {n: (s - lo) / (hi - lo) if hi > lo else 1.0 for n, s in run}


def zscore(run: Run) -> dict[str, float]:
    """Scores as standard deviations from the run's mean (0 for a run of one)."""
    if len(run) < 2:
        return {n: 0.0 for n, _ in run}
    values = [s for _, s in run]
    mean, sd = statistics.fmean(values), statistics.pstdev(values) or 1.0
    return {n: (s - mean) / sd for n, s in run}


def _ranked(scores: Mapping[str, float]) -> Run:
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


# Fusions ---------------------------------------------------------------------------------------


def rrf(keyword: Run, semantic: Run, *, k: float = 60.0, w_semantic: float = 0.5) -> Run:
    """Reciprocal rank fusion: each arm adds ``weight / (k + rank)``; weights sum to 1."""
    fused: dict[str, float] = {}
    for run, weight in ((keyword, 1.0 - w_semantic), (semantic, w_semantic)):
        for rank, (n, _) in enumerate(run, start=1):
            fused[n] = fused.get(n, 0.0) + weight / (k + rank)
    return _ranked(fused)


def bm25_over_max(run: Run) -> dict[str, float]:
    """BM25 divided by the run's best (its theoretical minimum is 0)."""
    top = max((s for _, s in run), default=0.0)
    return {n: s / top if top > 0 else 1.0 for n, s in run}


def weighted(keyword: Run, semantic: Run, *, w_semantic: float, norm: str) -> Run:
    """Weighted sum of normalised scores; a note missing from an arm gets that arm's lowest value.

    ``norm``: ``minmax`` or ``zscore`` on both arms, or ``maxcos``: BM25 over the run's best and
    the raw cosine (each arm's theoretical minimum is 0, so a missing note gets 0).
    """
    if norm == "maxcos":
        kw, sem = bm25_over_max(keyword), dict(semantic)
        kw_missing = sem_missing = 0.0
    else:
        normalise: Callable[[Run], dict[str, float]] = minmax if norm == "minmax" else zscore
        kw, sem = normalise(keyword), normalise(semantic)
        kw_missing = 0.0 if norm == "minmax" else min(kw.values(), default=0.0)
        sem_missing = 0.0 if norm == "minmax" else min(sem.values(), default=0.0)
    fused = {
        n: w_semantic * sem.get(n, sem_missing) + (1 - w_semantic) * kw.get(n, kw_missing)
        for n in {*kw, *sem}
    }
    return _ranked(fused)


def boost(keyword: Run, semantic: Run, cosine: Mapping[str, float], *, beta: float, graded: bool) -> Run:
    """Cosine plus a bonus for keyword hits: ``beta`` flat, or ``beta`` times the min-max BM25.

    Candidates are the semantic run and every keyword hit; a keyword hit the semantic arm did not
    return is scored with its own cosine (what a semantic query scoped to the keyword hits gives).
    """
    bonus = minmax(keyword) if graded else {n: 1.0 for n, _ in keyword}
    fused = {n: s for n, s in semantic}
    for n, b in bonus.items():
        fused[n] = fused.get(n, cosine.get(n, 0.0)) + beta * b
    return _ranked(fused)


def fallback(keyword: Run, semantic: Run) -> Run:
    """The keyword hits when there are any, else the semantic ones."""
    return keyword if keyword else semantic

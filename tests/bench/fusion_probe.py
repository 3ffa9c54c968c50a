"""Ideas for the hybrid ranking beyond the fusion itself, tried on the suite's indexes (issue 17).

``python3 tests/bench/fusion_probe.py`` loads every chunk vector of the two corpora's MiniLM
indexes (``eval_suite.py`` builds them), runs each query's keyword arm as ``HybridSearch`` runs it
(words OR'ed, misspellings corrected) and its semantic arm by exact cosine over every chunk, and
scores, on the tune half, a grid of each idea; the best member of each, chosen there, is reported
on the held-out half against the baseline with a paired bootstrap interval:

- ``baseline``: the fusion ``HybridSearch`` used before ``SECOND_CHUNK_WEIGHT`` (min-max, semantic
  weight 0.6, a note by its best chunk of the nearest 150 over the normal floor 0.35).
- ``second chunk``: a note by its best chunk plus ``g`` times its second best (several close
  chunks say more than one); ``g=0.2`` is what ``HybridSearch`` does now.
- ``rocchio``: pseudo-relevance feedback in the embedding space: the query vector moved towards
  the best chunks of the fused top ``m`` notes by ``b``, searched again and fused again.
- ``keyword feedback``: the fused top ``m`` notes' most distinctive body words (BM25's idf times
  their frequency there) OR'ed into the keyword arm, weighted by running it again.
- ``chunk prior``: the second chunk (0.2), less ``beta`` times the log of the note's chunks: the best of
  many chunks is closer than the best of few by chance alone, which favours long notes.
- ``title vector``: each note's title embedded on its own, and a note scored by its closeness as
  ``HybridSearch`` has it (best chunk plus 0.2 times the second) plus ``a`` times its title's cosine
  (``add``), or by the better of the two (``max``, the title scaled by ``a``): the title's signal
  for every chunk, without leading every chunk with it, which blurs which section of the note answers.
- ``note vector``: the same with one vector per note of its title, its headings in order and its
  opening (``note_outline``; the model keeps what fits), embedded when the probe starts.
- ``outline x weight``: the note vector at ``a`` and the fusion's semantic weight ``w`` together
  (``HybridSearch`` ships a=0.15, w=0.7, see ``hybrid.py``; ``eval_suite.py --weights`` runs a
  pair as built).
- ``first chunk``: the same with the note's first chunk (its title and opening), which the index
  already holds, in place of a vector of its own.

- ``fields`` (only when named in ``--families``): the keyword arm ranked by BM25 with weights for
  title, headings and body (the FTS5 table's three columns; title 10, headings 2, body 1 ship, the
  body holding the headings too); fused with the second chunk's semantic arm.

Queries in another language are turned into English first, as ``HybridSearch`` does
(``noted.search.translate``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import re
import statistics
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import eval_metrics as m
import eval_models
import eval_suite
import numpy as np

from noted.markdown import outline
from noted.models import Note
from noted.search import sql as search_sql
from noted.search.hybrid import fuse, split_query
from noted.search.keyword import KeywordSearch
from noted.search.reading import read_words
from noted.store.sqlite import SqliteStore

FLOOR = 0.35
CHUNKS = 150
DEPTH = 100
WORD = re.compile(r"[a-z][a-z0-9_]{2,}")


@dataclass
class Corpus:
    vectors: np.ndarray
    note_of: list[str]
    rows_of: dict[str, list[int]]
    titles: dict[str, str]
    keyword: KeywordSearch
    embedder: object
    doc_words: dict[str, Counter[str]]
    idf: dict[str, float]
    title_ids: list[str]
    title_vectors: np.ndarray
    note_vectors: np.ndarray
    first_vectors: np.ndarray
    fielded: KeywordSearch | None = None


@dataclass
class Prepared:
    """One query's arms, computed once: what every variant starts from."""

    qvec: np.ndarray
    cos: np.ndarray
    keyword: list[tuple[str, float]]
    ranking: str
    title_cos: dict[str, float]
    note_cos: dict[str, float]
    first_cos: dict[str, float]


def load(corpus: str) -> Corpus:
    store, embedder, _ = eval_models.open_indexed(eval_models.DEFAULT, corpus)
    with store.db.read() as conn:
        rows = conn.execute(
            "SELECT c.note_id, e.embedding, c.idx FROM index_chunks c JOIN index_embeddings e ON e.rowid = c.rowid"
        ).fetchall()
    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
    matrix = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    notes = store.list_notes()
    doc_words = {n.id: Counter(WORD.findall(store.get_note(n.id).body.lower())) for n in notes}
    df: Counter[str] = Counter()
    for words in doc_words.values():
        df.update(words.keys())
    idf = {w: math.log(1 + (len(notes) - d + 0.5) / (d + 0.5)) for w, d in df.items()}
    note_of = [r[0] for r in rows]
    rows_of: dict[str, list[int]] = {}
    for i, note in enumerate(note_of):
        rows_of.setdefault(note, []).append(i)
    title_ids = [n.id for n in notes]
    titles = np.asarray(embedder.embed_documents([n.title for n in notes]), dtype=np.float32)
    titles = titles / np.linalg.norm(titles, axis=1, keepdims=True)
    outlines = np.asarray(
        embedder.embed_documents([note_outline(store.get_note(n.id)) for n in notes]), np.float32
    )
    outlines = outlines / np.linalg.norm(outlines, axis=1, keepdims=True)
    first = {r[0]: i for i, r in enumerate(rows) if r[2] == 0}
    firsts = np.stack(
        [matrix[first[n.id]] if n.id in first else np.zeros(matrix.shape[1], np.float32) for n in notes]
    )
    return Corpus(
        matrix,
        note_of,
        rows_of,
        {n.id: n.title for n in notes},
        KeywordSearch(store),
        embedder,
        doc_words,
        idf,
        title_ids,
        titles,
        outlines,
        firsts,
    )


def note_outline(note: Note) -> str:
    """What a note's own vector embeds: its title, its headings in order, then its opening (the
    model keeps what fits)."""
    sections = outline(note.body).sections
    headings = " · ".join(s.heading for s in sections if s.heading)
    return f"{note.title}\n\n{headings}\n\n{note.body[:2000]}"


def semantic_run(
    c: Corpus, cos: np.ndarray, second: float = 0.0, prior: float = 0.0
) -> list[tuple[str, float]]:
    top = np.argsort(-cos)[:CHUNKS]
    best: dict[str, list[float]] = {}
    for i in top:
        if cos[i] >= FLOOR:
            best.setdefault(c.note_of[i], []).append(float(cos[i]))
    scored = {
        n: s[0] + second * (s[1] if len(s) > 1 else 0.0) - prior * math.log(len(c.rows_of[n]))
        for n, s in best.items()
    }
    return sorted(scored.items(), key=lambda x: -x[1])[:DEPTH]


def keyword_run(c: Corpus, ranking: str) -> list[tuple[str, float]]:
    return [(h.note_id, h.score) for h in c.keyword.search(ranking, limit=DEPTH, snippets=False).hits]


def prepare(c: Corpus, text: str) -> Prepared:
    split = split_query(c.keyword.parse(text))
    words = read_words(split.text, c.keyword)  # as HybridSearch reads them
    ranking = " ".join([split.ranking, *words.extra_words])
    vectors = [c.embedder.embed_query(t) for t in words.texts]  # type: ignore[attr-defined]
    vectors = [v / np.linalg.norm(v) for v in vectors]
    cos = np.max(np.stack([c.vectors @ v for v in vectors]), axis=0)  # a chunk by its closest vector
    qvec = vectors[-1]
    title_cos = dict(zip(c.title_ids, (c.title_vectors @ qvec).tolist(), strict=True))
    note_cos = dict(zip(c.title_ids, (c.note_vectors @ qvec).tolist(), strict=True))
    first_cos = dict(
        zip(
            c.title_ids,
            np.max(np.stack([c.first_vectors @ v for v in vectors]), axis=0).tolist(),
            strict=True,
        )
    )
    return Prepared(qvec, cos, keyword_run(c, ranking), ranking, title_cos, note_cos, first_cos)


Variant = Callable[[Corpus, Prepared], list[str]]


def baseline(c: Corpus, p: Prepared) -> list[str]:
    return [n for n, _ in fuse(p.keyword, semantic_run(c, p.cos))]


def second_chunk(g: float) -> Variant:
    def run(c: Corpus, p: Prepared) -> list[str]:
        return [n for n, _ in fuse(p.keyword, semantic_run(c, p.cos, g))]

    return run


def chunk_prior(beta: float) -> Variant:
    def run(c: Corpus, p: Prepared) -> list[str]:
        return [n for n, _ in fuse(p.keyword, semantic_run(c, p.cos, 0.2, beta))]

    return run


def title_vector(a: float, how: str, whole: bool | str = False) -> Variant:
    def run(c: Corpus, p: Prepared) -> list[str]:
        chunks = dict(semantic_run(c, p.cos, 0.2))
        of = p.first_cos if whole == "first" else p.note_cos if whole else p.title_cos
        candidates = set(chunks) | {n for n, s in of.items() if a * s >= FLOOR}
        if how == "add":
            scored = {n: chunks.get(n, 0.0) + a * of[n] for n in candidates}
        else:
            scored = {n: max(chunks.get(n, 0.0), a * of[n]) for n in candidates}
        semantic = sorted(scored.items(), key=lambda x: -x[1])[:DEPTH]
        return [n for n, _ in fuse(p.keyword, semantic)]

    return run


def outline_weight(a: float, w: float) -> Variant:
    """The note vector added at ``a`` (as ``note vector``), and the semantic arm's share of the
    fusion ``w``: what ``HybridSearch`` ships (``OUTLINE_WEIGHT``, ``SEMANTIC_WEIGHT``)."""

    def run(c: Corpus, p: Prepared) -> list[str]:
        chunks = semantic_run(c, p.cos, 0.2)
        semantic = sorted(((n, s + a * p.note_cos[n]) for n, s in chunks), key=lambda x: -x[1])
        return [n for n, _ in fuse(p.keyword, semantic[:DEPTH], semantic_weight=w)]

    return run


def rocchio(mm: int, b: float) -> Variant:
    def run(c: Corpus, p: Prepared) -> list[str]:
        first = [n for n, _ in fuse(p.keyword, semantic_run(c, p.cos))][:mm]
        if not first:
            return []
        rows = [max(c.rows_of[note], key=lambda i: p.cos[i]) for note in first]
        centroid = c.vectors[rows].mean(axis=0)
        q = p.qvec + b * centroid
        q = q / np.linalg.norm(q)
        return [n for n, _ in fuse(p.keyword, semantic_run(c, c.vectors @ q))]

    return run


def keyword_feedback(mm: int, t: int) -> Variant:
    def run(c: Corpus, p: Prepared) -> list[str]:
        sem = semantic_run(c, p.cos)
        first = [n for n, _ in fuse(p.keyword, sem)][:mm]
        weights: dict[str, float] = {}
        for note in first:
            words = c.doc_words[note]
            total = sum(words.values()) or 1
            for w, f in words.items():
                weights[w] = weights.get(w, 0.0) + c.idf[w] * f / total
        extra = sorted(weights, key=lambda w: -weights[w])[:t]  # stable: ties in first-seen order
        ranking = " ".join([p.ranking, *extra]) if p.ranking else ""
        kw = keyword_run(c, ranking) if ranking else p.keyword
        return [n for n, _ in fuse(kw, sem)]

    return run


FIELD_WEIGHTS = (
    (10.0, 0.0),
    (10.0, 1.0),
    (10.0, 2.0),
    (10.0, 3.0),
    (10.0, 5.0),
    (5.0, 1.0),
    (5.0, 3.0),
    (20.0, 1.0),
    (20.0, 3.0),
)
"""(title, headings) weights tried by ``fields``, the body's being 1: (10, 2) ships; (10, 0) is the
ranking before the headings had a column, the body holding them too."""


def fielded(corpus: str) -> KeywordSearch:
    """Keyword search over ``corpus``'s profile, whose FTS5 table holds title, headings and body
    (schema 3; before it, this made a copy with the column added)."""
    profile = eval_models.profile_for(eval_models.DEFAULT, corpus)
    return KeywordSearch(SqliteStore.open(profile / "notes.db", profile / "resources"))


def fields(searches: dict[str, KeywordSearch], title: float, heading: float) -> Variant:
    hits = f"SELECT rowid, bm25(notes_fts, {title}, {heading}, 1.0) FROM notes_fts WHERE notes_fts MATCH ?"
    cache: dict[int, list[tuple[str, float]]] = {}

    def run(c: Corpus, p: Prepared) -> list[str]:
        if id(p) not in cache:
            shipped, search_sql._HITS = search_sql._HITS, hits
            try:
                corpus = next(name for name, s in searches.items() if s is c.fielded)
                cache[id(p)] = keyword_run_with(searches[corpus], p.ranking)
            finally:
                search_sql._HITS = shipped
        return [n for n, _ in fuse(cache[id(p)], semantic_run(c, p.cos, 0.2))]

    return run


def keyword_run_with(search: KeywordSearch, ranking: str) -> list[tuple[str, float]]:
    return (
        [(h.note_id, h.score) for h in search.search(ranking, limit=DEPTH, snippets=False).hits]
        if ranking
        else []
    )


def families() -> dict[str, dict[str, Variant]]:
    return {
        "second chunk": {f"g={g}": second_chunk(g) for g in (0.1, 0.2, 0.3, 0.5)},
        "chunk prior": {f"beta={b}": chunk_prior(b) for b in (0.0, 0.005, 0.01, 0.02, 0.03, 0.05)},
        "title vector": {
            f"{how} a={a}": title_vector(a, how)
            for how, a in itertools.chain(
                itertools.product(("add",), (0.1, 0.2, 0.3, 0.5)),
                itertools.product(("max",), (0.8, 0.9, 1.0)),
            )
        },
        "note vector": {
            f"{how} a={a}": title_vector(a, how, whole=True)
            for how, a in itertools.chain(
                itertools.product(("add",), (0.05, 0.1, 0.15, 0.2, 0.3, 0.5)),
                itertools.product(("max",), (0.8, 0.9, 1.0)),
            )
        },
        "first chunk": {
            f"add a={a}": title_vector(a, "add", whole="first") for a in (0.05, 0.1, 0.15, 0.2, 0.3)
        },
        "outline x weight": {
            f"a={a} w={w}": outline_weight(a, w)
            for a, w in itertools.product((0.0, 0.05, 0.1, 0.15, 0.2, 0.3), (0.6, 0.65, 0.7, 0.75, 0.8))
        },
        "rocchio": {f"m={a} b={b}": rocchio(a, b) for a, b in itertools.product((1, 3, 5), (0.2, 0.4, 0.7))},
        "keyword feedback": {
            f"m={a} t={t}": keyword_feedback(a, t) for a, t in itertools.product((1, 3), (3, 6, 10))
        },
    }


def field_family(searches: dict[str, KeywordSearch]) -> dict[str, Variant]:
    return {f"title={t} headings={h}": fields(searches, t, h) for t, h in FIELD_WEIGHTS}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--families", nargs="*", help="only these families (default: all)")
    args = parser.parse_args()
    queries, _ = eval_suite.prepare(eval_models.DEFAULT)
    corpora = {name: load(name) for name in eval_suite.CORPORA}
    searches: dict[str, KeywordSearch] = {}
    if args.families and "fields" in args.families:
        for name, c in corpora.items():
            c.fielded = searches[name] = fielded(name)
    prepared = {q.id: prepare(corpora[q.corpus], q.text) for q in queries}

    def scores(variant: Variant, qs: list[eval_suite.Query]) -> dict[str, float]:
        out = {}
        for q in qs:
            c = corpora[q.corpus]
            out[q.id] = m.ndcg([c.titles[n] for n in variant(c, prepared[q.id])], q.grades)
        return out

    tune = [q for q in queries if q.split == "tune"]
    test = [q for q in queries if q.split == "test"]
    base_test = scores(baseline, test)
    report: dict[str, dict[str, object]] = {
        "baseline": {
            "tune": statistics.fmean(scores(baseline, tune).values()),
            "test": statistics.fmean(base_test.values()),
        }
    }
    print(f"baseline: tune {report['baseline']['tune']:.3f} test {report['baseline']['test']:.3f}")
    every = families() | ({"fields": field_family(searches)} if searches else {})
    for family, members in every.items():
        if args.families and family not in args.families:
            continue
        tuned = {name: statistics.fmean(scores(v, tune).values()) for name, v in members.items()}
        best = max(tuned, key=lambda k: tuned[k])
        got = scores(members[best], test)
        diff, lo, hi = m.paired_bootstrap([got[q.id] for q in test], [base_test[q.id] for q in test])
        cats = {
            cat: statistics.fmean(got[q.id] for q in test if q.category == cat)
            for cat in eval_suite.CATEGORIES
        }
        grid = " ".join(f"{k}:{v:.3f}" for k, v in tuned.items())
        print(
            f"{family} ({best}): tune {tuned[best]:.3f} test {statistics.fmean(got.values()):.3f} "
            f"vs baseline {diff:+.3f} ({lo:+.3f}..{hi:+.3f}) | "
            + " ".join(f"{k} {v:.3f}" for k, v in cats.items())
        )
        print(f"  tune grid: {grid}")
        report[family] = {"best": best, "tune": tuned[best], "test": statistics.fmean(got.values()), **cats}
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Checks of the judged queries of ``eval_suite_queries.json`` against the corpora they name.

Run by ``eval_suite.py`` before it scores anything, and on its own as
``python3 tests/bench/eval_check.py``. It fails (lists every problem, exits 1) when:

- a judged note or a section's heading does not exist in its corpus;
- a judgement has no ``why`` (grades 1 and 2), or a grade outside 0..2;
- a query has no grade-2 note, or a ``section`` query no section, or a section's note is not grade 2;
- a ``paraphrase`` query shares a content word with the title of one of its grade-2 notes
  (words compared lower-cased, split on anything not a letter or digit, with a crude English
  stemming: a trailing ``s``, ``es``, ``ing`` or ``ed`` does not make a word different);
- a category holds fewer than ``MIN_PER_CATEGORY`` queries, or the split is not stratified
  (within each corpus and category, tune and test differ by at most one query).

The files of queries judged apart from the suite (``eval_fresh_*.json``) are checked too, query by
query (their counts and split are their own).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

SUITE = Path(__file__).resolve().parent / "eval_suite_queries.json"
CATEGORIES = ("keyword", "task", "paraphrase", "section", "misspelt", "foreign")
MIN_PER_CATEGORY = 15
STOPWORDS = frozenset(
    "a an the and or of to in on for with by from at as is are be it its into how do i my me can what "
    "which who when why where this that these those not no all any each one git using use".split()
)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_HEADING = re.compile(r"^#{1,6} +(.+?)\s*#*$", re.M)


def load(path: Path = SUITE) -> list[dict[str, Any]]:
    """The queries of the suite file, in file order."""
    return list(json.loads(path.read_text(encoding="utf-8"))["queries"])


def add_queries_option(parser: argparse.ArgumentParser) -> None:
    """``--queries FILE``: judged queries from another file of the suite's form (default the suite's)."""
    parser.add_argument(
        "--queries",
        type=lambda text: Path(text).resolve(),
        default=SUITE,
        help="judged queries from this file of the suite's form (eval_fresh_*.json); default the suite's",
    )


def stem(word: str) -> str:
    """A crude English stem: enough that "servers" and "server" or "tagging" and "tag" compare equal."""
    for suffix in ("ing", "es", "ed", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def content_words(text: str) -> set[str]:
    """The stemmed words of ``text`` that carry meaning (stop words dropped)."""
    return {stem(w) for w in _WORD.findall(text.lower()) if w not in STOPWORDS}


def headings(body: str) -> set[str]:
    """Every heading text of a Markdown body, and "" for the opening before the first heading."""
    found = list(_HEADING.finditer(body))
    opening = body[: found[0].start()] if found else body
    return {m.group(1).strip() for m in found} | ({""} if opening.strip() else set())


Corpus = dict[str, str]
"""Note title -> body, of one corpus."""


def problems(queries: list[dict[str, Any]], corpora: dict[str, Corpus], *, suite: bool = True) -> list[str]:
    """Everything wrong with ``queries`` (empty when they pass); the counts and the split are
    checked only for the suite (``suite``), not for a file of queries judged apart from it."""
    out: list[str] = []
    for q in queries:
        out += _query_problems(q, corpora.get(q["corpus"]), suite=suite)
    if not suite:
        return out
    count = Counter(q["category"] for q in queries)
    out += [f"category {c}: {count[c]} queries, fewer than {MIN_PER_CATEGORY}" for c in CATEGORIES
            if count[c] < MIN_PER_CATEGORY]  # fmt: skip
    strata = Counter((q["corpus"], q["category"], q["split"]) for q in queries)
    for corpus, category in {(q["corpus"], q["category"]) for q in queries}:
        tune, test = strata[corpus, category, "tune"], strata[corpus, category, "test"]
        if abs(tune - test) > 1:
            out.append(f"{corpus}/{category}: {tune} tune and {test} test queries, not stratified")
    return out


def _query_problems(q: dict[str, Any], corpus: Corpus | None, *, suite: bool) -> list[str]:
    where = f"{q['id']} ({q['query']!r})"
    if corpus is None:
        return [f"{where}: unknown corpus {q['corpus']!r}"]
    out: list[str] = []
    if q["category"] not in CATEGORIES or (suite and q.get("split") not in ("tune", "test")):
        out.append(f"{where}: category {q['category']!r} or split {q.get('split')!r} unknown")
    grades = {t: j["grade"] for t, j in q["judgements"].items()}
    for title, j in q["judgements"].items():
        if title not in corpus:
            out.append(f"{where}: no note titled {title!r}")
        if j["grade"] not in (0, 1, 2) or (j["grade"] > 0 and not j.get("why")):
            out.append(f"{where}: judgement of {title!r} needs a grade 0-2 and a why")
    answers = [t for t, g in grades.items() if g == 2]
    if not answers:
        out.append(f"{where}: no grade-2 note")
    if q["category"] == "paraphrase":
        for title in answers:
            shared = content_words(q["query"]) & content_words(title)
            if shared:
                out.append(f"{where}: shares {sorted(shared)} with the title {title!r}")
    sections = q.get("sections", [])
    if q["category"] == "section" and not sections:
        out.append(f"{where}: a section query names no section")
    for s in sections:
        if grades.get(s["note"]) != 2:
            out.append(f"{where}: the section's note {s['note']!r} is not a grade-2 note")
        elif s["heading"] not in headings(corpus.get(s["note"], "")):
            out.append(f"{where}: {s['note']!r} has no heading {s['heading']!r}")
    return out


def corpora_from_profiles(profiles: dict[str, Path]) -> dict[str, Corpus]:
    """Each corpus's note bodies, from the converted Markdown beside its cached profile."""
    out: dict[str, Corpus] = {}
    for name, profile in profiles.items():
        notes = json.loads((profile / "manifest.json").read_text(encoding="utf-8"))["notes"]
        out[name] = {}
        for n in notes:
            text = (profile / "markdown" / (n["key"].replace("/", "__") + ".md")).read_text(encoding="utf-8")
            out[name][n["title"]] = text.split("\n", 2)[2] if text.startswith("# ") else text
    return out


def main() -> int:
    import eval_corpus
    import eval_pg_corpus

    try:
        eval_corpus.ensure_profile()
        eval_pg_corpus.ensure_profile()
    except eval_corpus.GitDocMissing as exc:
        print(f"skipped: {exc}")
        return 0
    queries = load()
    corpora = corpora_from_profiles({"git": eval_corpus.PROFILE, "pg": eval_pg_corpus.PROFILE})
    found = problems(queries, corpora)
    for apart in sorted(SUITE.parent.glob("eval_fresh_*.json")):
        found += [f"{apart.name}: {line}" for line in problems(load(apart), corpora, suite=False)]
    for line in found:
        print(line)
    counts = Counter(q["category"] for q in queries)
    print(f"{len(queries)} queries ({', '.join(f'{counts[c]} {c}' for c in CATEGORIES)}): "
          f"{len(found)} problems")  # fmt: skip
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

"""The sections the deep-section queries' results offer, for judging and for seeing what went wrong.

``python3 tests/bench/eval_sections.py [--label L ...] [--split tune|test|all] [--unjudged]`` reads
the saved runs of ``eval_suite.py`` (one per label, '' for the unlabelled) and prints, for every
deep-section query, each hit of the top 10 whose note is a grade-2 note, with the sections it
offers (best first) marked ``A`` (judged to answer, or a subsection of one), ``N`` (judged not to)
or ``?`` (not judged yet), the heading and the opening of each. A person judges the ``?`` ones by
adding ``{"note", "heading", "why"}`` to the query's ``sections`` (answers) or ``not_sections``
(does not) in ``eval_suite_queries.json``; ``eval_suite.py`` counts only ``sections``.
"""

from __future__ import annotations

import argparse
import json
import sys

import eval_check
import eval_corpus
import eval_models
import eval_suite

from noted.markdown import outline


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--label", action="append", default=None, help="runs to read (repeat); default ''")
    parser.add_argument("--split", default="all", choices=("test", "tune", "all"))
    parser.add_argument("--unjudged", action="store_true", help="only sections not judged yet")
    parser.add_argument("--model", default=eval_models.DEFAULT)
    args = parser.parse_args()
    try:
        profiles = {name: module.ensure_profile()[0] for name, module in eval_suite.CORPORA.items()}
    except eval_corpus.GitDocMissing as exc:
        print(f"skipped: {exc}")
        return 0
    bodies = eval_check.corpora_from_profiles(profiles)
    raw = {q["id"]: q for q in eval_check.load()}
    queries = [
        q
        for q in eval_suite.load_queries(bodies)
        if q.category == "section" and args.split in ("all", q.split)
    ]
    runs = [
        json.loads(eval_suite.runs_path(args.model, label).read_text(encoding="utf-8"))["runs"]
        for label in (args.label or [""])
    ]
    for q in queries:
        rejected = {(s["note"], s["heading"]) for s in raw[q.id].get("not_sections", [])}
        print(f"\n{q.id} [{q.split}] {q.text!r}")
        seen: set[tuple[str, str]] = set()
        for run in runs:
            for method in ("hybrid", "semantic"):
                for hit in run[q.id][method][:10]:
                    if q.grades.get(hit[0]) != 2:
                        continue
                    sections = outline(bodies[q.corpus][hit[0]]).sections
                    by_path = {s.path: s for s in sections}
                    for path in eval_suite.sections_of(hit)[:3]:
                        if (hit[0], path) in seen:
                            continue
                        seen.add((hit[0], path))
                        section = by_path.get(path)
                        heading = section.heading if section else ""
                        mark = (
                            "A"
                            if eval_suite.answers(q, hit[0], path)
                            else "N"
                            if (hit[0], heading) in rejected
                            else "?"
                        )
                        if args.unjudged and mark != "?":
                            continue
                        text = bodies[q.corpus][hit[0]]
                        opening = (
                            " ".join(text[section.body_start : section.own_end].split())[:160]
                            if section
                            else ""
                        )
                        print(f"  {mark} {method:<8} {hit[0]} § {path} {heading!r}: {opening}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

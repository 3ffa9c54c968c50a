"""The sections the deep-section queries' results offer, for judging and for seeing what went wrong.

``python3 tests/bench/eval_sections.py [--label L ...] [--split tune|test|all] [--unjudged]`` reads
the saved runs of ``eval_suite.py`` (one per label, '' for the unlabelled) and prints, for every
deep-section query, each hit of the top 10 whose note is a grade-2 note, with the sections it
offers (best first) marked ``A`` (judged to answer, or a subsection of one), ``N`` (judged not to)
or ``?`` (not judged yet), the heading and the opening of each. A person judges the ``?`` ones by
adding ``{"note", "heading", "why"}`` to the query's ``sections`` (answers) or ``not_sections``
(does not) in ``eval_suite_queries.json``; ``eval_suite.py`` counts only ``sections``.

``--pool DIR`` writes the sections to judge blind, one file per query: every section of each note
graded 1 or 2 in a saved run's top 10 (hybrid or semantic) that has no judged section yet, and the
offered sections of the others not judged yet, in the note's order, with no rank, score or offer
order. ``--apply FILE`` records a judge's verdicts (a JSON list of ``{"id", "note", "heading",
"answers", "why"}``; a later entry for the same section wins) as ``sections``/``not_sections``;
a note that holds an answering section becomes a grade-2 note (``eval_check.py`` asks it).
``--queries FILE``: the deep-section queries of another file of the suite's form, and its runs.
``--offered`` pools only the unjudged sections that grade-2 notes offer (the first three), for
queries whose pooled notes were judged by readers of the whole note: a grade 1 there already says
that no section of the note answers.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import eval_check
import eval_corpus
import eval_models
import eval_pool
import eval_suite

from noted.markdown import outline


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--label", action="append", default=None, help="runs to read (repeat); default ''")
    parser.add_argument("--split", default="all", choices=("test", "tune", "all"))
    parser.add_argument("--unjudged", action="store_true", help="only sections not judged yet")
    parser.add_argument("--model", default=eval_models.DEFAULT)
    parser.add_argument("--pool", type=Path, metavar="DIR", help="write the sections to judge blind")
    parser.add_argument("--apply", type=Path, metavar="FILE", help="record verdicts (JSON)")
    parser.add_argument(
        "--offered",
        action="store_true",
        help="with --pool: only the unjudged sections that grade-2 notes offer (the notes were judged whole)",
    )
    eval_check.add_queries_option(parser)
    args = parser.parse_args()
    if args.apply:
        verdicts = json.loads(args.apply.read_text(encoding="utf-8"))
        print(f"{apply(verdicts, args.queries)} sections recorded")
        return 0
    try:
        profiles = {name: module.ensure_profile()[0] for name, module in eval_suite.CORPORA.items()}
    except eval_corpus.GitDocMissing as exc:
        print(f"skipped: {exc}")
        return 0
    bodies = eval_check.corpora_from_profiles(profiles)
    raw = {q["id"]: q for q in eval_check.load(args.queries)}
    queries = [
        q
        for q in eval_suite.load_queries(bodies, args.queries)
        if q.category == "section" and args.split in ("all", q.split)
    ]
    runs = [
        json.loads(eval_suite.runs_path(args.model, label, args.queries).read_text(encoding="utf-8"))["runs"]
        for label in (args.label or [""])
    ]
    if args.pool:
        args.pool.mkdir(parents=True, exist_ok=True)
        for q in queries:
            text = pool(raw[q.id], bodies[q.corpus], runs, only_offered=args.offered)
            if text:
                (args.pool / f"{q.id}.txt").write_text(text, encoding="utf-8")
        return 0
    for q in queries:
        rejected = {(s["note"], s["heading"]) for s in raw[q.id].get("not_sections", [])}
        print(f"\n{q.id} [{q.split}] {q.text!r}")
        seen: set[tuple[str, str]] = set()
        for run in runs:
            for method in ("hybrid", "semantic"):
                for hit in run[q.id].get(method, [])[:10]:
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


def pool(
    q: dict[str, Any], bodies: dict[str, str], runs: list[dict[str, Any]], *, only_offered: bool = False
) -> str:
    """The text a judge reads for ``q``: the question, then each pooled note's sections to judge
    (``only_offered``: only the sections grade-2 notes offer, see ``--offered``)."""
    judged = {(s["note"], s["heading"]) for s in q.get("sections", []) + q.get("not_sections", [])}
    picked: dict[str, dict[int, Any]] = {}
    for run in runs:
        for method in ("hybrid", "semantic"):
            for hit in run[q["id"]].get(method, [])[:10]:
                note = hit[0]
                if q["judgements"].get(note, {}).get("grade", 0) < (2 if only_offered else 1):
                    continue
                sections = list(outline(bodies[note]).sections)
                if only_offered or any(n == note for n, _ in judged):
                    offered = set(eval_suite.sections_of(hit)[:3])
                    sections = [s for s in sections if s.path in offered and (note, s.heading) not in judged]
                for s in sections:
                    picked.setdefault(note, {})[s.body_start] = s
    out = [f"QUESTION {q['id']}: {q['query']}\n"]
    for note, chosen in sorted(picked.items()):
        names = {s.path: " ".join(s.heading.split()) for s in outline(bodies[note]).sections}
        out.append(f"\n=== NOTE: {note}\n")
        for _, s in sorted(chosen.items()):
            parts = s.path.split(".")
            trail = " › ".join(
                n for n in (names.get(".".join(parts[:i]), "") for i in range(1, len(parts))) if n
            )
            own = " ".join(bodies[note][s.body_start : s.own_end].split())
            out.append(f"\n--- SECTION: {s.heading}" + (f"   (inside: {trail})" if trail else ""))
            out.append(f"\n{own or '(no text of its own; its subsections follow)'}\n")
    return "".join(out) if picked else ""


def apply(verdicts: list[dict[str, Any]], source: Path) -> int:
    """Record verdicts as judged sections in the file of queries ``source``; returns how many were new."""
    doc = json.loads(source.read_text(encoding="utf-8"))
    by_id = {q["id"]: q for q in doc["queries"]}
    last = {(v["id"], v["note"], v["heading"]): v for v in verdicts}
    count = 0
    for (qid, note, heading), v in last.items():
        q = by_id[qid]
        if any(
            s["note"] == note and s["heading"] == heading
            for s in q.get("sections", []) + q.get("not_sections", [])
        ):
            continue
        key = "sections" if v["answers"] else "not_sections"
        q.setdefault(key, []).append(
            {"note": note, "heading": heading, "why": f"judged blind from the pool: {v['why']}"}
        )
        count += 1
        if v["answers"] and q["judgements"][note]["grade"] < 2:  # a note holding an answer answers
            q["judgements"][note] = {
                "grade": 2,
                "why": f"its section {heading!r} answers (judged blind from the pool)",
            }
    eval_pool.write(doc, source)
    return count


if __name__ == "__main__":
    sys.exit(main())

"""Pooled judging: list the top results of every compared arm that nobody has judged yet, then record grades.

``python3 tests/bench/eval_pool.py list [--model M ...] [--depth 10]`` prints, for each query, the
notes in the top ``depth`` of any arm of any of the models' saved runs (``eval_suite.py``) that the
query has no judgement for, each with the start of the section the hit names, so the judge can read
the target and grade it. ``python3 tests/bench/eval_pool.py apply FILE`` records the judge's grades
into ``eval_suite_queries.json`` (``--queries FILE``, with either command: another file of its form): one line per judgement, ``query id<TAB>note title<TAB>grade<TAB>why``
(grade 0 records "looked at, not relevant", so the note is not listed again).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import eval_check
import eval_models
import eval_suite

from noted.markdown import outline


def _excerpt(body: str, section: str | None, width: int = 220) -> str:
    for s in outline(body).sections:
        if s.path == section:
            return " ".join(body[s.start : s.start + width].split())
    return " ".join(body[:width].split())


def unjudged(models: list[str], depth: int, source: Path) -> list[tuple[str, str, str, str]]:
    """``(query id, query text, note title, excerpt)`` for every pooled, unjudged hit of the
    queries of ``source``."""
    queries = {q["id"]: q for q in eval_check.load(source)}
    profiles = {name: module.ensure_profile()[0] for name, module in eval_suite.CORPORA.items()}
    bodies = eval_check.corpora_from_profiles(profiles)
    out: list[tuple[str, str, str, str]] = []
    seen: set[tuple[str, str]] = set()
    folders = [eval_suite.runs_path(model, "", source).parent for model in models]
    for path in sorted(p for folder in folders for p in folder.glob("runs*.json")):
        runs: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        for qid, arms in runs["runs"].items():
            q = queries.get(qid)
            if q is None:
                continue
            for arm, hits in arms.items():
                if arm == "sections":
                    continue  # a ranking of sections: its notes are the semantic arm's
                for title, _, section, *_ in hits[:depth]:
                    if title in q["judgements"] or (qid, title) in seen:
                        continue
                    seen.add((qid, title))
                    out.append((qid, q["query"], title, _excerpt(bodies[q["corpus"]][title], section)))
    return sorted(out)


def apply(path: Path, source: Path) -> int:
    """Record the judgements of ``path`` in the file of queries ``source``; returns how many were
    recorded."""
    doc = json.loads(source.read_text(encoding="utf-8"))
    by_id = {q["id"]: q for q in doc["queries"]}
    count = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        qid, title, grade, why = line.split("\t")
        by_id[qid]["judgements"][title] = {"grade": int(grade), "why": why.strip()}
        count += 1
    write(doc, source)
    return count


def write(doc: dict[str, Any], source: Path) -> None:
    """A file of queries, one query a line (diffs stay readable)."""
    lines = ["{", f'  "about": {json.dumps(doc["about"], ensure_ascii=False)},', '  "queries": [']
    queries = doc["queries"]
    for i, q in enumerate(queries):
        lines.append("    " + json.dumps(q, ensure_ascii=False) + ("," if i < len(queries) - 1 else ""))
    lines += ["  ]", "}"]
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    listing = sub.add_parser("list", help="print the pooled hits nobody has judged")
    listing.add_argument("--model", action="append", choices=sorted(eval_models.MODELS))
    listing.add_argument("--depth", type=int, default=10)
    recording = sub.add_parser("apply", help="record judgements from a tab-separated file")
    recording.add_argument("file", type=Path)
    for command in (listing, recording):
        eval_check.add_queries_option(command)
    args = parser.parse_args()
    if args.command == "apply":
        print(f"{apply(args.file, args.queries)} judgements recorded")
        return 0
    rows = unjudged(args.model or [eval_models.DEFAULT], args.depth, args.queries)
    for qid, text, title, excerpt in rows:
        print(f"{qid}\t{text}\t{title}\t{excerpt}")
    print(f"{len(rows)} pooled hits to judge", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

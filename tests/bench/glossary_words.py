"""The English side of noted's query glossary (``src/noted/search/glossary/``), as it was chosen.

``python3 tests/bench/glossary_words.py words|lemmas|phrases`` reads this machine's manual pages
(sections 1, 5, 7 and 8), leaving out Git's and PostgreSQL's (the evaluation's corpora, so the
glossary is not fitted to them), and prints, one per line:

- ``words``: the 3,600 most widespread English words, one per word stem. A word counts once per
  family of pages (``gcloud-*`` pages are one family, so one program's thousand pages do not
  outweigh the rest) and must be a whole word of the embedding model's vocabulary (which drops
  flags and identifiers); the commonest form of a stem stands for it ("deleted", "ignored").
- ``lemmas``: the base forms those stand for when they are in 20 families or more ("delete",
  "ignore"), so that an infinitive typed in another language meets its English infinitive.
- ``phrases``: the 900 most widespread pairs of adjacent words outside a list of function words
  ("command line", "file system", "regular expression"), of which the translators kept the terms.

The Spanish, German and French sides were then written for them, without the evaluation's queries
in sight; see ``noted.search.translate``. The glossary was written for a first run of ``words``
that met the pages in directory order, so ties among equally widespread words fell otherwise: 107
of the 3,600 (rare ones, at the end) differ from a run now, and ``lemmas`` then also gave "tool".
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

import snowballstemmer  # type: ignore[import-untyped]

from noted.search.languages import ENGLISH_FUNCTION_WORDS

WORDS = 3600
PHRASES = 900
LEMMA_FAMILIES = 20
SECTIONS = ("man1", "man5", "man7", "man8")
LEFT_OUT = (
    "git",
    "git-man",
    "postgresql-client-15",
    "postgresql-15",
    "postgresql-client-common",
    "postgresql-common",
)
TOKENIZER = Path(__file__).resolve().parents[2] / "src/noted/embeddings/data/all-MiniLM-L6-v2/tokenizer.json"
FUNCTION_WORDS = (ENGLISH_FUNCTION_WORDS - {"might", "shall", "need"}) | set(
    "used using see e g one two default option options value values set specified".split()
)
"""Words a phrase may not hold: noted's English function words as they were when the phrases were
chosen, and the commonest words of manual pages."""

Families = dict[str, set[str]]


def scan() -> tuple[Families, dict[tuple[str, str], set[str]]]:
    """The page families each word and each pair of adjacent words appears in."""
    listed = subprocess.run(["dpkg", "-L", *LEFT_OUT], capture_output=True, text=True).stdout
    excluded = {line.rsplit("/", 1)[-1] for line in listed.splitlines() if "/man/" in line}
    words: Families = collections.defaultdict(set)
    pairs: dict[tuple[str, str], set[str]] = collections.defaultdict(set)
    for section in SECTIONS:
        for page in sorted(Path("/usr/share/man", section).iterdir()):
            if page.name in excluded or re.match(r"(git|pg_|postgres|psql)", page.name):
                continue
            try:
                opener = gzip.open if page.name.endswith(".gz") else open
                with opener(page, "rt", errors="replace") as f:
                    raw = f.read()
            except OSError:
                continue
            if raw.startswith(".so ") and len(raw) < 200:
                continue  # a link to another page
            family = re.split(r"[-_.]", page.name)[0]
            text = "\n".join(line for line in raw.splitlines() if not line.startswith((".", "'")))
            text = re.sub(r"\\f[BIRP]|\\f\(..|\\\(..|\\[-&e|^ ]|\\s[-+]?\d", " ", text)
            previous = None
            for token in re.findall(r"[A-Za-z]+|[^A-Za-z\s]", text):
                if not token.isalpha():
                    previous = None
                    continue
                low = token.lower()
                if len(low) >= 3:
                    words[low].add(family)
                if previous and len(previous) > 2 and len(low) > 2 and not {previous, low} & FUNCTION_WORDS:
                    pairs[(previous, low)].add(family)
                previous = low
    return words, pairs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("words", "lemmas", "phrases"), nargs="?", default="words")
    args = parser.parse_args()
    families, pairs = scan()
    vocab = {k for k in json.loads(TOKENIZER.read_text())["model"]["vocab"] if k.isalpha() and k.isascii()}
    stem = snowballstemmer.stemmer("english").stemWord
    by_stem: dict[str, tuple[int, str]] = {}
    for word, fams in families.items():
        if word in vocab:
            key = stem(word)
            if key not in by_stem or len(fams) > by_stem[key][0]:
                by_stem[key] = (len(fams), word)
    chosen = [w for _, w in sorted(by_stem.values(), key=lambda e: -e[0])[:WORDS]]
    if args.what == "words":
        out = chosen
    elif args.what == "lemmas":
        have, out = set(chosen), []
        for word in chosen:
            for base in (word[:-1], word[:-2], word[:-3]):
                if len(base) >= 3 and base not in have and stem(base) == stem(word):
                    if len(families.get(base, ())) >= LEMMA_FAMILIES:
                        out.append(base)
                        have.add(base)
                        break
    else:
        ranked = sorted(
            ((len(f), p) for p, f in pairs.items() if p[0] in vocab and p[1] in vocab), reverse=True
        )
        out = [" ".join(p) for _, p in ranked[:PHRASES]]
    sys.stdout.write("".join(f"{w}\n" for w in out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

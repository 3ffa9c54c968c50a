"""How right ``noted.search.cognates`` is, measured on the glossary instead of on the evaluation.

``python3 tests/bench/cognate_check.py`` takes every one-word translation of the three glossaries
(``src/noted/search/glossary``) as a foreign word whose English is known, the English side's
words as the vocabulary the notes would hold, and asks the rules for the word's English: a
candidate found in the vocabulary is an answer (the first such, as the notes would choose among
several by how many hold each, which this vocabulary cannot say), right when it is one of the
English words the glossary gives that word for ("crear": *create*, *make*), or has the stem of one. Prints, per language: words tried, answered, right, and the wrong
answers' first examples. The rules were written from the languages' grammar, before this check
and without the evaluation's queries; the check says whether they may be trusted past the
glossary, where noted uses them. ``--min-word N`` tries shorter words too (noted's
``cognates.MIN_WORD`` by default).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import snowballstemmer  # type: ignore[import-untyped]

from noted.search import cognates
from noted.search.snippet import fold

GLOSSARY = Path(__file__).resolve().parents[2] / "src/noted/search/glossary"
SHOWN = 15


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--min-word", type=int, default=cognates.MIN_WORD, help="shortest word tried")
    args = parser.parse_args()
    stem = snowballstemmer.stemmer("english").stemWord
    for code in ("es", "fr", "de"):
        pairs: list[tuple[str, str]] = []
        for line in (GLOSSARY / f"{code}.tsv").read_text(encoding="utf-8").splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            english, _, translations = line.partition("\t")
            pairs += [(english.strip(), fold(t.strip())) for t in translations.split("|") if t.strip()]
        vocabulary = {e for e, _ in pairs if " " not in e}
        meant: dict[str, set[str]] = {}
        for english, word in pairs:
            meant.setdefault(word, set()).add(stem(english))
        tried = answered = right = 0
        wrong: list[str] = []
        for word in sorted(meant):
            english = "/".join(sorted(meant[word]))
            if " " in word or word in vocabulary or not word.isalpha():
                continue
            tried += 1
            found = next((c for c in cognates.candidates(code, word, args.min_word) if c in vocabulary), None)
            if found is None:
                continue
            answered += 1
            if stem(found) in meant[word]:
                right += 1
            else:
                wrong.append(f"{word} -> {found} (glossary, by stem: {english})")
        share = right / answered if answered else float("nan")
        print(f"{code}: {tried} words tried, {answered} answered, {right} right ({share:.1%})")
        for example in wrong[:SHOWN]:
            print("   ", example)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""English text that the glossary takes for Spanish, German or French, and foreign queries it misses.

``python3 tests/bench/translate_check.py`` reads the evaluation's two profiles (``eval_suite.py``
makes them): every heading, title and the first eight sentences of every note, and every judged
query, run through ``noted.search.translate.to_english`` with that corpus's notes as
``KeywordSearch`` sees them. It prints how many English texts were taken for another language
(with the first 20), which foreign queries were not, and which English queries were.
``--few-notes`` asks instead notes that hold every word once, as a new profile's few notes do,
where no word is common enough to be the notes' own (the worst case for English text).
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Sequence
from pathlib import Path

import eval_corpus
import eval_pg_corpus

from noted.markdown import outline
from noted.search.keyword import KeywordSearch
from noted.search.translate import to_english
from noted.store.sqlite import SqliteStore

QUERIES = Path(__file__).resolve().parent / "eval_suite_queries.json"


class FewNotes:
    """Notes that hold every word once and say nothing of words together."""

    def note_counts(self, prefixes: Sequence[str]) -> dict[str, int]:
        return dict.fromkeys(prefixes, 1)

    def word_counts(self, words: Sequence[str]) -> dict[str, int]:
        return dict.fromkeys(words, 1)

    def notes_holding(self, groups: Sequence[Sequence[str]]) -> dict[tuple[str, ...], int]:
        return {}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--few-notes", action="store_true", help="as if every word were in one note")
    args = parser.parse_args()
    searches: dict[str, KeywordSearch] = {}
    texts, taken = 0, []
    for corpus, module in (("git", eval_corpus), ("pg", eval_pg_corpus)):
        profile = module.ensure_profile()[0]
        store = SqliteStore.open(profile / "notes.db", profile / "resources")
        keyword = searches[corpus] = KeywordSearch(store)
        for meta in store.list_notes():
            body = store.get_note(meta.id).body
            sentences = [s for s in re.split(r"(?<=[.!?])\s+", body[:3000])[:8] if 10 < len(s) < 200]
            headings = [s.heading for s in outline(body).sections if s.heading]
            for text in [meta.title, *headings, *sentences]:
                texts += 1
                found = to_english(text, FewNotes() if args.few_notes else keyword)
                if found is not None:
                    taken.append(f"{text[:70]!r} as {found.language}: {found.text[:50]!r}")
    print(f"English texts: {texts}, taken for another language: {len(taken)}")
    print("".join(f"  {line}\n" for line in taken[:20]), end="")
    queries = json.loads(QUERIES.read_text(encoding="utf-8"))["queries"]
    missed = [
        q["query"]
        for q in queries
        if q["category"] == "foreign"
        and not to_english(q["query"], FewNotes() if args.few_notes else searches[q["corpus"]])
    ]
    english = [
        q["query"]
        for q in queries
        if q["category"] != "foreign"
        and to_english(q["query"], FewNotes() if args.few_notes else searches[q["corpus"]])
    ]
    print(f"foreign queries not taken: {missed}")
    print(f"English queries taken: {english}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""English text that the glossary takes for Spanish, German or French, and foreign queries it misses.

``python3 tests/bench/translate_check.py`` reads the evaluation's two profiles (``eval_suite.py``
makes them): every heading, title and the first eight sentences of every note, and every judged
query, run through ``noted.search.translate.to_english`` with that corpus's notes as
``KeywordSearch`` sees them. It prints how many English texts were taken for another language
(with the first 20), which foreign queries were not, and which English queries were.
``--few-notes`` asks instead notes that hold every word once, as a new profile's few notes do,
where no word is common enough to be the notes' own (the worst case for English text).

``--loanwords`` runs instead the 2,293 English queries and headings with foreign loanwords, names
and phrases of ``loanwords.py`` (the issue's examples among them): how many each kind of notes
takes for another language, then every text searched (hybrid and by meaning, top 10, the real
model) over a profile holding one note per loanword, with ``search.translate`` auto and off. A
result list is worse when the text's own note ranks lower (or leaves the top 10) with the
translation added; the count of those must be 0.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Sequence
from pathlib import Path

import eval_corpus
import eval_models
import eval_pg_corpus
import loanwords

from noted.indexer.engine import Indexer
from noted.markdown import outline
from noted.models import NoteDraft
from noted.search.finder import Finder
from noted.search.keyword import KeywordSearch
from noted.search.results import Mode
from noted.search.semantic import SemanticSearch
from noted.search.translate import to_english
from noted.settings import Settings
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
    parser.add_argument(
        "--loanwords", action="store_true", help="English texts with loanwords (loanwords.py)"
    )
    args = parser.parse_args()
    if args.loanwords:
        return check_loanwords()
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


def loanword_profile() -> SqliteStore:
    """A profile holding one note per loanword (``loanwords.note_for``), indexed by the default model."""
    path = eval_corpus.OUT / "loanword_profile"
    fresh = not (path / "notes.db").is_file()
    store = SqliteStore.open(path / "notes.db", path / "resources")
    if fresh:
        folder = store.create_folder("Notes", actor="import").id
        for item in loanwords.items():
            title, body = loanwords.note_for(item)
            store.create_note(NoteDraft(title, body, parent_id=folder), actor="import")
    return store


def check_loanwords() -> int:
    """Misfires over the loanword texts, and whether any result list got worse with translation."""
    texts = loanwords.texts()
    store = loanword_profile()
    embedder = eval_models.MODELS[eval_models.DEFAULT](1)
    indexer = Indexer(store, store.db, embedder)
    indexer.prepare()
    indexer.run_until_idle()
    keyword = KeywordSearch(store)
    git = eval_corpus.ensure_profile()[0]
    for name, notes in (
        ("the loanword notes", keyword),
        ("Git's manual", KeywordSearch(SqliteStore.open(git / "notes.db", git / "resources"))),
        ("few notes", FewNotes()),
    ):
        taken = [(t, found) for t, _ in texts if (found := to_english(t, notes)) is not None]
        print(f"{len(texts)} texts; over {name}, {len(taken)} taken for another language")
        print("".join(f"  {t!r} as {f.language}: {f.text!r}\n" for t, f in taken[:8]), end="")
    ids = {n.title: n.id for n in store.list_notes()}
    semantic = SemanticSearch(store, store.db, embedder)
    finder = Finder(store, keyword, lambda: semantic, Settings(eval_corpus.OUT / "none.toml", environ={}))
    # Only a text taken for another language can be searched differently with translation on:
    # the others are searched the same way by construction (noted.search.reading).
    translated = [(t, i) for t, i in texts if to_english(t, keyword) is not None]
    for mode in (Mode.HYBRID, Mode.SEMANTIC):
        differ, worse = 0, []
        for text, item in translated:
            runs = [
                [h.note_id for h in finder.search(text, mode=mode, limit=10, translate=on).hits]
                for on in (True, False)
            ]
            if runs[0] != runs[1]:
                differ += 1
                rank = [r.index(ids[item.text]) if ids[item.text] in r else 10 for r in runs]
                if rank[0] > rank[1]:
                    worse.append(f"{text!r}: its note {rank[1] + 1} -> {rank[0] + 1}")
        print(f"{mode}: of {len(texts)} result lists, {differ} differ with translation, {len(worse)} worse")
        print("".join(f"  {line}\n" for line in worse[:20]), end="")
    embedder.close()
    store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

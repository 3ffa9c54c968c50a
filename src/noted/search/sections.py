"""Which sections of a note answer a query: its chunks' closeness, and where the query's words are.

A note's sections are ranked by the cosine of their closest chunk to the query's vectors, plus
``WORDS_WEIGHT`` times the share of the query's words the section holds (in its heading or its
text), each word weighed by how rare it is among the note's sections (an inverse document
frequency within the note). The first is the section the note opens at.

The words' share is there because the model alone often prefers the section next to the answer:
on the evaluation's deep-section questions (``tests/bench``), a note's answering section ranked
first by closeness for 10 of 17 answering notes of the tune half and 13 of 14 held out; with the
words' share at 0.3 (chosen on the tune half among 0.05 to 0.5), 12 of 17 and 13 of 14. Headings
and titles given to the model with each chunk, a section's mean closeness, and a penalty for
sections of many chunks or short chunks did no better (``README.md`` there); nor, with the
outline vector in hybrid search (17 answering notes of the tune half, 13 first at 0.3), did
words counted in each chunk rather than its whole section (12-13 for weights 0.1-0.5), the share
divided by the section's length in chunks (10-13), or words weighed by their rarity in all the
notes as well (12-13). Nor, over both halves (22 of 27 questions' best-ranked answering note opening
at an answering section as built), did Snowball stems in place of the five-letter prefixes (21-22),
a share of the section's second-closest chunk (21-22), or the cosine of each section's heading path
embedded at query time (20-22). With the pooled sections judged blind (21 of 27 as built, every
miss an answering section second or third), no better: the share cut for long sections (BM25's
length rule, b 0.5-1: 10-18), words counted in the closest chunk (19-21), the top three sections
re-ranked by the title, heading path and closest chunk embedded at query time (17-21), or the
share counted in a section's densest window of 150-600 characters (18-21). The misses left are
the model's: it prefers a sibling section. (A lower outline weight gains two by ranking notes
differently, at a cost to paraphrases: ``hybrid.SEMANTIC_WEIGHT``.)
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from noted.errors import QueryError
from noted.search.anywhere import CJK, found_anywhere, is_symbol
from noted.search.languages import ENGLISH_FUNCTION_WORDS
from noted.search.query import parse_query
from noted.search.snippet import body_pattern, fold

WORDS_WEIGHT = 0.3
PREFIX = 5
"""Words match by their first five letters ("restore" and "restoring"), shorter ones whole."""
_WORD = re.compile(r"[^\W\d_]+")


@dataclass(frozen=True, slots=True)
class SectionMatch:
    """A section of a note, its score, and its closest chunk's span ``start:end`` in the body."""

    path: str
    heading: str
    score: float
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class ChunkScore:
    """A chunk of the note: its section, its span, and its cosine to the query."""

    path: str
    heading: str
    start: int
    end: int
    cosine: float


def query_words(texts: Sequence[str]) -> frozenset[str]:
    """The words of the query's texts that count (no function words, three letters or more; two
    of Chinese, Japanese or Korean, kept whole and found anywhere, as the keyword search does),
    and each symbol (``🎉``), found anywhere too."""
    words = (
        _key(w)
        for text in texts
        for w in _WORD.findall(fold(text))
        if len(w) > (1 if CJK.search(w) else 2) and w not in ENGLISH_FUNCTION_WORDS
    )
    return frozenset(words).union(c for text in texts for c in text if is_symbol(c))


def marks(texts: Sequence[str]) -> re.Pattern[str] | None:
    """Where a note holds the words a search found it by, for the reader to mark: the words and
    phrases of ``texts`` (the query, and the English or the mended words searched beside it) as
    Joplin's grammar reads them, without filters, excluded words and single words that do not
    count for ``query_words`` (a symbol does: ``🎉``). None when no word is left."""
    terms = []
    for text in texts:
        try:
            parsed = parse_query(text)
        except QueryError:
            continue
        terms += [t for t in parsed.text_terms if t.phrase or t.infix or query_words([t.text])]
    return body_pattern(terms)


def rank_sections(chunks: Sequence[ChunkScore], body: str, words: frozenset[str]) -> list[SectionMatch]:
    """The note's sections, best first (see the module's docstring)."""
    best: dict[str, ChunkScore] = {}
    for c in chunks:
        if c.path not in best or c.cosine > best[c.path].cosine:
            best[c.path] = c
    share = _shares(_held(chunks, body, words), words)
    scored = [
        SectionMatch(c.path, c.heading, round(c.cosine + WORDS_WEIGHT * share[path], 4), c.start, c.end)
        for path, c in best.items()
    ]
    return sorted(scored, key=lambda s: -s.score)


def _held(chunks: Sequence[ChunkScore], body: str, words: frozenset[str]) -> dict[str, set[str]]:
    """Per section, which of ``words`` (keys) it holds in its heading or its chunks' text.

    Each key is searched as a literal over the note folded once (fold keeps offsets), then kept
    where it starts a word (and, shorter than ``PREFIX``, ends one): a literal search is far
    faster than splitting every chunk into words (30 ms a search over PostgreSQL's long pages)."""
    held: dict[str, set[str]] = {c.path: set() for c in chunks}
    if not words:
        return held
    for c in chunks:
        heading = fold(c.heading)
        held[c.path].update(k for k in words if any(True for _ in _at_word(heading, k)))
    spans = sorted(chunks, key=lambda c: c.start)
    starts = [c.start for c in spans]
    folded = fold(body)
    for key in words:
        for at in _at_word(folded, key):
            # Windows of one section overlap a little: the chunk that starts last before ``at``,
            # and the one before it, may hold it.
            j = bisect.bisect_right(starts, at) - 1
            for c in spans[max(0, j - 1) : j + 1]:
                if c.start <= at < c.end:
                    held[c.path].add(key)
    return held


def _at_word(text: str, key: str) -> Iterator[int]:
    """Where ``key`` starts a word of ``text`` (and ends it, when shorter than ``PREFIX``); one of
    Chinese, Japanese or Korean, anywhere (their words are written without spaces), and a symbol."""
    anywhere = found_anywhere(key)
    at = text.find(key)
    while at >= 0:
        end = at + len(key)
        if (
            anywhere
            or (at == 0 or not text[at - 1].isalpha())
            and (len(key) >= PREFIX or end == len(text) or not text[end].isalpha())
        ):
            yield at
        at = text.find(key, at + 1)


def _shares(held: dict[str, set[str]], words: frozenset[str]) -> dict[str, float]:
    """Per section, the inverse-frequency-weighted share of ``words`` it holds."""
    if not words:
        return dict.fromkeys(held, 0.0)
    n = len(held)
    idf = {w: math.log(1 + n / (1 + sum(w in h for h in held.values()))) for w in words}
    total = sum(idf.values()) or 1.0
    return {path: sum(idf[w] for w in words if w in h) / total for path, h in held.items()}


def _key(word: str) -> str:
    return word if CJK.search(word) else word[:PREFIX]

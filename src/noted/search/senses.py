"""Which English sense a word of a query in another language takes, by what the notes say.

A glossary word often has several English senses ("supprimer": *suppress*, *drop*, *remove*,
*delete*). The notes decide (``noted.search.translate`` asks them through ``NoteWords``): the sense
that goes best with the query's other words, the one sharing the most notes with them
(``by_context``: "supprimer des lignes" is *delete rows*, "supprimer un index" *drop index*),
else the one the notes hold most, else the glossary's first.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

import snowballstemmer  # type: ignore[import-untyped]

from noted.search.snippet import fold

PLACE_SLACK = 0
"""Senses of a word kept beside its best when the notes can only say how common each is: those
where it is listed at most this much later. On the evaluation's tune half, foreign nDCG@10 0.607
with 0, 0.596 with 1, 0.539 with 2."""
CONTEXT_SLACK = 0
"""Senses of a word weighed against the query's other words (``by_context``): those where it is
listed at most this much later than its best. On the tune half, foreign nDCG@10 0.607 with 0
(as without weighing), 0.602 with 1, 0.551 with 2 or 3."""
MAX_SENSES = 4
"""The most senses of one word weighed against the others."""
STEMS_KEPT = 1 << 16
"""English words whose stems are remembered."""

Senses = tuple[tuple[str, int], ...]
"""A word or phrase's English senses, best first, each with how much later the glossary lists the
word for it than for its best sense (0 for the senses it is listed soonest for)."""


class NoteWords(Protocol):
    """What the notes say about words (``KeywordSearch`` is one)."""

    def note_counts(self, prefixes: Sequence[str]) -> Mapping[str, int]:
        """For each prefix, how many notes hold the commonest word beginning with it."""
        ...

    def word_counts(self, words: Sequence[str]) -> Mapping[str, int]:
        """For each word, how many notes hold it as it is."""
        ...

    def notes_holding(self, groups: Sequence[Sequence[str]]) -> Mapping[tuple[str, ...], int]:
        """For each group of prefixes, how many notes hold a word of each (empty: unknown)."""
        ...


def choose(slots: list[Senses], notes: NoteWords | None) -> list[str]:
    """The English sense of each word or phrase: the one that goes best with the query's other
    words in the notes (``by_context``), else the one the notes hold most among those listed
    soonest, else the glossary's first."""
    firsts = [[e for e, place in senses if place <= PLACE_SLACK] for senses in slots]
    if notes is None:
        return [senses[0] for senses in firsts]
    chosen = by_context(slots, notes)
    by_stem = notes.note_counts(
        sorted({english_stem(fold(w)) for s in firsts if len(s) > 1 for e in s for w in e.split()})
    )

    def weight(sense: str) -> int:
        return min(by_stem.get(english_stem(fold(w)), 0) for w in sense.split())

    return [best or max(senses, key=weight) for best, senses in zip(chosen, firsts, strict=True)]


def by_context(slots: list[Senses], notes: NoteWords) -> list[str | None]:
    """For each word of several senses, the sense the notes hold most often beside the query's
    other words ("supprimer des lignes": *delete*, which shares more notes with *rows* than *drop*
    or *remove* do, by the Dice coefficient of the notes holding each), summed over the other words,
    each by its sense that agrees best; None where no sense shares a note with another word, or
    for a word of one sense."""
    candidates = [tuple(e for e, place in senses if place <= CONTEXT_SLACK)[:MAX_SENSES] for senses in slots]
    out: list[str | None] = [None] * len(slots)
    if len(slots) < 2 or all(len(c) < 2 for c in candidates):
        return out

    def stems(sense: str) -> frozenset[str]:
        return frozenset(english_stem(fold(w)) for w in sense.split())

    wanted: set[frozenset[str]] = set()
    for i, senses in enumerate(candidates):
        if len(senses) > 1:
            for s in senses:
                wanted.add(stems(s))
                for other in candidates[:i] + candidates[i + 1 :]:
                    wanted.update({stems(t) for t in other} | {stems(s) | stems(t) for t in other})
    counts = notes.notes_holding([tuple(sorted(g)) for g in sorted(wanted, key=sorted)])

    def held(group: frozenset[str]) -> int:
        return counts.get(tuple(sorted(group)), 0)

    def dice(s: str, t: str) -> float:
        apart = held(stems(s)) + held(stems(t))
        return 2 * held(stems(s) | stems(t)) / apart if apart else 0.0

    for i, senses in enumerate(candidates):
        if len(senses) > 1:
            others = candidates[:i] + candidates[i + 1 :]
            scores = [sum(max(dice(s, t) for t in other) for other in others) for s in senses]
            if max(scores) > 0:
                out[i] = senses[scores.index(max(scores))]
    return out


english_stem: Callable[[str], str] = functools.lru_cache(maxsize=STEMS_KEPT)(
    snowballstemmer.stemmer("english").stemWord
)
"""The Snowball stem of an English word (folded), remembered."""

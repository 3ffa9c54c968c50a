"""Telling a rename from a deletion plus an addition, when the content changed too.

A note whose file went and a new file in the same batch (one watcher batch, or one start-up scan)
are the same note when their texts are alike: ``git mv`` plus an edit, an editor's save-as-rename,
an edit made while noted was closed. A folder that went and a new folder are the same notebook
when they hold mostly the same files (by path inside the folder). An exact content hash needs none
of this (``Follower._moved``); this is the fallback.

The rule, for texts and for folders alike: a pair is taken when its similarity is at least
``SIMILAR`` and it is *unambiguous*: every other pair sharing one of its two sides scores less by at
least ``MARGIN``. Two near-copies of a gone note are therefore both new notes, rather than one of
them taking the history at random. Text similarity is ``difflib``'s ratio over words (git's rename
detection uses 50% by default too); folder similarity is the share of file paths both hold.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping

SIMILAR = 0.5
MARGIN = 0.1
MAX_PAIRS = 4000
"""Above this many (new, gone) pairs, only pairs sharing a line of text are compared."""
_COMMON_LINE = 20
"""A line found in more texts than this (a template's heading) does not make a pair by itself."""
_WORD = re.compile(r"\S+")


def pair_texts(new: Mapping[str, str], gone: Mapping[str, str]) -> dict[str, str]:
    """Each new key → the gone key whose text it unambiguously is, edited."""
    words = {key: _WORD.findall(text) for key, text in (*new.items(), *gone.items())}
    scores: dict[tuple[str, str], float] = {}
    for n, g in _candidates(new, gone):
        a, b = words[n], words[g]
        if not a or not b:
            continue
        matcher = difflib.SequenceMatcher(None, b, a)  # autojunk: common words do not make it quadratic
        if matcher.real_quick_ratio() >= SIMILAR and matcher.quick_ratio() >= SIMILAR:
            ratio = matcher.ratio()
            if ratio >= SIMILAR:
                scores[n, g] = ratio
    return unambiguous(scores)


def alike(a: str, b: str) -> bool:
    """The two texts are at least ``SIMILAR`` alike, word for word (as ``pair_texts`` compares)."""
    words_a, words_b = _WORD.findall(a), _WORD.findall(b)
    return bool(words_a and words_b) and difflib.SequenceMatcher(None, words_b, words_a).ratio() >= SIMILAR


def pair_sets(new: Mapping[str, set[str]], gone: Mapping[str, set[str]]) -> dict[str, str]:
    """Each new key → the gone key whose set it unambiguously is (most members shared)."""
    scores: dict[tuple[str, str], float] = {}
    for n, a in new.items():
        for g, b in gone.items():
            if (score := share(a, b)) >= SIMILAR:
                scores[n, g] = score
    return unambiguous(scores)


def share(a: set[str], b: set[str]) -> float:
    """The share of members both sets hold (0 when one is empty), as ``pair_sets`` scores them."""
    return len(a & b) / max(len(a), len(b)) if a and b else 0.0


def unambiguous(scores: Mapping[tuple[str, str], float]) -> dict[str, str]:
    """The pairs that beat every other pair sharing a side by ``MARGIN``."""
    best: dict[str, list[float]] = {}
    for (n, g), score in scores.items():
        best.setdefault("n" + n, []).append(score)
        best.setdefault("g" + g, []).append(score)
    out: dict[str, str] = {}
    for (n, g), score in scores.items():
        rivals = [*best["n" + n], *best["g" + g]]
        rivals.remove(score)
        rivals.remove(score)
        if all(other <= score - MARGIN for other in rivals):
            out[n] = g
    return out


def _candidates(new: Mapping[str, str], gone: Mapping[str, str]) -> set[tuple[str, str]]:
    """Every pair, or (too many) the pairs sharing an uncommon non-blank line."""
    if len(new) * len(gone) <= MAX_PAIRS:
        return {(n, g) for n in new for g in gone}
    holders: dict[str, list[str]] = {}
    for g, text in gone.items():
        for line in {line.strip() for line in text.splitlines()}:
            if len(line) > 3:
                holders.setdefault(line, []).append(g)
    pairs: set[tuple[str, str]] = set()
    for n, text in new.items():
        for line in {line.strip() for line in text.splitlines()}:
            found = holders.get(line, ())
            if len(found) <= _COMMON_LINE:
                pairs.update((n, g) for g in found)
    return pairs

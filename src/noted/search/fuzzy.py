"""Spelling correction of search words from the index's own vocabulary.

A word of the query that no note contains ("rebse", "autovacum") is looked up among the words
the FTS index holds: the closest one by edit distance (insertions, deletions, substitutions and
swaps of two neighbours each cost 1) within ``max_distance`` of it (one edit, two for long words), found in at least
``MIN_NOTES`` notes, ties going to the word found in more notes. Candidates share the word's first
two letters (typing errors rarely hit those: "rebse", "cofnig", "explian" all keep them) and are
at most two letters longer or shorter, which keeps the scan to a small slice of the vocabulary:
the index's words are sorted, so the slice is one range of FTS5's vocabulary table.

Hybrid search adds the corrections to the words it ranks by; keyword search offers them as a
"did you mean" (it never changes what was asked).
"""

from __future__ import annotations

from collections.abc import Iterable

import apsw

from noted.search.snippet import fold

VOCAB = "temp.noted_fts_vocab"
"""The FTS5 vocabulary table over ``notes_fts`` (one row per indexed word), made on first use."""
MIN_LENGTH = 4
"""Shorter words are left alone: at one edit from a three-letter word lies half the vocabulary."""
MIN_NOTES = 2
"""A correction must be a word of at least this many notes (a typo in one note is no correction)."""
MAX_CANDIDATES = 5000
"""The most vocabulary words compared with one query word (the most frequent of its slice)."""


def max_distance(word: str) -> int:
    """The edits allowed for ``word``: one up to eight letters, two beyond.

    Chosen on the tune half of ``tests/bench/eval_suite.py``: two edits from six letters on turned
    foreign words into unrelated English ones ("nombre" into "notbare", "langsame" into
    "language"; foreign queries 0.229 against 0.282 with this rule) and fixed no misspelling more.
    """
    return 1 if len(word) <= 8 else 2


def distance(a: str, b: str, limit: int) -> int:
    """Optimal-string-alignment edit distance of ``a`` and ``b``, or ``limit + 1`` once it exceeds ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, start=1):
            cost = 0 if ca == cb else 1
            best = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                best = min(best, previous2[j - 2] + 1)
            current[j] = best
        if min(current) > limit:
            return limit + 1
        previous2, previous = previous, current
    return previous[-1]


def ensure_vocab(conn: apsw.Connection) -> None:
    """Make ``VOCAB`` on this connection if it is not there yet."""
    conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {VOCAB} USING fts5vocab(main, notes_fts, row)")


def corrections(conn: apsw.Connection, words: Iterable[str]) -> dict[str, str]:
    """The correction of each of ``words`` that no note contains, even as a prefix, and that has one.

    Keys and values are folded (lower case, no diacritics).
    """
    ensure_vocab(conn)
    out: dict[str, str] = {}
    for word in words:
        folded = fold(word).lower()
        if len(folded) < MIN_LENGTH or not folded.isalpha() or folded in out or _known(conn, folded):
            continue
        found = _closest(conn, folded)
        if found is not None:
            out[folded] = found
    return out


def note_counts(conn: apsw.Connection, prefixes: Iterable[str]) -> dict[str, int]:
    """For each of ``prefixes``, how many notes hold the commonest word that begins with it
    ("delet": the notes holding "delete", or "deleted" if more do); 0 when none does."""
    ensure_vocab(conn)
    out: dict[str, int] = {}
    for prefix in prefixes:
        low = fold(prefix)
        row = conn.execute(
            f"SELECT max(doc) FROM {VOCAB} WHERE term >= ? AND term < ?", (low, low + "\uffff")
        ).fetchone()
        out[prefix] = int(row[0] or 0)
    return out


def word_counts(conn: apsw.Connection, words: Iterable[str]) -> dict[str, int]:
    """For each of ``words``, how many notes hold it as it is (folded); 0 when none does."""
    ensure_vocab(conn)
    out: dict[str, int] = {}
    for word in words:
        row = conn.execute(f"SELECT doc FROM {VOCAB} WHERE term = ?", (fold(word),)).fetchone()
        out[word] = int(row[0]) if row is not None else 0
    return out


def _known(conn: apsw.Connection, word: str) -> bool:
    """Whether some note holds ``word`` or a word it begins (keyword search matches prefixes)."""
    row = conn.execute(f"SELECT 1 FROM {VOCAB} WHERE term >= ? AND term < ? LIMIT 1", (word, word + "\uffff"))
    return row.fetchone() is not None


def _closest(conn: apsw.Connection, word: str) -> str | None:
    limit = max_distance(word)
    head = word[:2]
    upper = head[:-1] + chr(ord(head[-1]) + 1)
    rows = conn.execute(
        f"SELECT term, doc FROM {VOCAB} WHERE term >= ? AND term < ? AND doc >= ? "
        f"AND length(term) BETWEEN ? AND ? ORDER BY doc DESC LIMIT {MAX_CANDIDATES}",
        (head, upper, MIN_NOTES, len(word) - limit, len(word) + limit),
    ).fetchall()
    best: tuple[int, int, str] | None = None
    letters = set(word)
    for term, notes in rows:
        # An edit changes at most two letters of the set of letters: a cheap test that rules
        # out most of the slice before the quadratic distance.
        if len(letters.symmetric_difference(str(term))) > 2 * limit:
            continue
        d = distance(word, str(term), limit)
        if d <= limit and (best is None or (d, -int(notes)) < best[:2]):
            best = (d, -int(notes), str(term))
    return None if best is None else best[2]

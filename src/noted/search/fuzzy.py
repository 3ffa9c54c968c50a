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

In a scope (``Among``: an MCP client's notebooks), every count is of the notes in it alone, so
no word held only outside it is ever offered as a correction, nor steers how a query is read.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable
from dataclasses import dataclass

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


@dataclass(frozen=True, slots=True)
class Among:
    """The notes a vocabulary is read from: a statement listing their ``notes_fts`` rowids."""

    sql: str
    params: tuple[object, ...]

    @classmethod
    def notes(cls, note_ids: Collection[str]) -> Among:
        return cls(
            "SELECT rowid FROM notes WHERE id IN (SELECT value FROM json_each(?))", (_listed(note_ids),)
        )

    @classmethod
    def folders(cls, folder_ids: Collection[str]) -> Among:
        """The notes directly in these notebooks (the caller expands sub-notebooks)."""
        sql = "SELECT rowid FROM notes WHERE parent_id IN (SELECT value FROM json_each(?))"
        return cls(sql, (_listed(folder_ids),))

    def count(self, conn: apsw.Connection, match: str) -> int:
        """How many of these notes ``match`` (an FTS5 expression) is found in."""
        sql = f"SELECT COUNT(*) FROM notes_fts WHERE notes_fts MATCH ? AND +rowid IN ({self.sql})"
        return int(conn.execute(sql, (match, *self.params)).fetchone()[0])

    def size(self, conn: apsw.Connection) -> int:
        return int(conn.execute(f"SELECT COUNT(*) FROM ({self.sql})", self.params).fetchone()[0])


def _listed(ids: Collection[str]) -> str:
    return json.dumps(sorted(ids))


def phrase(word: str, *, prefix: bool = False) -> str:
    """``word`` as an FTS5 string (the token itself, or with ``prefix`` every token it begins)."""
    return '"' + word.replace('"', '""') + '"' + ("*" if prefix else "")


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


def corrections(conn: apsw.Connection, words: Iterable[str], among: Among | None = None) -> dict[str, str]:
    """The correction of each of ``words`` that no note contains, even as a prefix, and that has one.

    Keys and values are folded (lower case, no diacritics).
    """
    ensure_vocab(conn)
    out: dict[str, str] = {}
    for word in words:
        folded = fold(word).lower()
        if len(folded) < MIN_LENGTH or not folded.isalpha() or folded in out or _known(conn, folded, among):
            continue
        found = _closest(conn, folded, among)
        if found is not None:
            out[folded] = found
    return out


def note_counts(conn: apsw.Connection, prefixes: Iterable[str], among: Among | None = None) -> dict[str, int]:
    """For each of ``prefixes``, how many notes hold the commonest word that begins with it
    ("delet": the notes holding "delete", or "deleted" if more do); 0 when none does. ``among``
    a scope, the notes of it holding any word that begins with it (the vocabulary's counts are
    of every note)."""
    ensure_vocab(conn)
    out: dict[str, int] = {}
    for prefix in prefixes:
        low = fold(prefix)
        if among is not None:
            out[prefix] = among.count(conn, phrase(low, prefix=True)) if low else 0
            continue
        row = conn.execute(
            f"SELECT max(doc) FROM {VOCAB} WHERE term >= ? AND term < ?", (low, low + "\uffff")
        ).fetchone()
        out[prefix] = int(row[0] or 0)
    return out


def word_counts(conn: apsw.Connection, words: Iterable[str], among: Among | None = None) -> dict[str, int]:
    """For each of ``words``, how many notes hold it as it is (folded); 0 when none does."""
    ensure_vocab(conn)
    out: dict[str, int] = {}
    for word in words:
        folded = fold(word)
        if among is not None:
            out[word] = among.count(conn, phrase(folded)) if folded else 0
            continue
        row = conn.execute(f"SELECT doc FROM {VOCAB} WHERE term = ?", (folded,)).fetchone()
        out[word] = int(row[0]) if row is not None else 0
    return out


def _known(conn: apsw.Connection, word: str, among: Among | None) -> bool:
    """Whether some note holds ``word`` or a word it begins (keyword search matches prefixes)."""
    if among is not None:
        return among.count(conn, phrase(word, prefix=True)) > 0
    row = conn.execute(f"SELECT 1 FROM {VOCAB} WHERE term >= ? AND term < ? LIMIT 1", (word, word + "\uffff"))
    return row.fetchone() is not None


def _closest(conn: apsw.Connection, word: str, among: Among | None) -> str | None:
    """The closest word of the vocabulary (of ``among`` when given) held by ``MIN_NOTES`` notes.

    In a scope the whole slice is compared (no cut at the ``MAX_CANDIDATES`` commonest, which
    notes outside would decide) and the words within reach are counted among its notes.
    """
    limit = max_distance(word)
    head = word[:2]
    upper = head[:-1] + chr(ord(head[-1]) + 1)
    cut = f"ORDER BY doc DESC LIMIT {MAX_CANDIDATES}" if among is None else ""
    rows = conn.execute(
        f"SELECT term, doc FROM {VOCAB} WHERE term >= ? AND term < ? AND doc >= ? "
        f"AND length(term) BETWEEN ? AND ? {cut}",
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
        if d > limit or (best is not None and d > best[0]):
            continue
        held = int(notes) if among is None else among.count(conn, phrase(str(term)))
        if held >= MIN_NOTES and (best is None or (d, -held, str(term)) < best):
            best = (d, -held, str(term))
    return None if best is None else best[2]

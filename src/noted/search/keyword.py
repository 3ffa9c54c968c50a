"""Keyword search: Joplin's query grammar over the store's FTS5 index, one SQL statement a query.

Words match as prefixes, phrases exactly, diacritics folded both ways (the index uses
``unicode61 remove_diacritics 2``); results rank by BM25 with the title weighted above the
body, or newest first when the query has filters only, and newest first too when its words are
found in more than half the live notes (and over ``BROAD_MIN_NOTES``): FTS5 clamps such a word's
BM25 weight to ~1e-6, so its ranking means nothing, and scoring every match is the costliest step.
The hits are the same notes either way; only their order and ``score`` (0) differ. Trashed notes and conflicts are never
returned. Each hit carries a snippet anchored on its first matched word in the body and the
section (``1.2``) that holds that word; these are computed for the returned page only.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

import apsw

from noted.errors import QueryError
from noted.models import NoteMeta
from noted.search import fuzzy
from noted.search import sql as search_sql
from noted.search.conditions import Attachments, Subtree, like_pattern, title_pattern
from noted.search.query import Filter, FilterKind, Query, TextTerm, parse_query
from noted.search.snippet import Located, body_pattern, fold, locate
from noted.search.sql import compile_query, subtree_sql
from noted.settings.handles import LARGE_NOTE_CHARS
from noted.store.protocol import HasFileLinks
from noted.store.sqlite.db import Database

MAX_LIMIT = 1000
MAX_EXPANSIONS = 200
"""How many index words one ``ast*rix`` may stand for; the rarest shapes are dropped beyond it."""

BROAD_MIN_NOTES = 1000
"""A query matching more than half the live notes is ordered newest first rather than by BM25
(FTS5 clamps the weight of such a word to ~1e-6, so its ranking means nothing, and scoring ~96k
matches costs ~120 ms at 100k notes); below this many matches BM25 is cheap and kept."""
_VOCAB = fuzzy.VOCAB
_WORD = re.compile(r"[^\W\d_]+")
HIDDEN_INDEX = "notes_hidden"
"""A partial index on ``notes(deleted_time, is_conflict) WHERE deleted_time > 0 OR is_conflict != 0``.

When the schema has it, searches that match thousands of notes skip reading their rows.
"""


class HasDatabase(Protocol):
    """What keyword search needs of a store: its SQLite database (``SqliteStore`` has it)."""

    @property
    def db(self) -> Database: ...


@dataclass(frozen=True, slots=True)
class KeywordHit:
    """One note found by a keyword search.

    ``score`` is the BM25 relevance (higher is better; 0 for a query of filters only).
    ``section`` is the positional path (``1.2``) of the innermost section holding the first
    matched word of the body, ``"0"`` for text before the first heading, and None when the
    words matched only in the title or the query had no words.
    """

    note_id: str
    title: str
    notebook_id: str
    notebook_title: str
    updated_time: int
    is_todo: bool
    todo_completed: int
    snippet: str
    section: str | None
    section_heading: str | None
    score: float
    meta: NoteMeta | None = field(default=None, compare=False, repr=False)
    """The note as a listing row shows it, where the search read that anyway (Joplin's ``/search``
    answers with it); None where the caller reads it (``Store.note_metas``)."""


@dataclass(frozen=True, slots=True)
class KeywordResults:
    """A page of hits and how many notes matched in all (before ``limit`` and ``offset``).

    ``suggestion`` is the query with its misspelt words corrected when nothing matched and a
    correction exists ("did you mean"), else "".
    """

    total: int
    hits: tuple[KeywordHit, ...]
    suggestion: str = ""


class KeywordSearch:
    """Search the notes of a SQLite store with Joplin's search grammar."""

    part_chars: int = LARGE_NOTE_CHARS.default
    """``notes.largeNoteChars``: a hit in a longer note names a section of its opening only."""

    def __init__(self, store: HasDatabase) -> None:
        self._db = store.db
        self._files = store if isinstance(store, HasFileLinks) else None
        """Where a file's folder hides it from a scope, whoever links it (a Markdown folder)."""
        self._hidden_index: bool | None = None
        self._among: fuzzy.Among | None = None
        """The notes the vocabulary is read from (``within``); None: every note."""

    def within(self, note_ids: Collection[str] | None) -> KeywordSearch:
        """This search with its vocabulary (corrections, and the word counts a translation
        weighs) read from ``note_ids`` alone: in a scope, no word of a note outside it may be
        offered as a correction or steer how a query is read. None: every note (``self``)."""
        return self if note_ids is None else self._scoped(fuzzy.Among.notes(note_ids))

    def parse(self, query: str, *, now: datetime | None = None) -> Query:
        """Parse ``query`` without running it (raises ``QueryError`` as ``search`` would)."""
        return parse_query(query, now=now)

    def search(
        self,
        query: str,
        *,
        limit: int = 20,
        offset: int = 0,
        folder_ids: frozenset[str] | None = None,
        note_ids: Collection[str] | None = None,
        snippets: bool = True,
    ) -> KeywordResults:
        """Run ``query`` and return one page of hits, best first.

        Args:
            query: Words, ``"phrases"`` and filters in Joplin's grammar (see ``noted.search.query``).
            limit: Page size (1 to 1000).
            offset: Hits to skip, for the next pages.
            folder_ids: When given, only notes directly inside these notebooks are returned
                (the caller expands sub-notebooks).
            note_ids: When given, only these notes are returned. Either scope applies inside
                the statement, before ranking and counting, and to the "did you mean".
            snippets: False leaves ``snippet`` empty and ``section`` None, skipping the costliest
                part for callers that only rank (hybrid search; ``locate`` fills them later).

        Raises:
            QueryError: For an empty or malformed query, or a bad page.
        """
        if not 1 <= limit <= MAX_LIMIT or offset < 0:
            raise QueryError(f"bad page: limit must be 1 to {MAX_LIMIT} and offset 0 or more")
        parsed = parse_query(query)
        among = _among(folder_ids, note_ids)
        with self._db.read() as conn:
            if self._hidden_index is None:
                self._hidden_index = _has_index(conn, HIDDEN_INDEX)
            compile_ = functools.partial(
                compile_query,
                parsed,
                limit=limit,
                offset=offset,
                folder_ids=folder_ids,
                note_ids=note_ids,
                expansions=self._expand(conn, parsed.text_terms),
                hidden_index=self._hidden_index,
                tag_links=_tag_links(conn, parsed),
                attachments=self._attachments(conn, parsed, folder_ids),
            )
            compiled = compile_()
            matches = _matches(conn, compiled.match) if compiled.match is not None else None
            subtrees = _subtrees(conn, parsed, folder_ids)
            if matches is not None or subtrees:
                by_date = compiled.match is not None and _broad(conn, matches or 0, compiled.match, among)
                compiled = compile_(by_date=by_date, matches=matches, subtrees=subtrees)
            try:
                rows = conn.execute(compiled.sql, compiled.params).fetchall()
            except apsw.SQLError as exc:  # quoting should make this impossible; never leak it
                raise QueryError(f"cannot run the search {query!r}: {exc}") from exc
        total = int(rows[0][0]) if rows else 0
        words = compiled.ranked or compiled.match or any(t.substring for t in parsed.text_terms)
        pattern = body_pattern(parsed.text_terms) if words else None
        hits = tuple(
            _hit(row, pattern, compiled.ranked, snippets, self.part_chars)
            for row in rows
            if row[1] is not None
        )
        scoped = self if among is None else self._scoped(among)
        suggestion = scoped._suggest(query, parsed) if total == 0 and offset == 0 else ""
        return KeywordResults(total, hits, suggestion)

    def _attachments(
        self, conn: apsw.Connection, query: Query, folder_ids: frozenset[str] | None
    ) -> Attachments | None:
        """In a scope, the attachments its ``resource:`` filters weigh: those it sees (None: every one)."""
        patterns = [
            like_pattern(t.value)
            for t in query.terms
            if isinstance(t, Filter) and t.kind is FilterKind.RESOURCE
        ]
        if folder_ids is None or not patterns:
            return None
        hidden: list[str] = []
        if self._files is not None:  # the folder-of-file rule, for the files the filters name
            where = " OR ".join("mime LIKE ? ESCAPE '\\'" for _ in patterns)
            ids = [str(r[0]) for r in conn.execute(f"SELECT id FROM resources WHERE {where}", patterns)]
            hidden = [i for i in ids if self._files.file_notebook(i) not in (None, *folder_ids)]
        return Attachments(json.dumps(sorted(folder_ids)), json.dumps(hidden))

    def _scoped(self, among: fuzzy.Among) -> KeywordSearch:
        scoped = copy.copy(self)
        scoped._among = among
        return scoped

    def _suggest(self, query: str, parsed: Query) -> str:
        """``query`` with its plain words that no note holds replaced by their corrections, or ""."""
        plain = [t.text for t in parsed.text_terms if not (t.phrase or t.infix or t.negated or t.substring)]
        fixes = self.corrections(plain)
        if not fixes:
            return ""
        return _WORD.sub(lambda w: fixes.get(fold(w.group()), w.group()), query)

    def locate(self, query: str, note_ids: Sequence[str]) -> dict[str, Located]:
        """The snippet and section of ``query``'s first match in each of these notes."""
        if not note_ids:
            return {}
        pattern = body_pattern(parse_query(query).text_terms)
        marks = ",".join("?" * len(note_ids))
        with self._db.read() as conn:
            rows = conn.execute(
                f"SELECT id, body FROM notes WHERE id IN ({marks})", list(note_ids)
            ).fetchall()
        return {str(note_id): locate(str(body), pattern, part=self.part_chars) for note_id, body in rows}

    def corrections(self, words: Iterable[str]) -> dict[str, str]:
        """For each of ``words`` that no note contains, the closest word the index holds, if any.

        Keys are the words folded (lower case, no diacritics); see ``noted.search.fuzzy``.
        """
        with self._db.read() as conn:
            return fuzzy.corrections(conn, words, self._among)

    def note_counts(self, prefixes: Sequence[str]) -> dict[str, int]:
        """How many notes hold the commonest word of each prefix (``noted.search.fuzzy.note_counts``)."""
        with self._db.read() as conn:
            return fuzzy.note_counts(conn, prefixes, self._among)

    def word_counts(self, words: Sequence[str]) -> dict[str, int]:
        """How many notes hold each of ``words`` as it is (``noted.search.fuzzy.word_counts``)."""
        with self._db.read() as conn:
            return fuzzy.word_counts(conn, words, self._among)

    def notes_holding(self, groups: Sequence[Sequence[str]]) -> dict[tuple[str, ...], int]:
        """For each group of prefixes, how many notes (trash included) hold a word beginning with
        each: how often words go together in these notes."""
        with self._db.read() as conn:
            return {
                tuple(group): _matches(
                    conn, " AND ".join(fuzzy.phrase(fold(p), prefix=True) for p in group), self._among
                )
                for group in groups
                if group and all(group)
            }

    @staticmethod
    def _expand(conn: apsw.Connection, terms: tuple[TextTerm, ...]) -> dict[str, tuple[str, ...]]:
        """The index words each ``ast*rix``-shaped word stands for, read from the FTS vocabulary."""
        infix = {t.text for t in terms if t.infix}
        if not infix:
            return {}
        fuzzy.ensure_vocab(conn)
        out: dict[str, tuple[str, ...]] = {}
        for text in infix:
            folded = fold(text)
            head = folded.split("*", 1)[0]
            upper = head[:-1] + chr(ord(head[-1]) + 1)
            rows = conn.execute(
                f"SELECT term FROM {_VOCAB} WHERE term >= ? AND term < ? AND term GLOB ? "
                f"ORDER BY doc DESC LIMIT {MAX_EXPANSIONS}",
                (head, upper, folded + "*"),
            ).fetchall()
            out[text] = tuple(str(r[0]) for r in rows)
        return out


_UNLOCATED = Located("", None, None)


def _among(folder_ids: frozenset[str] | None, note_ids: Collection[str] | None) -> fuzzy.Among | None:
    """The notes a search's scope holds, as a vocabulary reads them; None without a scope."""
    if note_ids is not None:
        inside = fuzzy.Among.notes(note_ids)
        if folder_ids is None:
            return inside
        return fuzzy.Among(f"{inside.sql} AND parent_id IN (SELECT value FROM json_each(?))",
                           (*inside.params, json.dumps(sorted(folder_ids))))  # fmt: skip
    return None if folder_ids is None else fuzzy.Among.folders(folder_ids)


def _matches(conn: apsw.Connection, match: str, among: fuzzy.Among | None = None) -> int:
    """How many notes ``match`` is found in, trash included (an FTS5 count, no BM25); in a scope,
    how many of its notes."""
    if among is not None:
        return among.count(conn, match)
    return int(conn.execute("SELECT COUNT(*) FROM notes_fts WHERE notes_fts MATCH ?", (match,)).fetchone()[0])


def _broad(conn: apsw.Connection, found: int, match: str, among: fuzzy.Among | None) -> bool:
    """Whether ``match`` is found in more than half the live notes (``found`` of all notes hold
    it). In a scope, of its notes: the order of its hits never depends on the notes outside it;
    they are counted only when ``found`` could be broad (a scope holds no more matches)."""
    if found <= BROAD_MIN_NOTES:
        return False
    if among is not None:
        inside = among.count(conn, match)
        return inside > BROAD_MIN_NOTES and inside * 2 > among.size(conn)
    live = conn.execute(
        "SELECT (SELECT COUNT(*) FROM notes) - "
        "(SELECT COUNT(*) FROM notes WHERE deleted_time > 0 OR is_conflict != 0)"
    ).fetchone()[0]
    return int(found) * 2 > int(live)


def _tag_links(conn: apsw.Connection, query: Query) -> dict[str, int]:
    """How many note-tag links the tags of each positive ``tag:`` filter have (an index count)."""
    values = {
        t.value for t in query.terms if isinstance(t, Filter) and t.kind is FilterKind.TAG and not t.negated
    }
    sql = (
        "SELECT COUNT(*) FROM note_tags WHERE tag_id IN "
        "(SELECT id FROM tags WHERE casefold(title) LIKE ? ESCAPE '\\')"
    )
    return {v: int(conn.execute(sql, (title_pattern(v),)).fetchone()[0]) for v in values}


def _subtrees(conn: apsw.Connection, query: Query, folder_ids: frozenset[str] | None) -> dict[bool, Subtree]:
    """The size of the subtree of the positive (False) and negated (True) notebook filters.

    Counting stops at ``sql.NOTEBOOK_ROWS_MAX`` notes inside, and the notes outside are listed only
    for a subtree that big, so a small notebook costs one short index read.
    """
    out: dict[bool, Subtree] = {}
    most = search_sql.NOTEBOOK_ROWS_MAX  # read here, so that tests can lower it
    for negated in (False, True):
        values = query.notebooks(negated=negated)
        if not values:
            continue
        inside = subtree_sql(values, folder_ids, outside=False)
        if len(conn.execute(inside.sql, inside.params).fetchall()) < most:
            out[negated] = Subtree(big=False)
            continue
        outside = subtree_sql(values, folder_ids, outside=True)
        rows = tuple(int(r[0]) for r in conn.execute(outside.sql, outside.params).fetchall())
        out[negated] = Subtree(big=True, outside=rows if len(rows) < most else None)
    return out


def _has_index(conn: apsw.Connection, name: str) -> bool:
    row = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?", (name,)).fetchone()
    return row is not None


def _hit(
    row: tuple[Any, ...], pattern: re.Pattern[str] | None, ranked: bool, snippets: bool, part: int
) -> KeywordHit:
    (_, note_id, title, notebook_id, notebook_title, updated, is_todo, completed, body, score) = row
    text = str(body)
    located = locate(text, pattern, (note_id, updated, len(text)), part=part) if snippets else _UNLOCATED
    return KeywordHit(
        note_id=str(note_id),
        title=str(title),
        notebook_id=str(notebook_id),
        notebook_title=str(notebook_title or ""),
        updated_time=int(updated),
        is_todo=bool(is_todo),
        todo_completed=int(completed),
        snippet=located.snippet,
        section=located.section,
        section_heading=located.section_heading,
        score=-float(score) if ranked and score is not None else 0.0,
    )

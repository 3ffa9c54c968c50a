"""Compile a parsed ``Query`` into one SQL statement over the store's tables and ``notes_fts``.

The statement returns one row per hit of the requested page, each carrying ``total`` (the number
of matches before the limit), or a single row of NULLs with ``total`` when the page is empty.
Words and phrases go into one FTS5 MATCH expression, every string quoted so that no user input
can be read as FTS5 syntax. Filters become conditions pushed into SQL: where an index can answer
them they are sets of rowids (``rowid IN (…)`` for tags, attachments, notebooks through a
recursive CTE, and the trash when the ``notes_hidden`` index exists), so that a word matching
thousands of notes is ranked without reading their rows; the others read the ``notes`` row.
A notebook holding nearly every note is filtered by the few notes outside it instead (see
``Subtree``), and common tags are probed note by note unless the words match far fewer notes;
the conditions themselves are built in ``noted.search.conditions``.
All matches are counted over the same WHERE as the page, and only the page's rows are joined
back to ``notes`` for titles and bodies.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from typing import NamedTuple

from noted.search.conditions import (
    HIDDEN,
    MATCHING,
    Attachments,
    Cond,
    Subtree,
    fts_term,
    notebook_condition,
    notebook_cte,
    rid_in,
    substring_cte,
    term_condition,
)
from noted.search.query import Filter, FilterKind, Query, Term, TextTerm

TITLE_WEIGHT = 10.0
HEADINGS_WEIGHT = 2.0
BODY_WEIGHT = 1.0

_COLUMNS = (
    "c.total, n.id, n.title, n.parent_id, f.title, n.user_updated_time, n.is_todo, n.todo_completed, "
    "n.body, p.score"
)


NOTEBOOK_ROWS_MAX = 2000
"""Rowids a notebook filter lists, inside the subtree or outside it: listing costs ~1.4 µs a
note (``notebook:`` on a subtree of 100k notes: 144 ms a list, counted twice, against 14 ms
to count the live notes when none is outside)."""


@dataclass(frozen=True, slots=True)
class CompiledQuery:
    """One SQL statement and its parameters; ``ranked`` when rows are sorted by relevance.

    ``match`` is the FTS5 expression every hit must match (None under ``any:1`` or without
    words), so that the caller can count it and ask for ``by_date`` when it is too broad.
    """

    sql: str
    params: tuple[object, ...]
    ranked: bool
    match: str | None = None


class _Builder:
    """Collects CTEs and conditions; conditions are rendered once the rowid expression is known."""

    def __init__(self, hidden_index: bool) -> None:
        self.ctes: list[str] = []
        self.cte_params: list[object] = []
        self.conds: list[Cond] = [
            rid_in(HIDDEN, negated=True)
            if hidden_index
            else Cond("n.deleted_time = 0 AND n.is_conflict = 0", row=True)
        ]

    def cte(self, sql: str, params: tuple[object, ...] = ()) -> None:
        self.ctes.append(sql)
        self.cte_params.extend(params)

    def require(self, cond: Cond) -> None:
        self.conds.append(cond)

    def require_any(self, conds: list[Cond], also: str | None = None) -> None:
        """One condition that holds when any of ``conds`` (or the raw SQL ``also``) does."""
        sqls = [c.sql for c in conds] + ([also] if also else [])
        params = tuple(p for c in conds for p in c.params)
        self.conds.append(Cond("(" + " OR ".join(sqls) + ")", params, row=any(c.row for c in conds)))


_PARENTS = (
    "parents(id) AS (SELECT MIN(parent_id) FROM notes UNION ALL SELECT (SELECT MIN(x.parent_id) "
    "FROM notes AS x WHERE x.parent_id > p.id) FROM parents AS p WHERE p.id IS NOT NULL)"
)
"""Every distinct ``parent_id`` of the notes, one seek of ``notes_parent`` each (orphans too)."""


def notebooks_sql(values: tuple[str, ...], folder_ids: frozenset[str] | None) -> CompiledQuery:
    """A statement listing the ids of the notebooks ``notebook:`` filters of ``values`` take in
    (each title's sub-notebooks too; titles matched as a filter matches them, in the scope)."""
    scope = json.dumps(sorted(folder_ids)) if folder_ids is not None else None
    cte, params = notebook_cte("nb", values, scope)
    return CompiledQuery(f"WITH {cte} SELECT id FROM nb", params, ranked=False)


def subtree_sql(
    values: tuple[str, ...], folder_ids: frozenset[str] | None, *, outside: bool
) -> CompiledQuery:
    """A statement measuring the subtree of the notebooks titled ``values`` (scope rules as a filter).

    It returns up to ``NOTEBOOK_ROWS_MAX`` rows: the notes inside (``outside`` False; only their
    number matters) or the rowids of the notes outside.
    """
    scope = json.dumps(sorted(folder_ids)) if folder_ids is not None else None
    cte, params = notebook_cte("nb", values, scope)
    if outside:
        sql = (
            f"WITH {cte}, {_PARENTS} SELECT rowid FROM notes WHERE parent_id IN "
            "(SELECT id FROM parents WHERE id NOT IN (SELECT id FROM nb)) LIMIT ?"
        )
    else:
        sql = f"WITH {cte} SELECT 1 FROM notes WHERE parent_id IN (SELECT id FROM nb) LIMIT ?"
    return CompiledQuery(sql, (*params, NOTEBOOK_ROWS_MAX), ranked=False)


def _restrictions(
    b: _Builder,
    query: Query,
    folder_ids: frozenset[str] | None,
    note_ids: Collection[str] | None,
    subtrees: Mapping[bool, Subtree],
    walk: bool,
) -> None:
    """Conditions that hold whatever ``any:`` says: notebooks and the caller's scope.

    ``walk``: the query has no words, so its page walks the notes newest first.
    """
    scope = json.dumps(sorted(folder_ids)) if folder_ids is not None else None
    for negated, name in ((False, "nb_in"), (True, "nb_out")):
        values = query.notebooks(negated=negated)
        if values:
            subtree = subtrees.get(negated)
            if subtree is None or subtree.outside is None:
                b.cte(*notebook_cte(name, values, scope))
            cond = notebook_condition(name, negated, subtree, walk)
            if cond is not None:
                b.require(cond)
    if folder_ids is not None:
        sub = "SELECT x.rowid FROM notes AS x WHERE x.parent_id IN (SELECT value FROM json_each(?))"
        b.require(rid_in(sub, (scope,)))
    if note_ids is not None:
        sub = "SELECT x.rowid FROM notes AS x WHERE x.id IN (SELECT value FROM json_each(?))"
        b.require(rid_in(sub, (json.dumps(sorted(note_ids)),)))


def _substrings(b: _Builder, terms: list[Term]) -> dict[TextTerm, Cond]:
    """The condition of each ``substring`` term among ``terms``: a CTE the count and page share."""
    found: dict[TextTerm, Cond] = {}
    for term in terms:
        if isinstance(term, TextTerm) and term.substring and term not in found:
            name = f"sub{len(found)}"
            b.cte(*substring_cte(name, term))
            found[term] = rid_in(f"SELECT rid FROM {name}", negated=term.negated)
    return found


def compile_query(
    query: Query,
    *,
    limit: int,
    offset: int,
    folder_ids: frozenset[str] | None = None,
    note_ids: Collection[str] | None = None,
    expansions: Mapping[str, tuple[str, ...]] | None = None,
    hidden_index: bool = False,
    tag_links: Mapping[str, int] | None = None,
    by_date: bool = False,
    matches: int | None = None,
    subtrees: Mapping[bool, Subtree] | None = None,
    attachments: Attachments | None = None,
) -> CompiledQuery:
    """Build the statement for ``query``.

    Args:
        query: The parsed query.
        limit: Page size.
        offset: Matches to skip.
        folder_ids: When given, only notes directly in these notebooks are returned.
        note_ids: When given, only these notes are returned.
        expansions: For each word with an inner ``*``, the index words it stands for.
        hidden_index: The database has the partial index ``notes_hidden`` (on
            ``deleted_time > 0 OR is_conflict != 0``), so trashed notes and conflicts can be
            excluded without reading every matching row.
        tag_links: For each positive ``tag:`` value, how many note-tag links its tags have;
            a value missing here is taken as common (probed note by note).
        by_date: Order the hits newest first instead of by BM25 (for words found in most
            notes, whose BM25 weight FTS5 clamps to almost nothing); the hits are the same.
        matches: How many notes the words match (an FTS5 count), to choose how tags are tested.
        subtrees: For the positive (False) and negated (True) notebook filters, the size of
            their subtree; a filter missing here lists the rowids inside.
        attachments: In a scope, the attachments ``resource:`` filters weigh (None: every one).
    """
    expansions = expansions or {}
    tag_links = tag_links or {}
    b = _Builder(hidden_index)
    others = [t for t in query.terms if not (isinstance(t, Filter) and t.kind is FilterKind.NOTEBOOK)]
    # Words the FTS index can answer; a ``substring`` term is a condition on the row, as a filter is.
    indexed = [t for t in others if isinstance(t, TextTerm) and not t.substring]
    positive = [t for t in indexed if not t.negated]
    rest = [t for t in others if t not in positive]
    exprs = [fts_term(t, expansions) for t in positive]
    _restrictions(b, query, folder_ids, note_ids, subtrees or {}, walk=not any(exprs))
    found = _substrings(b, rest)

    def condition(term: Term, matches: int | None = None) -> Cond:
        in_text = found.get(term) if isinstance(term, TextTerm) else None
        return in_text or term_condition(term, expansions, tag_links, matches, attachments)

    if query.any:
        match = " OR ".join(f"({e})" for e in exprs if e is not None)
        alternatives = [condition(t) for t in rest]
        if alternatives:
            b.require_any(alternatives, also="h.rid IS NOT NULL" if match else None)
        elif not match:
            b.require(Cond("0"))
        return _assemble(b, match or None, outer=bool(alternatives), limit=limit, offset=offset)
    if any(e is None for e in exprs):
        b.require(Cond("0"))
    negated_exprs = [fts_term(t, expansions) for t in indexed if t.negated]
    match = " AND ".join(f"({e})" for e in exprs if e is not None)
    if match and any(negated_exprs):
        # FTS5 applies the negations itself, cheaper than a NOT IN per term.
        match = f"({match}) NOT ({' OR '.join(f'({e})' for e in negated_exprs if e is not None)})"
    for term in rest:
        if not (match and term in indexed):
            b.require(condition(term, matches if match else None))
    compiled = _assemble(b, match or None, outer=False, limit=limit, offset=offset, by_date=by_date)
    return replace(compiled, match=match or None)


_HITS = (
    f"SELECT rowid, bm25(notes_fts, {TITLE_WEIGHT}, {HEADINGS_WEIGHT}, {BODY_WEIGHT}) "
    "FROM notes_fts WHERE notes_fts MATCH ?"
)


class _Source(NamedTuple):
    """Where matches are read from: FROM clause, rowid (selected / in conditions), score, time, order."""

    from_: str
    rid: str
    cond_rid: str
    score: str
    updated: str
    order: str


def _source(b: _Builder, match: str | None, outer: bool) -> _Source:
    if match is None:
        # Newest first, in the order of the notes_updated index so the page can stop early.
        order = "n.user_updated_time DESC, n.rowid DESC"
        return _Source("notes AS n", "n.rowid", "n.rowid", "NULL", "n.user_updated_time", order)
    if outer:
        joined = "notes AS n LEFT JOIN hits AS h ON h.rid = n.rowid"
        order = "h.score IS NULL, h.score, n.user_updated_time DESC, n.rowid DESC"
        return _Source(joined, "n.rowid", "n.rowid", "h.score", "n.user_updated_time", order)
    # "+h.rid" in conditions: never let SQLite feed rowids into the FTS table one by one (one
    # MATCH per rowid is far slower than one MATCH for all).
    if any(c.row for c in b.conds):
        joined = "hits AS h JOIN notes AS n ON n.rowid = h.rid"
        order = "h.score, n.user_updated_time DESC, h.rid DESC"
        return _Source(joined, "h.rid", "+h.rid", "h.score", "n.user_updated_time", order)
    # Nothing needs the notes row: rank the FTS hits alone (ties then fall back to rowid).
    return _Source("hits AS h", "h.rid", "+h.rid", "h.score", "NULL", "h.score, h.rid DESC")


def _assemble(
    b: _Builder, match: str | None, *, outer: bool, limit: int, offset: int, by_date: bool = False
) -> CompiledQuery:
    """The whole statement: the count of all matches and the requested page, over one WHERE.

    The count reads no more than its conditions need (an FTS5 count without BM25, or covering
    indexes); the page computes scores and sorts, and only its rows are joined back to ``notes``
    for titles and bodies. The count comes through even when the page is empty.
    """
    ctes = list(b.ctes)
    params: list[object] = list(b.cte_params)
    if match is not None:
        # Under any:1 the hits are joined to every candidate note, so compute them once;
        # otherwise let the count read the FTS index without computing BM25.
        ctes.append(f"hits(rid, score) AS {'' if outer else 'NOT '}MATERIALIZED ({_HITS})")
        params.append(match)
    src = _source(b, match, outer)
    where = " AND ".join(c.on(src.cond_rid) for c in b.conds)
    where_params = [p for c in b.conds for p in c.params]
    counted = " AND ".join(c.on(src.cond_rid, counting=match is None) for c in b.conds)
    count = f"SELECT COUNT(*) AS total FROM {src.from_} WHERE {counted}"
    page_params: list[object] = where_params
    if match is not None and by_date:
        # Walk the notes_updated index newest first ("+" keeps SQLite from reading a notes row
        # per FTS match) and stop at the page's end; the count above still reads the FTS index.
        src = _source(b, None, False)
        where = " AND ".join([f"+n.rowid IN ({MATCHING})", *(c.on(src.cond_rid) for c in b.conds)])
        page_params = [match, *where_params]
    page = (
        f"SELECT {src.rid} AS rid, {src.score} AS score, {src.updated} AS updated "
        f"FROM {src.from_} WHERE {where} ORDER BY {src.order} LIMIT ? OFFSET ?"
    )
    params.extend((*where_params, *page_params, limit, offset))
    sql = (
        (f"WITH {', '.join(ctes)} " if ctes else "")
        + f"SELECT {_COLUMNS} FROM ({count}) AS c LEFT JOIN ({page}) AS p ON 1 "
        "LEFT JOIN notes AS n ON n.rowid = p.rid LEFT JOIN folders AS f ON f.id = n.parent_id "
        "ORDER BY p.score IS NULL, p.score, p.updated DESC, p.rid DESC"
    )
    return CompiledQuery(sql, tuple(params), ranked=match is not None and not by_date)

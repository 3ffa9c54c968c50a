"""Conditions on a note for the keyword search's SQL: FTS5 expressions, filters, notebooks.

Each ``Cond`` is a piece of a WHERE clause in which ``{rid}`` stands for the note's rowid, so
that ``noted.search.sql`` can render it against whichever table the statement reads from. Where
an index can answer a filter the condition is a set of rowids (``rid_in``), so that the notes
row need not be read; the others (``row``) read ``n.…`` columns. Every user string goes in as a
parameter, quoted for FTS5 or escaped for LIKE, never as SQL or FTS5 syntax.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from noted.search.anywhere import caseless_runs
from noted.search.query import DateField, DateFilter, Filter, FilterKind, Term, TextField, TextTerm
from noted.search.snippet import glob_pattern


@dataclass(frozen=True, slots=True)
class Subtree:
    """What the caller measured of the notes under the notebooks of ``notebook:`` filters.

    ``big``: at least ``noted.search.sql.NOTEBOOK_ROWS_MAX`` notes are inside. ``outside``: the rowids of every
    note outside (trashed ones included), known only when there are fewer than that.
    """

    big: bool
    outside: tuple[int, ...] | None = None


TAG_LIST_PER_MATCH = 4
"""Listing a tag's notes costs ~1.5 µs a link, probing ~7 µs a note matching the words: a
common tag is listed when it has fewer than this many links per matching note."""


def fts_string(text: str) -> str:
    """``text`` as an FTS5 string: a phrase of its tokens, never an operator. A NUL, which
    separates tokens as any punctuation does, is passed as a space: FTS5 reads a query as a C
    string, which a NUL would end inside the quotes."""
    return '"' + text.replace('"', '""').replace("\0", " ") + '"'


def like_pattern(value: str) -> str:
    """A LIKE pattern (with ``ESCAPE '\\'``) matching ``value`` whole, ``*`` standing for any run."""
    escaped = value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped.replace("*", "%")


def title_pattern(value: str) -> str:
    """A LIKE pattern for ``casefold(title)`` (``noted.store.sqlite.db.add_functions``): a tag's or
    a notebook's title matched regardless of case in every script ("tag:été" finds "Été"), where
    LIKE alone folds the 26 ASCII letters only."""
    return like_pattern(value.casefold())


def fts_term(term: TextTerm, expansions: Mapping[str, tuple[str, ...]]) -> str | None:
    """The FTS5 expression of a word or phrase; None when it cannot match anything."""
    if term.infix:
        words = expansions.get(term.text, ())
        if not words:
            return None
        expr = "(" + " OR ".join(fts_string(w) for w in words) + ")"
    else:
        expr = fts_string(term.text) + (" *" if term.prefix else "")
    if term.field is TextField.ALL:
        return expr
    return f"{{{term.field.value}}} : ({expr})"


_COLUMNS = {TextField.ALL: ("n.title", "n.body"), TextField.TITLE: ("n.title",), TextField.BODY: ("n.body",)}


def substring_cte(name: str, term: TextTerm) -> tuple[str, tuple[object, ...]]:
    """A CTE of the notes holding a ``substring`` term (Chinese, Japanese, Korean, symbols) anywhere in the
    title or body, its letters in any case and with or without diacritics as the index's words
    are (``snippet.glob_pattern``; ``*`` for any run): the index would hold only whole runs.
    Materialized, so the count and the page share one scan of every note (~30 ms at 10,000 notes;
    scanning once for each took three times as long). Its longest run of those characters that
    have no case (``noted.search.anywhere.caseless``) is looked for first by ``LIKE``: a pattern opening with a class of letters
    (``tokyo駅``) is 25 times slower to scan for. ``negated`` is ignored."""
    columns = _COLUMNS[term.field]
    found = " OR ".join(f"({column} LIKE ? ESCAPE '\\' AND {column} GLOB ?)" for column in columns)
    run = max(caseless_runs(term.text), key=len, default="")
    patterns = ("%" + like_pattern(run) + "%", glob_pattern(term.text))
    sql = f"{name}(rid) AS MATERIALIZED (SELECT rowid FROM notes AS n WHERE {found})"
    return sql, patterns * len(columns)


@dataclass(frozen=True, slots=True)
class Cond:
    """A condition on a note: ``{rid}`` stands for its rowid; ``row`` when it reads ``n.…`` columns."""

    sql: str
    params: tuple[object, ...] = ()
    row: bool = False
    count: str | None = None
    """The condition in a count over ``notes`` when it differs (an index may answer it there)."""

    def on(self, rid: str, *, counting: bool = False) -> str:
        """The condition's SQL with ``rid`` for the rowid (its ``count`` form when ``counting``)."""
        return ((self.count if counting else None) or self.sql).replace("{rid}", rid)


def rid_in(sub: str, params: tuple[object, ...] = (), *, negated: bool = False) -> Cond:
    """A condition answered by a subquery of rowids, so that the notes row need not be read."""
    return Cond(f"{{rid}} {'NOT ' if negated else ''}IN ({sub})", params)


_TAGGED = (
    "SELECT x.rowid FROM note_tags AS nt JOIN notes AS x ON x.id = nt.note_id "
    "WHERE nt.tag_id IN (SELECT id FROM tags WHERE casefold(title) LIKE ? ESCAPE '\\')"
)
"""The rowids of the notes carrying a matching tag: the tags are matched first, once each, then
their links read by index (a join let SQLite walk every link and fold its tag's title: 29,000
calls of ``casefold`` for ``tag:x`` at 10,000 notes)."""
_ATTACHED = (
    "SELECT x.rowid FROM resources AS r JOIN note_resources AS nr ON nr.resource_id = r.id "
    "JOIN notes AS x ON x.id = nr.note_id WHERE r.mime LIKE ? ESCAPE '\\'"
)
_TAG_PROBE = (
    "EXISTS (SELECT 1 FROM note_tags AS nt WHERE nt.note_id = n.id "
    "AND +nt.tag_id IN (SELECT id FROM tags WHERE casefold(title) LIKE ? ESCAPE '\\'))"
)
"""Whether note ``n`` carries a matching tag: one probe of its own few links ("+" keeps SQLite
from probing each matching tag in turn, 300 probes a note for ``tag:*``)."""
TAG_PROBE_FROM = 2000
"""Tag links above which a tag filter probes each candidate note instead of listing the tagged
notes' rowids: mapping thousands of note ids back to rowids costs more than probing (``tag:*``
at 100k notes: 900 ms listed, 70 ms probed), and a page walked newest first stops early."""
_UNATTACHED = (
    "SELECT 1 FROM note_resources AS nr JOIN resources AS r ON r.id = nr.resource_id "
    "WHERE nr.note_id = n.id AND r.mime LIKE ? ESCAPE '\\'"
)
_SEEN = (
    " AND r.id NOT IN (SELECT o.resource_id FROM note_resources AS o LEFT JOIN notes AS y ON y.id = o.note_id "
    "WHERE y.id IS NULL OR y.parent_id NOT IN (SELECT value FROM json_each(?))) "
    "AND r.id NOT IN (SELECT value FROM json_each(?))"
)
"""Attachment ``r`` is one a caller limited to some notebooks sees (``noted.ops.attachments.linking_notes``):
every note that links it, trashed ones too, is in those notebooks, and it is none of the files the
store hides from them besides (a Markdown folder's file in a hidden notebook's folder)."""


@dataclass(frozen=True, slots=True)
class Attachments:
    """The attachments a caller limited to some notebooks sees, for ``resource:`` filters."""

    folders: str
    """The notebooks, as a JSON list of ids."""
    hidden: str = "[]"
    """The attachments hidden from them whoever links them, as a JSON list of ids."""


MATCHING = "SELECT rowid FROM notes_fts WHERE notes_fts MATCH ?"
HIDDEN = "SELECT rowid FROM notes WHERE deleted_time > 0 OR is_conflict != 0"
"""Trashed notes and conflicts; fast only with the partial index ``notes_hidden`` on this WHERE."""


def _probed(term: Filter, tag_links: Mapping[str, int], matches: int | None) -> bool:
    """Whether tag filter ``term`` probes each candidate note rather than listing the tagged ones.

    ``matches`` is how many notes the words match (None when every note is a candidate).
    """
    if term.negated:
        return True  # think -tag:*
    links = tag_links.get(term.value, TAG_PROBE_FROM)
    return links >= TAG_PROBE_FROM and (matches is None or links >= matches * TAG_LIST_PER_MATCH)


def _filter_condition(
    term: Filter, tag_links: Mapping[str, int], matches: int | None = None, seen: Attachments | None = None
) -> Cond:
    not_ = "NOT " if term.negated else ""
    kind = term.kind
    if kind is FilterKind.TAG and _probed(term, tag_links, matches):
        return Cond(f"{not_}{_TAG_PROBE}", (title_pattern(term.value),), row=True)
    if kind is FilterKind.TAG:
        return rid_in(_TAGGED, (title_pattern(term.value),))
    if kind is FilterKind.RESOURCE:
        # In a scope, an attachment the caller may not see is as one that is not there.
        extra, more = (_SEEN, (seen.folders, seen.hidden)) if seen is not None else ("", ())
        params = (like_pattern(term.value), *more)
        if term.negated:
            return Cond(f"NOT EXISTS ({_UNATTACHED}{extra})", params, row=True)
        return rid_in(_ATTACHED + extra, params)
    if kind is FilterKind.SOURCEURL:
        return Cond(f"n.source_url {not_}LIKE ? ESCAPE '\\'", (like_pattern(term.value),), row=True)
    if kind is FilterKind.ID:
        if term.wildcard:
            return Cond(f"n.id {not_}LIKE ? ESCAPE '\\'", (like_pattern(term.value.lower()),), row=True)
        return Cond("n.id != ?" if term.negated else "n.id = ?", (term.value.lower(),), row=True)
    if kind is FilterKind.TYPE:
        return Cond(f"n.is_todo = {int((term.value == 'todo') != term.negated)}", row=True)
    if kind is FilterKind.ISCOMPLETED:
        done = (term.value == "1") != term.negated
        return Cond(f"(n.is_todo = 1 AND n.todo_completed {'>' if done else '='} 0)", row=True)
    raise AssertionError(f"notebook filters are compiled apart, not {kind}")


def _date_condition(term: DateFilter) -> Cond:
    op = "<" if term.negated else ">="
    if term.field is DateField.DUE:
        return Cond(f"(n.is_todo = 1 AND n.todo_due > 0 AND n.todo_due {op} ?)", (term.since_ms,), row=True)
    column = "n.user_created_time" if term.field is DateField.CREATED else "n.user_updated_time"
    return Cond(f"{column} {op} ?", (term.since_ms,), row=True)


def notebook_cte(name: str, values: tuple[str, ...], scope: str | None) -> tuple[str, tuple[object, ...]]:
    """A recursive CTE of the notebooks whose title matches one of ``values``, with their descendants.

    With a scope (a JSON list of notebook ids), only titles inside it are matched, so a query
    cannot learn the name of a notebook it may not see from which notes come back.
    """
    likes = " OR ".join("casefold(title) LIKE ? ESCAPE '\\'" for _ in values)
    inside = " AND id IN (SELECT value FROM json_each(?))" if scope is not None else ""
    sql = (
        f"{name}(id) AS (SELECT id FROM folders WHERE ({likes}){inside} "
        f"UNION SELECT f.id FROM folders AS f JOIN {name} AS p ON f.parent_id = p.id)"
    )
    params = tuple(title_pattern(v) for v in values)
    return sql, params + ((scope,) if scope is not None else ())


def term_condition(
    term: Term,
    expansions: Mapping[str, tuple[str, ...]],
    tag_links: Mapping[str, int],
    matches: int | None = None,
    seen: Attachments | None = None,
) -> Cond:
    """A condition for one non-notebook term, used where terms combine as SQL (negated text, any:1);
    ``seen``: the attachments a ``resource:`` filter weighs (None: every one)."""
    if isinstance(term, TextTerm):
        expr = fts_term(term, expansions)
        if expr is None:  # matches nothing, so its negation matches everything
            return Cond("1" if term.negated else "0")
        return rid_in(MATCHING, (expr,), negated=term.negated)
    if isinstance(term, DateFilter):
        return _date_condition(term)
    return _filter_condition(term, tag_links, matches, seen)


def notebook_condition(name: str, negated: bool, subtree: Subtree | None, walk: bool) -> Cond | None:
    """The condition of the notebook filters whose CTE is ``name``; None when every note passes."""
    if subtree is not None and subtree.outside is not None:
        if not subtree.outside:  # every note is inside
            return Cond("0") if negated else None
        return rid_in("SELECT value FROM json_each(?)", (json.dumps(subtree.outside),), negated=not negated)
    inside = f"SELECT id FROM {name}"
    if subtree is not None and subtree.big and walk:
        # Read from the row, so that the page walks notes newest first and stops early, while
        # the count goes through notes_parent: listing the subtree's rowids would cost more.
        not_ = "NOT " if negated else ""
        return Cond(f"+n.parent_id {not_}IN ({inside})", row=True, count=f"n.parent_id {not_}IN ({inside})")
    return rid_in(f"SELECT x.rowid FROM notes AS x WHERE x.parent_id IN ({inside})", negated=negated)

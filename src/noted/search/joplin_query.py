"""A parsed query written back in Joplin's grammar, meaning there what it means to noted.

``noted.search.joplin`` sends Joplin's ``/search`` this rather than the query as typed: where noted
reads the grammar differently (``noted.search.query`` lists how), the words typed would ask Joplin
something else, and only for the notes Joplin's index answers (older than the recent window),
so the same query gave other notes as they aged. Each term is written in the form Joplin reads
as noted does:

- ``-type:todo`` is ``type:note`` and ``-iscompleted:1`` is ``iscompleted:0`` (Joplin ignores
  both negations and lists every note);
- a date is the day noted resolved it to, ``YYYYMMDD`` (Joplin finds nothing for ``2026-12-01``,
  and starts its weeks on Sunday); ``-due:`` adds that the to-do has a due date (Joplin counts
  one without as due at the epoch), which ``any:1`` cannot say;
- an option as a question writes it (``--force``, ``-f``) is the word, not its exclusion;
  ``resource:image`` is ``resource:image/*``; a word the colon ends is the word.

Some terms Joplin cannot be asked as noted reads them (``joplin_asked``): it matches a one-letter
word as a prefix, a ``title:``/``body:`` phrase's words in any order, and under ``any:1`` a
``-due:`` takes in the to-dos without a due date. Such a query is answered by Joplin, then checked
note by note by noted's own matcher (the embedded store's SQL, in a scratch copy) over the bodies
Joplin sends, which keeps what noted would find. Where Joplin would find too little, it is asked
for more: a ``*`` inside a word (which Joplin takes literally) is asked as the prefix before it
(``sw*ing`` as ``sw``); a symbol, a word of Joplin's index joined to the letters beside it (``€``
finds no "5€", which noted finds anywhere), is left out of what Joplin is asked (alone, it is
Joplin's plain substring search, ``/€``), as is a negated term Joplin reads more widely. Under
``any:1`` a symbol or such a negated term cannot be: Joplin's answer stands there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime

from noted.search.anywhere import CJK, has_symbol
from noted.search.query import DateField, DateFilter, Filter, FilterKind, Query, Term, TextField, TextTerm

NARROWED_NOTEBOOKS = 50
"""A scope of more notebooks is not written into the query sent to Joplin (one ``LIKE`` each)."""
_FLIPPED = {"note": "todo", "todo": "note", "0": "1", "1": "0"}
_DATED = "due:19700102"
"""A due date at all: Joplin's ``due:`` compares ``todo_due``, 0 for a to-do without one."""


def _value(value: str) -> str:
    """A filter's value as Joplin reads it whole: quoted when it holds a space (it was typed in
    quotes then, so it holds none)."""
    return f'"{value}"' if any(c.isspace() for c in value) else value


def _text(term: TextTerm) -> str:
    field = "" if term.field is TextField.ALL else f"{term.field.value}:"
    if term.phrase or any(c.isspace() for c in term.text):
        body = f'"{term.text}{"*" if term.prefix else ""}"'
    else:  # the Data API makes a bare word a prefix itself
        body = term.text
    return f"{'-' if term.negated else ''}{field}{body}"


def _date(term: DateFilter) -> str:
    day = datetime.fromtimestamp(term.since_ms / 1000).strftime("%Y%m%d")
    return f"{'-' if term.negated else ''}{term.field.value}:{day}"


def _filter(term: Filter) -> str:
    if term.negated and term.kind in (FilterKind.TYPE, FilterKind.ISCOMPLETED):
        return f"{term.kind.value}:{_FLIPPED[term.value]}"
    return f"{'-' if term.negated else ''}{term.kind.value}:{_value(term.value)}"


def _term(term: Term) -> str:
    if isinstance(term, TextTerm):
        return _text(term)
    if isinstance(term, DateFilter):
        return _date(term)
    return _filter(term)


def joplin_query(query: Query) -> str:
    """``query`` in Joplin's grammar, each term written as Joplin reads it the way noted does."""
    parts = [_term(t) for t in query.terms]
    negated_due = any(
        isinstance(t, DateFilter) and t.field is DateField.DUE and t.negated for t in query.terms
    )
    if negated_due and not query.any:
        parts.append(_DATED)
    return " ".join((["any:1"] if query.any else []) + parts)


@dataclass(frozen=True, slots=True)
class Asked:
    """What Joplin's ``/search`` is sent for a query, and what noted checks its answer with."""

    query: str
    """In Joplin's grammar; a leading ``/`` asks its plain substring search."""
    check: Query | None = None
    """Run by noted's matcher over Joplin's answer, which it narrows (None: Joplin's answer stands)."""


def _wide(term: Term) -> bool:
    """A term Joplin reads more widely than noted: a one-letter word, a field's phrase."""
    if not isinstance(term, TextTerm):
        return False
    one_letter = not term.phrase and not term.prefix and len(term.text) == 1
    return one_letter or (term.phrase and term.field is not TextField.ALL)


def _glued(term: Term) -> bool:
    """A term holding a symbol, which Joplin finds only where it starts a word."""
    return isinstance(term, TextTerm) and has_symbol(term.text) and not CJK.search(term.text)


def _infix(term: Term) -> bool:
    return isinstance(term, TextTerm) and term.infix


def _before_star(term: Term) -> Term:
    """``sw*ing`` as the prefix ``sw``, which Joplin finds in every word ``sw*ing`` finds."""
    if not isinstance(term, TextTerm) or not term.infix or term.negated:
        return term
    return TextTerm(term.text.split("*", 1)[0], term.field, prefix=True)


def joplin_asked(query: Query) -> Asked:
    """What to ask Joplin for ``query`` so that its answer holds every note noted finds, and the
    terms noted checks that answer with (see the module's docstring)."""
    odd = [t for t in query.terms if _wide(t) or _glued(t) or _infix(t)]
    undated = query.any and any(
        isinstance(t, DateFilter) and t.field is DateField.DUE and t.negated for t in query.terms
    )
    if not odd and not undated:
        return Asked(joplin_query(query))
    if query.any:  # one term more widely read widens the whole answer; one left out would narrow it
        return Asked(joplin_query(Query(tuple(map(_before_star, query.terms)), any=True)), query)
    kept: list[Term] = []
    for term in query.terms:
        if isinstance(term, TextTerm) and term in odd and (term.negated or _glued(term)):
            continue  # Joplin would find less with it
        kept.append(_before_star(term))
    glued = [t for t in odd if isinstance(t, TextTerm) and _glued(t) and not t.negated]
    if all(t.negated for t in kept):  # nothing left that Joplin finds notes by
        if glued:  # Joplin's substring search: every note holding it, in its title or body
            return Asked(f"/{glued[0].text}", query)
        return Asked(joplin_query(query), query)  # nothing wider to ask: Joplin's answer, narrowed
    return Asked(joplin_query(Query(tuple(kept))), Query(tuple(odd)))


def narrowed(
    query: str, parsed: Query, folder_ids: frozenset[str] | None, titles: Callable[[], Mapping[str, str]]
) -> str:
    """In a notebook scope, ``query`` (Joplin's form) with the scope's notebooks as ``notebook:`` filters, so
    that Joplin's work, and the time it takes, do not grow with the matches outside it (it
    answers 100 a request, running the whole search again for each: 1,000 hidden matches took
    0.6 s, none 0.05 s). Joplin's filter takes titles (``titles``: every notebook's, by id), and
    each one's sub-notebooks: what else it lets through is left out afterwards. ``query`` as it
    is when a title cannot be quoted, the query names notebooks itself (Joplin would take
    either), or it asks Joplin's substring search (``/``, which reads no filter)."""
    if not folder_ids or len(folder_ids) > NARROWED_NOTEBOOKS or query.startswith("/"):
        return query
    if any(isinstance(t, Filter) and t.kind is FilterKind.NOTEBOOK and not t.negated for t in parsed.terms):
        return query
    named = titles()
    wanted = sorted({named[i] for i in folder_ids if i in named})
    if not wanted or any('"' in t or "\\" in t or not t.strip() for t in wanted):
        return query
    return query + "".join(f' notebook:"{t}"' for t in wanted)

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

Joplin still matches a one-letter word as a prefix and takes a ``*`` inside a word literally. A
symbol (``🎉``, ``€``) is a word of Joplin's index, which joins every non-ASCII character to the
letters beside it: Joplin finds one that starts a word (``5€`` finds "5€", ``🎉`` "🎉party"), not
one inside a word (``€`` finds no "5€"), which noted finds anywhere.
"""

from __future__ import annotations

from datetime import datetime

from noted.search.query import DateField, DateFilter, Filter, FilterKind, Query, Term, TextField, TextTerm

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

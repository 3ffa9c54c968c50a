"""Joplin's search grammar, parsed into a frozen tree that the SQL compiler walks.

A query is a list of terms separated by spaces:

- ``word``: a word found in the title or body. Every word of two or more characters matches as a
  prefix of a word in the note (``cat`` finds ``catalog``); ``swim*`` says the same explicitly.
- ``"a phrase"``: these words, in this order, exactly (``"shop*"`` makes the last one a prefix).
- ``-term``: a word, phrase or filter negated.
- ``filter:value`` or ``filter:"quoted value"``: ``notebook:``, ``tag:``, ``title:``, ``body:``,
  ``type:note|todo``, ``iscompleted:0|1``, ``created:``, ``updated:``, ``due:``, ``sourceurl:``,
  ``resource:``, ``id:`` and ``any:1``.

How terms combine (as in Joplin): all terms must hold (AND) unless ``any:1`` is given, then any
one of them is enough (OR). ``notebook:`` filters are the exception: several of them mean "in
any of these notebooks or their sub-notebooks", and they restrict the result even under
``any:1``. Several ``tag:`` filters mean all of the tags (any of them under ``any:1``);
``tag:*`` is "has a tag" and ``-tag:*`` "has no tag". ``created:X`` means on or after X,
``-created:X`` before X (see ``noted.search.dates``). Values of ``notebook:``, ``tag:``,
``sourceurl:``, ``resource:`` and ``id:`` match the whole value, ignoring case, with ``*``
standing for any run of characters.

Where noted deliberately differs from Joplin:

- Bare words match as prefixes (Joplin matches whole words unless a ``*`` is added), except a
  one-character word, which matches whole (``c`` finds "C", not every word starting with c)
  unless written ``c*``.
- A word holding Chinese, Japanese or Korean, or a symbol (``✅``, ``→``), is found anywhere in the
  text (``TextTerm.substring``); Joplin switches its whole search to ``LIKE`` for CJK, noted only that word.
- A ``*`` inside a word (``ast*rix``) matches one word of that shape; Joplin takes it literally.
  A leading ``*`` is ignored, as in Joplin.
- A name close to a filter's (``tags:work``, ``notebok:Work``, ``complete:1``) is an error that
  says which filter it probably meant; Joplin silently searches it as text, and finds nothing.
  Any other ``name:`` is text, as in Joplin: ``std::vector``, ``localhost:8080``,
  ``gitdir:~/work/``, ``C:\\Users``, a URL, and a word the colon ends, as in prose (``psql:
  quote a variable``, ``Note:``), which is searched without its colon.
- An option as a question writes it is a word, not an exclusion: ``--force`` searches for
  "force" and ``-f`` for "f" (Joplin would leave out every note with "force", or with "f").
- ``-type:`` and ``-iscompleted:`` are allowed (Joplin's search lists every note for them). ``iscompleted:`` only
  ever matches to-dos, negated or not.
- ``due:`` and ``-due:`` only match to-dos that have a due date (Joplin counts a to-do without
  one as due at the epoch, so ``-due:day+7`` would list every undated to-do).
- ``resource:image`` is read as ``resource:image/*``.
- The location filters (``latitude:`` …) are not supported: noted keeps no location.
- A query has limits, so a pasted page or a generated one is refused at once with a clear
  message rather than run for seconds or fail inside SQLite: at most ``MAX_QUERY_CHARS``
  characters, ``MAX_TERMS`` terms, and ``MAX_WORD_CHARS`` characters in one searched word.
"""

from __future__ import annotations

import difflib
import enum
import re
from dataclasses import dataclass
from datetime import datetime

from noted.errors import QueryError
from noted.search.anywhere import found_anywhere, is_symbol, without_presentation
from noted.search.dates import resolve_date

MAX_QUERY_CHARS = 2_000
"""The longest query, in characters (a long paragraph; SQLite's own limits are far beyond reach)."""
MAX_TERMS = 100
"""The most words, phrases and filters in one query (1,000 ``notebook:`` filters overflow SQLite's
expression tree; 100 of any kind run in well under a tenth of a second)."""
MAX_WORD_CHARS = 100
"""The longest searched word: matching time grows with the square of a word's length (a
120,000-character word took 10 s), and no real word comes near 100 characters."""


def check_query_size(query: str) -> None:
    """Refuse a query longer than ``MAX_QUERY_CHARS`` (semantic search, which does not parse, too).

    Raises:
        QueryError: The query is too long.
    """
    if len(query) > MAX_QUERY_CHARS:
        raise QueryError(
            f"the search query is too long ({len(query):,} characters; at most {MAX_QUERY_CHARS:,})",
            hint="search for a few words that stand out",
        )


class TextField(enum.StrEnum):
    """Where a text term is looked for."""

    ALL = "all"
    TITLE = "title"
    BODY = "body"


class FilterKind(enum.StrEnum):
    """The non-text, non-date filters."""

    NOTEBOOK = "notebook"
    TAG = "tag"
    TYPE = "type"
    ISCOMPLETED = "iscompleted"
    SOURCEURL = "sourceurl"
    RESOURCE = "resource"
    ID = "id"


class DateField(enum.StrEnum):
    """The note time a date filter compares."""

    CREATED = "created"
    UPDATED = "updated"
    DUE = "due"


@dataclass(frozen=True, slots=True)
class TextTerm:
    """A word or a phrase to find in the title and body, or in one of them.

    ``text`` is the word or phrase as typed, without quotes, negation or leading/trailing ``*``.
    """

    text: str
    field: TextField = TextField.ALL
    phrase: bool = False
    """Quoted: the words must appear in this order, next to each other."""
    prefix: bool = True
    """The last word matches as a prefix (bare words but one-letter ones; phrases ending in ``*``)."""
    negated: bool = False

    @property
    def infix(self) -> bool:
        """A single word with a ``*`` inside (``ast*rix``): matched against the index's words."""
        return not self.phrase and "*" in self.text

    @property
    def substring(self) -> bool:
        """Holds Chinese, Japanese or Korean (the index keeps a run of it as one word) or a symbol
        (of which it makes no word), so the term is found anywhere in the text (``noted.search.anywhere``)."""
        return found_anywhere(self.text)


@dataclass(frozen=True, slots=True)
class Filter:
    """A ``notebook:``, ``tag:``, ``type:``, ``iscompleted:``, ``sourceurl:``, ``resource:`` or ``id:``.

    ``value`` is normalised: ``type`` is ``note`` or ``todo``, ``iscompleted`` is ``0`` or ``1``.
    """

    kind: FilterKind
    value: str
    negated: bool = False

    @property
    def wildcard(self) -> bool:
        return "*" in self.value


@dataclass(frozen=True, slots=True)
class DateFilter:
    """``created:``, ``updated:`` or ``due:``: on or after ``since_ms`` (before it when negated)."""

    field: DateField
    value: str
    since_ms: int
    negated: bool = False


Term = TextTerm | Filter | DateFilter


@dataclass(frozen=True, slots=True)
class Query:
    """A parsed query: its terms in the order typed, and whether they are OR'ed (``any:1``)."""

    terms: tuple[Term, ...]
    any: bool = False

    @property
    def text_terms(self) -> tuple[TextTerm, ...]:
        return tuple(t for t in self.terms if isinstance(t, TextTerm))

    @property
    def ranked(self) -> bool:
        """True when some word or phrase must be found, so results sort by relevance."""
        return any(not t.negated for t in self.text_terms)

    def notebooks(self, *, negated: bool) -> tuple[str, ...]:
        """The values of the (negated or plain) ``notebook:`` filters."""
        return tuple(
            t.value
            for t in self.terms
            if isinstance(t, Filter) and t.kind is FilterKind.NOTEBOOK and t.negated is negated
        )


KNOWN_FILTERS: tuple[str, ...] = tuple(
    sorted(["any", "title", "body", *(k.value for k in FilterKind), *(d.value for d in DateField)])
)

_FILTER_HEAD = re.compile(r"([A-Za-z]+):")
MISSPELT_FILTER = 0.8
"""How close (``difflib``'s ratio) a ``name:`` must be to a filter's name to be taken for it
misspelt: ``tags``, ``notebok``, ``titel``, ``ids``, ``complete`` are; ``tab``, ``key``,
``std``, ``url`` and ``localhost`` are text."""
_ID_VALUE = re.compile(r"^[0-9A-Fa-f*]+$")
_DATE_FILTERS = frozenset(d.value for d in DateField)


@dataclass(frozen=True, slots=True)
class _Raw:
    name: str | None
    value: str
    negated: bool
    quoted: bool


def _has_word(text: str) -> bool:
    """Whether ``text`` holds something to find: a letter, a digit or a symbol (``✅``, ``€``)."""
    return any(c.isalnum() or is_symbol(c) for c in text)


def _read_quoted(query: str, i: int) -> tuple[str, int]:
    """The text between the quote at ``i`` and the next one (or the end, if it is never closed)."""
    end = query.find('"', i + 1)
    if end < 0:
        return query[i + 1 :], len(query)
    return query[i + 1 : end], end + 1


def _read_bare(query: str, i: int) -> tuple[str, int]:
    j = i
    while j < len(query) and not query[j].isspace():
        j += 1
    return query[i:j], j


def _misspelt_filter(name: str, token: str) -> QueryError | None:
    """The error for ``name:`` when it is close to a filter's name (a misspelt filter), else None:
    any other ``name:`` is text (``std::vector``, ``localhost:8080``)."""
    near = difflib.get_close_matches(name.lower(), KNOWN_FILTERS, n=2, cutoff=MISSPELT_FILTER)
    if not near:
        return None
    return QueryError(
        f'unknown filter "{name}:"; did you mean {" or ".join(f"{k}:" for k in near)}?',
        hint=f'to search for the text {token}, put it in double quotes: "{token}"',
    )


def _scan(query: str) -> list[_Raw]:
    """Split a query into raw terms, honouring quotes and the ``-`` of negation."""
    out: list[_Raw] = []
    i, n = 0, len(query)
    while i < n:
        if query[i].isspace():
            i += 1
            continue
        if query.startswith("--", i) and i + 2 < n and query[i + 2].isalnum():  # "--force": an option
            value, i = _read_bare(query, i)
            out.append(_Raw(None, value.lstrip("-"), False, quoted=False))
            continue
        negated = query[i] == "-" and i + 1 < n and not query[i + 1].isspace()
        if query[i] == "-":
            i += 1
            if not negated:
                continue
        if query[i] == '"':
            value, i = _read_quoted(query, i)
            out.append(_Raw(None, value, negated, quoted=True))
            continue
        head = _FILTER_HEAD.match(query, i)
        if head:
            name, j = head.group(1).lower(), head.end()
            if name in KNOWN_FILTERS:
                quoted = j < n and query[j] == '"'
                value, i = _read_quoted(query, j) if quoted else _read_bare(query, j)
                out.append(_Raw(name, value, negated, quoted))
                continue
            if j == n or query[j].isspace():  # a word the colon ends, as in prose ("psql: …")
                out.append(_Raw(None, head.group(1), negated, quoted=False))  # the word, not its colon
                i = j
                continue
            misspelt = _misspelt_filter(head.group(1), _read_bare(query, i)[0])
            if misspelt is not None:
                raise misspelt
        value, i = _read_bare(query, i)
        # "-f" is an option as a question writes it, not the exclusion of every note with an "f".
        out.append(_Raw(None, value, negated and (len(value) > 1 or is_symbol(value)), quoted=False))
    return out


def _text_term(raw: _Raw, field: TextField) -> TextTerm | None:
    """A word or phrase, or None when it holds no letter, digit or symbol (FTS would ignore it)."""
    text = without_presentation(raw.value).strip()
    starred = text.endswith("*")
    text = text.strip("*").strip() if not raw.quoted else text.rstrip("*").strip()
    # A one-letter word as a prefix would match nearly every note: match it whole unless starred.
    prefix = starred or (not raw.quoted and len(text) > 1)
    if not _has_word(text):
        return None
    longest = max(text.split(), key=len)
    if len(longest) > MAX_WORD_CHARS:
        raise QueryError(
            f'the word "{longest[:20]}…" is too long to search for ({len(longest):,} characters; '
            f"at most {MAX_WORD_CHARS} in one word)"
        )
    if not raw.quoted and "*" in text and not all(c.isalnum() or c == "*" for c in text):
        # A "*" inside "foo.b*r" cannot be one word of the index; treat it as a separator.
        text = text.replace("*", " ")
    return TextTerm(text, field, phrase=raw.quoted, prefix=prefix, negated=raw.negated)


def _choice(name: str, value: str, allowed: tuple[str, ...]) -> str:
    folded = value.strip().lower()
    if folded not in allowed:
        options = " or ".join(f"{name}:{a}" for a in allowed)
        raise QueryError(f'bad value "{value}" for filter "{name}:"; use {options}')
    return folded


def _filter(raw: _Raw, now: datetime | None) -> Term | None:
    """The term a ``name:value`` raw term stands for (``any:`` is handled by the caller)."""
    assert raw.name is not None
    name, value = raw.name, raw.value.strip()
    if not value:
        raise QueryError(f'filter "{name}:" needs a value, e.g. {_EXAMPLES[name]}')
    if name in ("title", "body"):
        term = _text_term(raw, TextField(name))
        if term is None:
            raise QueryError(
                f'filter "{name}:" needs a word with letters or digits (or a symbol such as ✅), not "{value}"'
            )
        return term
    if name in _DATE_FILTERS:
        return DateFilter(DateField(name), value, resolve_date(value, now), raw.negated)
    kind = FilterKind(name)
    if kind is FilterKind.TYPE:
        value = _choice(name, value, ("note", "todo"))
    elif kind is FilterKind.ISCOMPLETED:
        value = _choice(name, value, ("0", "1"))
    elif kind is FilterKind.RESOURCE and "/" not in value and value != "*":
        value = f"{value}/*"
    elif kind is FilterKind.ID and not _ID_VALUE.match(value):
        raise QueryError(f'bad note id "{value}" for filter "id:"; an id is 32 hexadecimal digits')
    return Filter(kind, value, raw.negated)


_EXAMPLES = {
    "any": "any:1",
    "title": "title:budget",
    "body": "body:budget",
    "tag": "tag:work",
    "notebook": 'notebook:"Work stuff"',
    "type": "type:todo",
    "iscompleted": "iscompleted:0",
    "created": "created:20240131",
    "updated": "updated:week-1",
    "due": "due:day+7",
    "sourceurl": "sourceurl:*example.com*",
    "resource": "resource:image/*",
    "id": "id:0123456789abcdef0123456789abcdef",
}


def parse_query(query: str, *, now: datetime | None = None) -> Query:
    """Parse a search query written in Joplin's grammar.

    Args:
        query: What the person typed.
        now: The moment relative dates (``day-1``) count from; default now, local time.

    Raises:
        QueryError: For an empty query, an unknown filter, a bad value or a bad date, or a query
            beyond the limits above; the message names the problem.
    """
    if not query.strip():
        raise QueryError("the search query is empty", hint='type words, "a phrase" or a filter like tag:work')
    check_query_size(query)
    raws = _scan(query)
    counted = sum(raw.name != "any" for raw in raws)  # ``any:`` is a mode, not a term
    if counted > MAX_TERMS:
        raise QueryError(
            f"the search query has too many terms ({counted:,}; at most {MAX_TERMS} words, phrases "
            "and filters)",
            hint="search for a few words that stand out",
        )
    terms: list[Term] = []
    any_mode = False
    for raw in raws:
        if raw.name == "any":
            if raw.negated:
                raise QueryError('filter "any:" cannot be negated; use any:0 or any:1')
            any_mode = _choice("any", raw.value, ("0", "1")) == "1"
            continue
        term = _text_term(raw, TextField.ALL) if raw.name is None else _filter(raw, now)
        if term is not None:
            terms.append(term)
    if not terms:
        hint = 'any: only says whether any term may match; add words, e.g. "any:1 budget travel"'
        only_any = bool(raws) and all(raw.name == "any" for raw in raws)  # "-" alone reads as none
        hint = hint if only_any else "words need at least one letter or digit, or a symbol such as ✅ or €"
        raise QueryError(f'nothing to search for in "{query.strip()}"', hint=hint)
    return Query(tuple(terms), any_mode)

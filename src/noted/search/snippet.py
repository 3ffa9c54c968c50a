"""Where a query's words occur in a note body: the first match, a snippet around it, its section.

This runs in Python on the few hits of a page, never on every match. Matching mimics the FTS5
``unicode61 remove_diacritics 2`` tokenizer closely enough to find what the index found: words
are runs of letters and digits, compared lower-cased and without diacritics, so ``cafe`` and
``café`` find each other here as they do in the index.
"""

from __future__ import annotations

import functools
import re
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass

from noted.markdown import Outline, Section, opening, outline
from noted.search.anywhere import unmarked
from noted.search.query import TextField, TextTerm
from noted.settings.handles import LARGE_NOTE_CHARS

SNIPPET_CHARS = 240
CONTEXT_BEFORE = 60
ELLIPSIS = "…"

_WORD = r"[^\W_]"
_SPACE = re.compile(r"\s+")


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


@functools.lru_cache(maxsize=4096)
def _fold_char(char: str) -> str:
    if unmarked(char):
        lower = char.lower()
        return lower if len(lower) == 1 else char
    base = "".join(c for c in unicodedata.normalize("NFD", char) if not unicodedata.combining(c)).lower()
    return base if len(base) == 1 else char


def fold(text: str) -> str:
    """``text`` lower-cased with diacritics removed, keeping its length (offsets stay valid)."""
    if text.isascii():
        return text.lower()
    # Only the non-ASCII characters are looked up (a dict-driven ``str.translate`` looks up every
    # character: 15 ms for the long pages of PostgreSQL's manual, with their curly quotes).
    return _NON_ASCII.sub(lambda m: _fold_char(m.group()), text).lower()


def words(text: str) -> list[str]:
    """The folded words of ``text`` as the index sees them."""
    return re.findall(rf"{_WORD}+", fold(text))


# Latin, Greek, Cyrillic and Latin Extended Additional: where letters carry diacritics.
_ACCENTED_RANGES = (range(0xC0, 0x250), range(0x370, 0x530), range(0x1E00, 0x1F00))


@functools.lru_cache(maxsize=1)
def _variants() -> dict[str, str]:
    """For each folded letter, the lower-case letters with diacritics that fold to it."""
    groups: dict[str, set[str]] = {}
    for block in _ACCENTED_RANGES:
        for code in block:
            char = chr(code).lower()
            base = _fold_char(char)
            if base != char:
                groups.setdefault(base, set()).add(char)
    return {base: "".join(sorted(chars)) for base, chars in groups.items()}


def _letters(token: str) -> str:
    """A regex for a folded token that matches it with or without diacritics (used IGNORECASE).

    Matching the body as it is, rather than folding the whole body first, keeps this cheap.
    """
    variants = _variants()
    return "".join(f"[{re.escape(c + variants[c])}]" if c in variants else re.escape(c) for c in token)


def glob_pattern(text: str) -> str:
    """A GLOB pattern finding ``text`` anywhere, whatever the case and diacritics of its letters
    (as the index compares words: "ärger" finds "Ärger"), ``*`` standing for any run."""
    variants = _variants()
    out = []
    for c in fold(text):
        letters = {c, *variants.get(c, "")}
        letters |= {u for v in letters for u in [v.upper()] if len(u) == 1}
        if c == "*":
            out.append(c)
        elif len(letters) > 1 or c in "?[":
            out.append("[" + "".join(sorted(letters)) + "]")
        else:
            out.append(c)
    return "*" + "".join(out) + "*"


def _term_regex(term: TextTerm) -> str | None:
    if term.substring:  # anywhere, as the SQL finds it (``*``: any run; ``glob_pattern``)
        return ".*?".join(_letters(fold(p)) for p in term.text.split("*"))
    if term.infix:
        parts = [_letters(p) for p in fold(term.text).split("*") if p]
        return "".join(f"{p}{_WORD}*" for p in parts) if parts else None
    tokens = words(term.text)
    if not tokens:
        return None
    head = r"[\W_]+".join(_letters(t) for t in tokens)
    return head + (f"{_WORD}*" if term.prefix else rf"(?!{_WORD})")


def body_pattern(terms: Iterable[TextTerm]) -> re.Pattern[str] | None:
    """One regex for the words and phrases that must be found in a body (None when there are none)."""
    shown = [t for t in terms if not t.negated and t.field is not TextField.TITLE]
    alternatives = [r for t in shown if not t.substring for r in [_term_regex(t)] if r is not None]
    inside = [r for t in shown if t.substring for r in [_term_regex(t)] if r]
    if not (alternatives or inside):
        return None
    starts = [rf"(?<!{_WORD})(?:{'|'.join(alternatives)})"] if alternatives else []
    return re.compile("|".join(starts + inside), re.IGNORECASE)


def first_match(body: str, pattern: re.Pattern[str] | None) -> int | None:
    """The offset of the first match of ``pattern`` in ``body``, or None."""
    if pattern is None or not body:
        return None
    found = pattern.search(body)
    return found.start() if found else None


def _cut_start(text: str) -> str:
    """``text`` without its first (probably partial) word."""
    space = text.find(" ")
    return text[space + 1 :] if 0 <= space < len(text) - 1 else text


def _cut_end(text: str) -> str:
    """``text`` without its last (probably partial) word."""
    space = text.rfind(" ")
    return text[:space] if space > 0 else text


def make_snippet(body: str, offset: int | None, width: int = SNIPPET_CHARS) -> str:
    """About ``width`` characters of ``body`` around ``offset``, whitespace collapsed.

    A little context comes before the match; the text is cut between words and ``…`` marks
    each cut. Without an offset the snippet is the start of the body.
    """
    at = offset or 0
    start = max(0, at - CONTEXT_BEFORE * 4)
    before = _SPACE.sub(" ", body[start:at]).lstrip()
    cut_before = start > 0 or len(before) > CONTEXT_BEFORE
    if cut_before:
        before = _cut_start(before[-CONTEXT_BEFORE:])
    room = width - len(before)
    end = min(len(body), at + room * 4)
    after = _SPACE.sub(" ", body[at:end])
    cut_after = end < len(body) or len(after) > room
    if len(after) > room:
        after = _cut_end(after[: room + 1])
    text = (before + after).strip()
    if not text:
        return ""
    return (ELLIPSIS if cut_before else "") + text + (ELLIPSIS if cut_after else "")


@dataclass(frozen=True, slots=True)
class Located:
    """Where a hit's first body match is: its snippet and the innermost section around it."""

    snippet: str
    section: str | None
    section_heading: str | None


_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_HEADING_LIKE = re.compile(r"^ {0,3}(?:#{1,6}(?:[ \t]|$)|=+[ \t]*$|-+[ \t]*$)", re.MULTILINE)


def _cached_section(body: str, offset: int, key: OutlineKey) -> Section | None:
    # No quick check for headings here: scanning a long body up to the match cost more than
    # the cached outline's lookup. Path and heading are those of section_at (its quick answer
    # differs only in the end offsets of section "0", which locate does not use).
    return OUTLINES.get(key, body).at(offset)


def section_at(body: str, offset: int) -> Section | None:
    """``outline(body).at(offset)``, parsing the body only up to the end of the offset's paragraph.

    Which section holds ``offset`` depends only on the headings before it; the paragraph around
    it is kept whole because a setext underline (``===``) below it would make it a heading.
    """
    blank = _BLANK_LINE.search(body, offset)
    text = body[: blank.start() + 1] if blank else body
    if not _HEADING_LIKE.search(text):  # no heading can start before offset: skip the parse
        return Section("0", 0, "", 0, 0, len(body), len(body)) if body[: offset + 1].strip() else None
    return outline(text).at(offset)


OutlineKey = Hashable
"""What names one version of a body, e.g. ``(note id, updated_time, length)``."""
OUTLINES_KEPT = 2048


class OutlineCache:
    """Outlines of note bodies by version, so a search does not parse its hits' Markdown again.

    Parsing was ~95 % of a search's time on a manual of long pages; a body's outline changes only
    with the body, so a key naming the version (note id, update time and length) is enough.
    Bounded (least recently used go first) and safe to share between threads.
    """

    def __init__(self, size: int = OUTLINES_KEPT) -> None:
        self.size = size
        self._outlines: OrderedDict[OutlineKey, Outline] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: OutlineKey, body: str) -> Outline:
        """The outline of ``body``, the version ``key`` names."""
        with self._lock:
            found = self._outlines.get(key)
            if found is not None:
                self._outlines.move_to_end(key)
                return found
        parsed = outline(body)  # outside the lock: other threads' hits need not wait for it
        with self._lock:
            self._outlines[key] = parsed
            while len(self._outlines) > self.size:
                self._outlines.popitem(last=False)
        return parsed

    def __len__(self) -> int:
        return len(self._outlines)


OUTLINES = OutlineCache()
"""The process's cache, shared by every search."""


def locate(
    body: str,
    pattern: re.Pattern[str] | None,
    key: OutlineKey | None = None,
    *,
    part: int = LARGE_NOTE_CHARS.default,
) -> Located:
    """The snippet and section of a body for the words in ``pattern``.

    With no match in the body (a title-only match, or a query of filters only) the snippet is the
    start of the body and there is no section. With ``key`` (naming this version of the body) the
    body's outline comes from ``OUTLINES``, parsed once per version. A body longer than ``part``
    (``notes.largeNoteChars``) has sections in its opening only, as the reader shows it: parsing
    all of a 39 MB note for one hit's section took 40 s.
    """
    offset = first_match(body, pattern)
    if offset is None:
        return Located(make_snippet(body, None), None, None)
    if len(body) > part:
        shown = opening(body, part)
        section = section_at(shown, offset) if offset < len(shown) else None
    else:
        section = section_at(body, offset) if key is None else _cached_section(body, offset, key)
    if section is None:
        return Located(make_snippet(body, offset), None, None)
    return Located(make_snippet(body, offset), section.path, section.heading)

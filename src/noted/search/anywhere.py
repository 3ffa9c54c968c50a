"""Characters the index makes no word of on its own, so that a term holding them is found anywhere.

FTS5's ``unicode61`` tokenizer keeps a run of Chinese, Japanese or Korean as one word (they are
written without spaces), and makes no word at all of a symbol (``✅``, ``🎉``, ``→``, ``€``): it
separates words as punctuation does. A term holding either is matched as a substring of the
title and body instead (``noted.search.query.TextTerm.substring``), as Joplin matches CJK.

A symbol is any character of Unicode's symbol categories (``S*``) beyond ASCII: emoji, arrows,
currency, mathematical and other signs. ASCII's own (``+ $ = < > | ~ ^```) stay separators,
as punctuation does: they are how code and prose join words (``C++``, ``a+b``, ``$HOME``,
``key=value``), which are found by their words and ranked as before. Neither kind has case or
diacritics, and all but a few symbols (``Ⓐ``) no case.
"""

from __future__ import annotations

import functools
import re
import unicodedata

CJK = re.compile(
    "[\u1100-\u11ff\u2e80-\u2fdf\u3005-\u3007\u3040-\u30ff\u3100-\u318f\u31a0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\uff66-\uff9f"
    "\U00020000-\U000323af]"
)  # Han, Hiragana, Katakana, Hangul and Bopomofo, with their extensions and half-width forms

_PRESENTATION = re.compile("[\ufe0e\ufe0f]")
"""Variation selectors asking for a character drawn as text or as emoji (``❤️`` is ``❤`` and
U+FE0F): a note may hold the character with or without one."""


@functools.lru_cache(maxsize=4096)
def is_symbol(char: str) -> bool:
    """A symbol the index makes no word of (see the module's docstring); False for a longer string
    (``"İ".lower()`` is two characters)."""
    return len(char) == 1 and not char.isascii() and unicodedata.category(char).startswith("S")


def unmarked(char: str) -> bool:
    """A character whose marks are its own, not diacritics to fold: of Chinese, Japanese or Korean
    (ガ is a letter of its own, as the index compares words), or a symbol (≠ is no "=" struck)."""
    return CJK.match(char) is not None or is_symbol(char)


def caseless(char: str) -> bool:
    """An unmarked character without case either (not ``Ⓐ``): one ``LIKE`` compares exactly."""
    return unmarked(char) and char.lower() == char.upper()


def has_symbol(text: str) -> bool:
    """Whether ``text`` holds a symbol."""
    return any(is_symbol(c) for c in text if not c.isascii())


def found_anywhere(text: str) -> bool:
    """Whether a term of ``text`` is matched as a substring rather than by the index's words."""
    return CJK.search(text) is not None or has_symbol(text)


def caseless_runs(text: str) -> list[str]:
    """The runs of caseless characters in ``text`` (``LIKE`` finds them fast, as it compares them
    exactly)."""
    runs: list[str] = []
    run = ""
    for char in text:
        if caseless(char):
            run += char
        elif run:
            runs.append(run)
            run = ""
    return [*runs, run] if run else runs


def without_presentation(text: str) -> str:
    """``text`` without emoji or text presentation selectors, so ``❤️`` finds ``❤`` with or without."""
    return _PRESENTATION.sub("", text)

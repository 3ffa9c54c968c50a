"""How a query's words are read before the arms run: as typed, mended, and perhaps also in English.

The query as typed is always searched. A word no note holds is taken for a misspelling and its
closest indexed word is searched beside it (``noted.search.fuzzy``). A query taken for Spanish,
German or French (``noted.search.translate``) is searched in English *as well*: the semantic arm
embeds both and a passage counts by the closer of the two, and the keyword arm ORs the English
words beside the typed ones. So a translation can add notes but never take away the ones the
query as typed finds by meaning: an English query with a loanword that the glossary reads as
Spanish ("piña colada recipe") still finds what it finds untranslated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from noted.search.keyword import KeywordSearch
from noted.search.results import Mode, Reading
from noted.search.snippet import fold
from noted.search.translate import Translation, to_english

_WORDS = re.compile(r"[^\W\d_]+")


@dataclass(frozen=True, slots=True)
class Words:
    """A query's text as the arms search it."""

    texts: tuple[str, ...]
    """What the semantic arm embeds: the text, misspellings mended, then its English if any."""
    extra_words: tuple[str, ...] = ()
    """Words the keyword arm ORs beside the typed ones: the English, and the mended words."""
    translation: Translation | None = None
    corrections: dict[str, str] = field(default_factory=dict)

    def reading(self, mode: Mode, relevance: str, *, keyword_only: str | None = None) -> Reading:
        """How the query was read, for the results."""
        return Reading(mode, relevance, self.translation, self.corrections, keyword_only)


def read_words(text: str, keyword: KeywordSearch, *, translate: bool = True) -> Words:
    """How ``text`` (the query's ranking words, filters taken out) is searched.

    Args:
        text: The words as typed.
        keyword: The keyword search, for the notes' own words.
        translate: Whether a query in another language is also searched in English
            (``search.translate``).
    """
    translation = to_english(text, keyword) if translate else None
    if translation is None:
        fixes = keyword.corrections(text.split())
        return Words((_mended(text, fixes),), tuple(fixes.values()), None, fixes)
    # The typed words are searched as typed: a foreign word is no misspelling of an English one.
    fixes = keyword.corrections(translation.text.split())
    english = _mended(translation.text, fixes)
    texts = (text,) if fold(english) == fold(text) else (text, english)
    extra = (*_WORDS.findall(translation.text), *fixes.values())  # words only: no grammar in them
    return Words(texts, extra, translation, fixes)


def _mended(text: str, fixes: dict[str, str]) -> str:
    return " ".join(fixes.get(fold(w), w) for w in text.split()) if fixes else text

"""English words that a Spanish, German or French word the glossary lacks may be, by its ending.

Technical words of these languages are mostly English ones with the language's endings:
"materializadas" is *materialized*, "particiones" *partitions*, "Replikation" *replication*,
"automatiquement" *automatically*. The glossary (``noted.search.translate``) holds the 3,600
commonest words of manual pages; past it, a word is tried with its ending swapped for the English
ones it stands for, and a candidate counts only when the notes hold it (the caller checks): that
way a rule that makes a word no one writes does no harm, and the notes say which candidate is
meant. ``tests/bench/cognate_check.py`` measures the rules against the glossary itself: how often
a candidate that is an English word of it is the word the glossary gives.

Words are folded (lower case, no diacritics: "ción" is "cion", "ität" is "itat").
"""

from __future__ import annotations

MIN_WORD = 7
"""The shortest word tried: shorter ones are too often false friends ("dato" is not *date*, "capa"
not *cap*). Of the glossary's own words of 7 letters or more, 95 % of the Spanish, 94 % of the
French and 96 % of the German ones the rules answer are answered right (``cognate_check.py``;
89 % with every length, 93 % from 6 letters, 96 % from 8)."""
MIN_ROOT = 3
"""The fewest letters left before an ending swapped (no rule turns "dado" into *ded*)."""

_RULES: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "es": (
        ("ciones", ("tions",)),
        ("cion", ("tion",)),
        ("siones", ("sions",)),
        ("sion", ("sion",)),
        ("dades", ("ties",)),
        ("dad", ("ty",)),
        ("izadas", ("ized",)),
        ("izados", ("ized",)),
        ("izada", ("ized",)),
        ("izado", ("ized",)),
        ("izar", ("ize",)),
        ("amente", ("ally", "ly")),
        ("mente", ("ly",)),
        ("adas", ("ed", "ated")),
        ("ados", ("ed", "ated")),
        ("ada", ("ed", "ated")),
        ("ado", ("ed", "ated")),
        ("idas", ("ed",)),
        ("idos", ("ed",)),
        ("ida", ("ed",)),
        ("ido", ("ed",)),
        ("icos", ("ic", "ical", "ics")),
        ("icas", ("ic", "ical", "ics")),
        ("ico", ("ic", "ical")),
        ("ica", ("ic", "ical", "ics")),
        ("ivos", ("ive", "ives")),
        ("ivas", ("ive", "ives")),
        ("ivo", ("ive",)),
        ("iva", ("ive",)),
        ("encias", ("ences", "encies")),
        ("encia", ("ence", "ency")),
        ("ancias", ("ances", "ancies")),
        ("ancia", ("ance", "ancy")),
        ("entes", ("ents",)),
        ("ente", ("ent",)),
        ("antes", ("ants",)),
        ("ante", ("ant",)),
        ("istas", ("ists",)),
        ("ista", ("ist",)),
        ("osos", ("ous",)),
        ("osas", ("ous",)),
        ("oso", ("ous",)),
        ("osa", ("ous",)),
        ("ales", ("als",)),
        ("ias", ("ies",)),
        ("ia", ("y",)),
        ("ar", ("ate", "e", "")),
        ("ir", ("e", "")),
        ("os", ("s",)),
        ("as", ("s",)),
        ("es", ("s", "es")),
        ("o", ("", "e")),
        ("a", ("", "e")),
    ),
    "fr": (
        ("ites", ("ities",)),
        ("ite", ("ity",)),
        ("iques", ("ics", "ical")),
        ("ique", ("ic", "ical", "ics")),
        ("isees", ("ized",)),
        ("isee", ("ized",)),
        ("ises", ("ized",)),
        ("ise", ("ized",)),
        ("iser", ("ize",)),
        ("iquement", ("ically",)),
        ("ement", ("ly", "ment")),
        ("ees", ("ed", "ated")),
        ("ee", ("ed", "ated")),
        ("es", ("ed", "ated", "es", "s")),
        ("er", ("e", "ate", "")),
        ("eurs", ("ors", "ers")),
        ("eur", ("or", "er")),
        ("ives", ("ive", "ives")),
        ("ive", ("ive",)),
        ("ifs", ("ives",)),
        ("if", ("ive",)),
        ("aires", ("aries",)),
        ("aire", ("ary",)),
        ("elles", ("al",)),
        ("elle", ("al",)),
        ("els", ("als",)),
        ("el", ("al",)),
        ("euses", ("ous",)),
        ("euse", ("ous",)),
        ("eux", ("ous",)),
        ("ies", ("ies",)),
        ("ie", ("y",)),
        ("e", ("ed", "ate", "")),
    ),
    "de": (
        ("ierungen", ("ations", "izations")),
        ("ierung", ("ation", "ization")),
        ("ierten", ("ated", "ed", "ized")),
        ("ierte", ("ated", "ed", "ized")),
        ("iert", ("ated", "ed", "ized")),
        ("ieren", ("ate", "e", "ize")),
        ("itaten", ("ities",)),
        ("itat", ("ity",)),
        ("ischen", ("ic", "ical")),
        ("ische", ("ic", "ical")),
        ("isch", ("ic", "ical")),
        ("ellen", ("al",)),
        ("elle", ("al",)),
        ("ell", ("al",)),
        ("iven", ("ive",)),
        ("ive", ("ive",)),
        ("iv", ("ive",)),
        ("ismus", ("ism",)),
        ("ionen", ("ions",)),
        ("ion", ("ion",)),
        ("ik", ("ics", "ic")),
        ("ien", ("ies",)),
        ("ie", ("y",)),
        ("en", ("", "s", "e")),
        ("e", ("", "es")),
        ("n", ("", "s")),
    ),
}
"""By language, a word's ending and the English endings it may stand for, longest first."""


def candidates(code: str, word: str, min_word: int = MIN_WORD) -> list[str]:
    """The English words ``word`` (folded, of language ``code``) may be, likeliest first: each
    ending of the language it has, longest first, swapped for the English ones (and for German,
    each also spelt with c for its k and z); none for a word shorter than ``min_word``."""
    if len(word) < min_word:
        return []
    out: dict[str, None] = {}
    for ending, english in _RULES.get(code, ()):
        root = word[: len(word) - len(ending)]
        if word.endswith(ending) and len(root) >= MIN_ROOT:
            out.update(dict.fromkeys(root + e for e in english))
    if code == "de":
        # German writes k and z where English writes c: Konfiguration, Replikation, Lizenz.
        for candidate in list(out):
            out.setdefault(candidate.replace("k", "c").replace("z", "c"), None)
    out.pop(word, None)
    return list(out)

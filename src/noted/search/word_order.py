"""English word order for a query translated from Spanish or French: adjectives before nouns.

Spanish and French put most adjectives after their noun ("índices parciales", "réplication
logique"); English puts them before. ``noted.search.translate`` translates word by word, so
without this the English searched would read *index partial*. The model reads word order (the
evaluation's "view materialized" ranks the pages on materialized views differently from
"materialized view"), and the person reads the English shown. A word is taken for an adjective
by its endings in both languages, no dictionary of parts of speech being at hand.
"""

from __future__ import annotations

from typing import NamedTuple

from noted.search.senses import Senses


class Slot(NamedTuple):
    """A word or phrase of the query and its English senses."""

    senses: Senses
    start: int
    """Its first word's place among the query's words (function words counted)."""
    end: int
    typed: str
    """The word as typed, for a slot of one word ('' for a phrase)."""


ADJECTIVE_ENDINGS = {
    "es": (
        "ado", "ada", "ados", "adas", "ido", "ida", "idos", "idas", "al", "ales", "ico", "ica", "icos",
        "icas", "ivo", "iva", "ivos", "ivas", "ble", "bles", "ario", "aria", "arios", "arias", "oso",
        "osa", "osos", "osas",
    ),
    "fr": (
        "é", "ée", "és", "ées", "el", "elle", "els", "elles", "al", "ale", "aux", "ales", "ique",
        "iques", "if", "ive", "ifs", "ives", "able", "ables", "ible", "ibles", "aire", "aires",
    ),
}  # fmt: skip
"""Endings of Spanish and French adjectives (as typed, lower case), which follow their noun."""
ENGLISH_ADJECTIVE_ENDINGS = (
    "ed", "al", "ic", "ive", "ble", "ary", "ous", "ent", "ant", "ar", "ful", "less",
)  # fmt: skip
"""Endings of English adjectives: a word translated to one of these is taken for an adjective."""
MIN_ROOT = 3
"""The fewest letters before an adjective's ending: "table" (French and English) is no *t-able*."""


def english_order(code: str, slots: list[Slot], english: list[str]) -> list[str]:
    """``english`` (one word or phrase a slot) with each Spanish or French adjective put before
    the noun it follows, as English has it ("vistas materializadas": *materialized view*, not
    *view materialized*): a word of an adjective's ending in the language (``ADJECTIVE_ENDINGS``)
    whose English has one too, right after a word that is no such adjective."""
    if code not in ADJECTIVE_ENDINGS:
        return english
    out = list(english)
    i = 1
    while i < len(slots):
        before, slot = slots[i - 1], slots[i]
        if (
            before.end == slot.start
            and _adjective(code, slot, out[i])
            and not _adjective(code, before, out[i - 1])
        ):
            out[i - 1], out[i] = out[i], out[i - 1]
            i += 1  # the noun moved on: it cannot take the next adjective too
        i += 1
    return out


def _adjective(code: str, slot: Slot, english: str) -> bool:
    """Whether a slot of one word is an adjective by its ending, as typed and in English."""
    return (
        bool(slot.typed)
        and " " not in english
        and _ends_as(slot.typed.lower(), ADJECTIVE_ENDINGS[code])
        and _ends_as(english.lower(), ENGLISH_ADJECTIVE_ENDINGS)
    )


def _ends_as(word: str, endings: tuple[str, ...]) -> bool:
    return any(word.endswith(e) and len(word) - len(e) >= MIN_ROOT for e in endings)

"""Queries in Spanish, German or French over English notes: a glossary turns them into English.

Neither packaged embedding model understands a Spanish, German or French query well enough to
find the English note that answers it (``tests/bench/README.md``: nDCG@10 0.24 for noted's model,
0.28 for multilingual-e5-small), and no package carries a translation model that runs offline. So
the query's words are looked up in a glossary written for noted (``glossary/``: the 3,600 most
widespread English words of Linux's manual pages, their base forms and a few hundred two-word
terms, with the Spanish, German and French words a person would type for each, multiword ones such
as "copia de seguridad" for *backup* included; ``tests/bench/glossary_words.py`` chose the English).
"deshacer el último commit" is searched as "undo last commit", "Fremdschlüssel anlegen" as
"foreign key create".

A query is taken for one of the three languages when two of its words are signs of it, or one is
and no word is English: a letter of its own ("é", "ß"), or, for a word that is no English word,
a function word of the language ("el", "auf", "une"), a glossary word as written or by its stem,
(German) a compound of two glossary words, or a word whose ending makes it a word the notes hold
("materializadas": *materialized*; ``noted.search.cognates``). An English word the language has
too ("vistas", "general") is English, unless a strong sign of the language stands beside it: a
letter of its own or a cognate, which no English word gives ("vistas materializadas" is Spanish;
"roses spring" stays English though "spring" is a German form). Words are compared folded (lower
case, no diacritics, so "ultimo" is "último") and, when the word as written is not in the
glossary, stemmed by the language's Snowball stemmer ("cambios" is "cambio"); phrases first,
longest first. Function words are dropped; a word the glossary lacks is its cognate the notes
hold, else stays as typed ("commit", a name). A word of several senses takes the one that goes
with the query's other words in the notes (``noted.search.senses``: "supprimer des lignes" is
*delete rows*, "supprimer un index" *drop index*), else the one the notes hold most. A Spanish or
French adjective is put before the noun it follows, as English has it ("índices parciales":
*partial index*); the model reads word order, and the person reads the English shown.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from importlib import resources

import snowballstemmer  # type: ignore[import-untyped]

from noted.search import cognates
from noted.search.languages import (
    ENGLISH_FUNCTION_WORDS,
    SIGNS_PER_ENGLISH_WORD,
    against,
    english_vocabulary,
    written_in_english,
)
from noted.search.query import MAX_QUERY_CHARS
from noted.search.senses import NoteWords, Senses, choose, english_stem
from noted.search.snippet import fold
from noted.search.word_order import Slot, english_order

LANGUAGES = {"es": "spanish", "de": "german", "fr": "french"}
"""The languages translated, by code, with the Snowball stemmer of each."""
MAX_PHRASE = 4
"""The most words of a glossary phrase."""
STEMS_KEPT = 1 << 16
"""Words whose stems each stemmer remembers (the glossary's own take about 10,000)."""
SIGNS_PER_ENGLISH = 0.5
"""Signs of the language must outnumber half the query's English words: a long English sentence
often holds two glossary words ("the schema owner"). ``translate_check.py --few-notes``: 68 of
9,533 English texts taken without it, 5 at a half; every foreign query still taken."""
MIN_HELD = 2
"""Notes that must hold a word for it to count as the notes' own word, not a sign of a language."""
MIN_STEMMED = 5
"""The shortest word taken for a sign of a language by its stem alone."""
MIN_COMPOUND_PART = 4
"""The shortest part of a German compound tried as a glossary word."""

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")

_LETTERS = {"es": "áéíóúñ¿¡", "de": "äöüß", "fr": "éèêëàâîïôûùçœ"}
"""Letters of each language that English words do not have."""


@dataclass(frozen=True, slots=True)
class Translation:
    """A query in another language and the English words searched for it."""

    language: str
    """The language it was taken for: ``es``, ``de`` or ``fr``."""
    text: str
    """The English words, in the query's order (a word the glossary lacks kept as typed)."""


@dataclass(frozen=True, slots=True)
class _Glossary:
    phrases: dict[tuple[str, ...], Senses]
    """A folded word or phrase of the language, as written and stemmed, to the English words it
    translates, each with how much later it is listed for it than for its best (0 for those where
    it is listed soonest, first for most), best first, commoner English words first."""
    forms: frozenset[str]
    """Every folded word of the glossary's entries, unstemmed, for telling the language apart."""
    stop: frozenset[str]
    """The language's function words, folded."""


def to_english(text: str, notes: NoteWords | None = None) -> Translation | None:
    """``text`` in English when it is a query in Spanish, German or French, else None.

    With ``notes``, a word the notes hold is their own and no sign of another language ("schema",
    "handshake", "en" of "en_US"), which keeps English text from being taken for German or
    Spanish (none of 9,533 headings, sentences and titles of the evaluation's corpora is, against
    85 without it); a word the glossary lacks may be a cognate of one the
    notes hold; and a word with several English senses ("supprimer": suppress, drop, remove,
    delete) is given the one that shares the most notes with the query's other words, else the
    one the notes hold most (a word of its stem in the most notes): the notes say which sense they
    are about. Without ``notes``, or on a tie, the glossary's first, and no cognates.
    """
    if len(text) > MAX_QUERY_CHARS:
        return None  # the search refuses it, saying why; nothing to translate
    tokens = [m.group(0) for m in _WORD.finditer(text)]
    if not tokens:
        return None
    folded = [fold(t).replace("’", "'") for t in tokens]
    # A word the notes hold is theirs, whatever else it is ("schema", "superuser"): no sign that
    # the query is in another language than the notes.
    theirs: Mapping[str, int] = (
        notes.word_counts(sorted({w for w in folded if len(w) > 1 and not _english(w)})) if notes else {}
    )
    found = _cognates(folded, theirs, notes) if notes else {}
    evidence = {
        code: sum(
            1
            for typed, w in zip(tokens, folded, strict=True)
            if len(w) > 1
            and theirs.get(w, 0) < MIN_HELD
            and (_of_language(code, typed, w) or (code, w) in found)
        )
        for code in LANGUAGES
    }

    # Two signs of the language, or one in a query with no English word: a single sign among
    # English words is more likely a name or a misspelling, left to the spelling correction;
    # and more signs than half the English words (``SIGNS_PER_ENGLISH``). An English word the
    # language has too ("vistas", "general") counts as English unless a strong sign stands beside
    # it (``_strong``): "vistas materializadas" is Spanish, "prune roses spring" not German.
    english = {code: _english_words(code, tokens, folded, theirs, found) for code in LANGUAGES}
    likely = {
        code: n
        for code, n in evidence.items()
        if (n >= 2 or not english[code]) and n > english[code] * SIGNS_PER_ENGLISH
    }
    # Confidently the language only (noted.search.languages: "piña colada recipe" is English).
    likely = {code: n for code, n in likely.items() if _confident(code, folded, n)}
    if not likely:
        return None
    most = max(likely.values())
    # Languages as likely as each other ("la base de données": "la", "de" and "é" are Spanish
    # too): the one whose glossary leaves the fewest words untranslated.
    tied = {
        code: _translate(code, tokens, folded, {w: e for (c, w), e in found.items() if c == code})
        for code, n in likely.items()
        if n == most
    }
    code = min(tied, key=lambda c: sum(1 for slot in tied[c] if slot.senses[0][0] in tokens))
    slots = tied[code]
    if not slots:
        return None
    chosen = choose([slot.senses for slot in slots], notes)
    words = " ".join(english_order(code, slots, chosen))
    if fold(words) == fold(" ".join(tokens)):
        return None  # nothing was translated ("José García"): the query is searched as typed
    return Translation(code, words)


def _confident(code: str, folded: list[str], signs: int) -> bool:
    stop = _glossary(code).stop
    english = written_in_english(folded, stop, partial(_translates, code))
    return not against(folded, stop) and english * SIGNS_PER_ENGLISH_WORD <= signs


def warm() -> None:
    """Load the glossaries now (about 0.2 s), so the first query in another language need not."""
    _english_stems(), _shared_forms(), english_vocabulary(), *(_glossary(code) for code in LANGUAGES)


def _english_words(
    code: str,
    tokens: list[str],
    folded: list[str],
    theirs: Mapping[str, int],
    found: Mapping[tuple[str, str], str],
) -> int:
    """How many of the query's words count as English against ``code``: every English word, but
    for one the language's glossary has (as written or by stem) when the query holds a strong sign
    of it that the notes do not hold."""
    strong = any(
        _strong(code, typed, w, found)
        for typed, w in zip(tokens, folded, strict=True)
        if len(w) > 1 and theirs.get(w, 0) < MIN_HELD
    )
    return sum(1 for w in folded if _english(w) and not (strong and _translates(code, w)))


def _strong(code: str, typed: str, word: str, found: Mapping[tuple[str, str], str]) -> bool:
    """A sign no English word gives: a letter of the language's own, or a word the glossary lacks
    whose ending makes it, by the language's grammar, an English word the notes hold (a cognate,
    ``noted.search.cognates``). A glossary word or stem is weaker: "spring" is German too."""
    return (code, word) in found or any(c in _LETTERS[code] for c in typed.lower())


def _of_language(code: str, typed: str, word: str) -> bool:
    """Whether a word is a sign of the language: a letter of its own ("réplication", "löschen"),
    or, when it is no English word, one of its function words, glossary words or (German) a
    compound of two glossary words."""
    if any(c in _LETTERS[code] for c in typed.lower()):
        return True
    if _english(word) or (len(typed) > 1 and typed.isupper()):
        return False  # an English word, or an acronym ("ID", "SQL") of any language
    if word in _shared_forms():
        return False  # "config", "commit", "login": the computing words all three use
    glossary = _glossary(code)
    return (
        word in glossary.stop
        or word in glossary.forms
        or _elided(word, glossary)
        or _stemmed(code, word)
        or _compound(code, word) is not None
    )


@functools.cache
def _shared_forms() -> frozenset[str]:
    """The words every glossary has (loanwords: no sign of one language)."""
    return frozenset.intersection(*(_glossary(code).forms for code in LANGUAGES))


def _stemmed(code: str, word: str) -> bool:
    """Whether ``word``'s stem is a glossary word's ("cambios" as "cambio"); not for a short word,
    whose stem is too often another word's ("must" is German "Muster"'s)."""
    return len(word) >= MIN_STEMMED and (_stemmer(code)(word),) in _glossary(code).phrases


def _cognates(folded: list[str], theirs: Mapping[str, int], notes: NoteWords) -> dict[tuple[str, str], str]:
    """By (language, word), the English word the notes hold that a word the glossary lacks is,
    by its ending ("materializadas": *materialized*; ``noted.search.cognates``): the candidate
    the most notes hold, at least ``MIN_HELD``."""
    tried: dict[tuple[str, str], list[str]] = {}
    for w in dict.fromkeys(folded):
        if len(w) < cognates.MIN_WORD or _english(w) or theirs.get(w, 0) >= MIN_HELD:  # spare the look-ups
            continue
        for code in LANGUAGES:
            if not _translates(code, w) and _compound(code, w) is None:
                # "subscribe" is no French word for *subscribed*: an English form of a word the
                # notes hold is English.
                found = [c for c in cognates.candidates(code, w) if english_stem(c) != english_stem(w)]
                if found:
                    tried[(code, w)] = found
    if not tried:
        return {}
    held = notes.word_counts(sorted({c for found in tried.values() for c in found}))
    out: dict[tuple[str, str], str] = {}
    for key, found in tried.items():
        best = max(found, key=lambda c: held.get(c, 0), default=None)
        if best is not None and held.get(best, 0) >= MIN_HELD:
            out[key] = best
    return out


def _translates(code: str, word: str) -> bool:
    """Whether the glossary has ``word`` (folded) as written or by its stem."""
    return bool(_senses(_glossary(code), (word,), (_stemmer(code)(word),)))


def _elided(word: str, glossary: _Glossary) -> bool:
    """A French elision ("d'une", "l'index") whose article is a function word."""
    head, _, rest = word.partition("'")
    return bool(rest) and head + "'" in glossary.stop


def _translate(code: str, tokens: list[str], folded: list[str], cognate: Mapping[str, str]) -> list[Slot]:
    """The English senses of each word or phrase of the query, in order (a word the glossary
    lacks as its English ``cognate``, else as typed; function words left out)."""
    glossary = _glossary(code)
    stem = _stemmer(code)
    # A French elision is two words: "d'une" is "d'" and "une".
    words: list[tuple[str, str]] = []  # (as typed, folded)
    for token, low in zip(tokens, folded, strict=True):
        head, _, rest = low.partition("'")
        if rest and head + "'" in glossary.stop:
            words.append((token[len(head) + 1 :], rest))
        else:
            words.append((token, low))
    stems = [stem(w) for _, w in words]
    out: list[Slot] = []
    i = 0
    while i < len(words):
        for size in range(min(MAX_PHRASE, len(words) - i), 0, -1):
            exact = tuple(w for _, w in words[i : i + size])
            found = _senses(glossary, exact, tuple(stems[i : i + size]))
            if found and (size > 1 or exact[0] not in glossary.stop):
                out.append(Slot(found, i, i + size, words[i][0] if size == 1 else ""))
                i += size
                break
        else:
            typed, low = words[i]
            if low not in glossary.stop:
                senses = _compound(code, low) or ((cognate.get(low, typed), 0),)
                out.append(Slot(senses, i, i + 1, typed))
            i += 1
    return out


def _senses(glossary: _Glossary, exact: tuple[str, ...], stems: tuple[str, ...]) -> Senses:
    """The senses of a word or phrase as written, else by its stems ("índice" is *index*, though
    its stem is also "indicar"'s)."""
    return glossary.phrases.get(exact) or glossary.phrases.get(stems, ())


def _compound(code: str, word: str) -> Senses | None:
    """A German compound the glossary lacks, as two of its words ("fremdschlussel": foreign key)."""
    if code != "de" or len(word) < 2 * MIN_COMPOUND_PART:
        return None
    glossary = _glossary(code)
    stem = _stemmer(code)
    for cut in range(MIN_COMPOUND_PART, len(word) - MIN_COMPOUND_PART + 1):
        head, tail = word[:cut], word[cut:]
        if _english(head) and _english(tail):
            continue  # "mergetool", "mailinfo": English run together, not German
        tail_en = _senses(glossary, (tail,), (stem(tail),))
        if not tail_en:
            continue
        # The linking letters of German compounds: Versionsnummer, Tabellenname, Datenbank (none).
        for joint in (head, head.removesuffix("s"), head.removesuffix("n"), head.removesuffix("en")):
            head_en = _senses(glossary, (joint,), (stem(joint),))
            if head_en and len(joint) >= MIN_COMPOUND_PART - 1:
                return ((f"{head_en[0][0]} {tail_en[0][0]}", 0),)
    return None


@functools.cache
def _stemmer(code: str) -> Callable[[str], str]:
    """The language's stemmer, remembering its words (in C through PyStemmer, a word takes about a
    microsecond; in snowballstemmer's Python, 50)."""
    return functools.lru_cache(maxsize=STEMS_KEPT)(snowballstemmer.stemmer(LANGUAGES[code]).stemWord)


@functools.cache
def _glossary(code: str) -> _Glossary:
    stem = _stemmer(code)
    stop = frozenset(fold(w) for w in _lines(f"{code}.stopwords.txt"))
    ranked: dict[tuple[str, ...], list[tuple[int, int, str]]] = {}
    forms: set[str] = set()
    for rank, (english, translations) in enumerate(_entries(code)):
        for place, phrase in enumerate(translations):
            words = [fold(w) for w in _WORD.findall(phrase.replace("’", "'"))]
            if not words or len(words) > 1 and (words[0] in stop or words[-1] in stop):
                continue  # "eine Datei" for *single file* would take every "einer Datei" for it
            forms.update(words)
            for key in {tuple(words), tuple(stem(w) for w in words)}:
                ranked.setdefault(key, []).append((place, rank, english))
    return _Glossary(
        {k: _ordered(v) for k, v in ranked.items()},
        frozenset(forms),
        stop,
    )


def _ordered(listed: list[tuple[int, int, str]]) -> Senses:
    """A word's senses from its (place, English word's rank, English word) listings: each English
    word once, at its soonest place, counted from the word's soonest of all; best first."""
    best = min(listed)[0]
    out: dict[str, int] = {}
    for place, _, english in sorted(listed):
        out.setdefault(english, place - best)
    return tuple(out.items())


def _entries(code: str) -> list[tuple[str, list[str]]]:
    """The glossary's lines: an English word and its translations, best first."""
    out: list[tuple[str, list[str]]] = []
    for line in _lines(f"{code}.tsv"):
        english, _, translations = line.partition("\t")
        if english and translations:
            out.append((english.strip(), [t.strip() for t in translations.split("|") if t.strip()]))
    return out


def _english(word: str) -> bool:
    """Whether ``word`` (folded) is an English function word or has the stem of a glossary's
    English word ("versions", "expire" for "expired"): such a word is no sign of another language."""
    return word in ENGLISH_FUNCTION_WORDS or english_stem(word) in _english_stems()


@functools.cache
def _english_stems() -> frozenset[str]:
    """The stems of the glossaries' English side."""
    return frozenset(english_stem(fold(e)) for code in LANGUAGES for e, _ in _entries(code))


def _lines(name: str) -> list[str]:
    text = resources.files("noted.search").joinpath("glossary", name).read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]

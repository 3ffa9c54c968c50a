"""Word lists that tell a query's language apart, besides the glossary's own.

- The English vocabulary noted already ships: the whole words of the default embedding model's
  WordPiece vocabulary (``noted.embeddings.model_spec.DEFAULT_TOKENIZER``), about 22,500, most of
  them English. A query word found there ("recipe", "prices") is English as written.
- The function words of languages noted does not translate (``UNTRANSLATED``), in
  ``glossary/<code>.stopwords.txt``: a query holding one is in that language, not in one of the
  three the glossary knows.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from importlib import resources

from noted.embeddings.model_spec import DEFAULT_TOKENIZER
from noted.search.snippet import fold

# Function words of English that are also words of the three languages' lists ("in", "an", "die",
# "also"), so that an English query is never taken for a foreign one on them.
ENGLISH_FUNCTION_WORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is it its itself
    just me more most my myself no nor not now of off on once only or other our ours ourselves out
    over own same she should so some such than that the their theirs them themselves then there these
    they this those through to too under until up very was we were what when where which while who
    whom why will with would you your yours yourself yourselves must might shall may need use""".split()
)

SIGNS_PER_ENGLISH_WORD = 4
"""A query is confidently in another language only when its signs of it are at least four times
its English words as written (``noted.search.languages.english_as_written``: "recipe", "calories", "reset"). English
text with a loanword or a name has one or two signs beside an English word ("piña colada
recipe", "Schwarzwälder Kirschtorte calories"); a question in French may hold an English word of
computing among five signs ("récupérer un commit perdu après un reset"). Over the 2,293 texts of
``tests/bench/loanwords.py``, 151 are taken for another language with the real notes of the Git
corpus (730 before; 295 at a ratio of 1, 161 at 3, 148 at 5), nearly all foreign phrases ("coup
d'état") or beside an English word the vocabulary lacks ("calories"). Every foreign query of the
evaluation and of its fresh set is still taken at 1 to 5; one is lost at 6 (the "reset" one
above). A rule set by one query's bound, so 4, short of it."""

UNTRANSLATED = ("pt", "it")
"""Languages close to the three whose queries the glossary would mistranslate ("banco de dados"
is no Spanish *bank given*): their function words mark a query as not in one of the three."""


def english_as_written(word: str) -> bool:
    """Whether ``word`` (folded) or its singular is a whole word of the English vocabulary noted
    ships with its default embedding model ("recipe", "prices", "vegetarian"; not "colada")."""
    vocabulary = english_vocabulary()
    forms = (word, word.removesuffix("s"), word.removesuffix("es"), word.removesuffix("ies") + "y")
    return any(f in vocabulary for f in forms if len(f) > 2)


@functools.cache
def english_vocabulary() -> frozenset[str]:
    """The whole words of the default model's WordPiece vocabulary (read once, about 20 ms)."""
    vocab = json.loads(DEFAULT_TOKENIZER.read_text(encoding="utf-8"))["model"]["vocab"]
    return frozenset(w for w in vocab if w.isalpha())


@functools.cache
def function_words(code: str) -> frozenset[str]:
    """The function words of a language noted does not translate (``glossary/<code>.stopwords.txt``)."""
    text = (
        resources.files("noted.search")
        .joinpath("glossary", f"{code}.stopwords.txt")
        .read_text(encoding="utf-8")
    )
    return frozenset(fold(w) for line in text.splitlines() if not line.startswith("#") for w in line.split())


def against(folded: list[str], stop: frozenset[str]) -> bool:
    """Whether a word of the query says it is not confidently in the language whose function
    words are ``stop``: a function word of English or of a language noted does not translate
    (``UNTRANSLATED``) that the language lacks."""
    return any(
        w not in stop
        and (
            w in ENGLISH_FUNCTION_WORDS or (len(w) > 1 and any(w in function_words(o) for o in UNTRANSLATED))
        )
        for w in folded
    )


def written_in_english(folded: list[str], stop: frozenset[str], translates: Callable[[str], bool]) -> int:
    """How many of the query's words are English as written and no word of the language (neither
    one of its function words ``stop`` nor one its glossary ``translates``)."""
    return sum(
        1 for w in folded if len(w) > 2 and w not in stop and english_as_written(w) and not translates(w)
    )

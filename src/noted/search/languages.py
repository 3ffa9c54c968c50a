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
from importlib import resources

from noted.embeddings.model_spec import DEFAULT_TOKENIZER
from noted.search.snippet import fold

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

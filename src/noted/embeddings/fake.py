"""A deterministic embedder for tests: hashed bags of words, no model, no randomness.

Each word (lower-cased, punctuation stripped) adds a signed one-hot at a position chosen by a
hash of the word; the sum is normalised. Texts that share words therefore get close vectors and
texts that share none get nearly orthogonal ones, so a semantic-search test that asks for "the
note about gardening" can really fail. Tokens are whitespace-separated runs of characters.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

import numpy as np

from noted.errors import UnavailableError

if TYPE_CHECKING:
    from noted.embeddings.protocol import Vectors

_TOKEN = re.compile(r"\S+")
_WORD_EDGES = re.compile(r"^\W+|\W+$")


class FakeEmbedder:
    """An :class:`~noted.embeddings.protocol.Embedder` made of hashed word features.

    Args:
        dim: Vector length; small dims make unrelated words collide more often.
        max_tokens: The pretend model's limit, in whitespace tokens.
        query_prefix: Prepended to queries (its words count like any others).
        passage_prefix: Prepended to passages.
        name: Part of ``model_id``, so tests can simulate a change of model.
    """

    def __init__(
        self,
        *,
        dim: int = 64,
        max_tokens: int = 128,
        query_prefix: str = "",
        passage_prefix: str = "",
        name: str = "fake",
    ) -> None:
        self._dim = dim
        self.max_tokens: Final = max_tokens
        self.query_prefix: Final = query_prefix
        self.passage_prefix: Final = passage_prefix
        self._name = name
        self._closed = False
        self.calls = 0
        """How many times an ``embed_*`` method ran, so tests can check what was re-embedded."""
        self.embedded: list[str] = []
        """Every text embedded so far (prefix included), in order."""

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def model_id(self) -> str:
        prefixes = f"{self.query_prefix!r}:{self.passage_prefix!r}"
        return f"fake:{self._name}:{self._dim}:{self.max_tokens}:{prefixes}"

    def count_tokens(self, text: str) -> int:
        return sum(1 for _ in _TOKEN.finditer(text))

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        return [match.span() for match in _TOKEN.finditer(text)]

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        return self._embed([self.passage_prefix + text for text in texts])

    def embed_query(self, text: str) -> Vectors:
        vector: Vectors = self._embed([self.query_prefix + text])[0]
        return vector

    def close(self) -> None:
        self._closed = True

    def _embed(self, texts: list[str]) -> Vectors:
        if self._closed:
            raise UnavailableError("the fake embedder was closed")
        self.calls += 1
        self.embedded.extend(texts)
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row] = self._vector(text)
        return out

    def feature(self, word: str) -> tuple[int, float] | None:
        """Where ``word`` lands in a vector and with which sign; None for a token with no word.

        Two words that share a position add up or cancel out: a test whose text holds a random
        word can pick one that shares no position with its other words, so its scores are fixed.
        """
        word = _WORD_EDGES.sub("", word.casefold())
        if not word:
            return None
        digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
        return int.from_bytes(digest[:4], "little") % self._dim, 1.0 if digest[4] & 1 else -1.0

    def _vector(self, text: str) -> Vectors:
        vector = np.zeros(self._dim, dtype=np.float32)
        for match in list(_TOKEN.finditer(text))[: self.max_tokens]:
            feature = self.feature(match.group())
            if feature is not None:
                vector[feature[0]] += feature[1]
        norm = float(np.linalg.norm(vector))
        if norm == 0.0:
            # No words: a fixed unit vector keeps every row unit-norm, as the protocol promises.
            vector[0] = 1.0
            return vector
        return vector / norm

"""The ``Embedder`` protocol: what the indexer, the chunker and semantic search may ask of a model.

Three kinds implement it: a local ONNX model (the packaged default or any model folder), an
OpenAI-compatible ``/v1/embeddings`` endpoint, and a deterministic fake for tests. They are built
by ``noted.embeddings.make_embedder`` from a kind name and options.

Vectors are numpy ``float32`` arrays with unit L2 norm, so a dot product is a cosine similarity and
the bytes go straight into sqlite-vec. An embedder is safe to use from several threads at once
(the indexer's thread and a search request); ``close`` ends that.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, TypeAlias, runtime_checkable

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Vectors: TypeAlias = npt.NDArray[np.float32]
    """A ``(n, dim)`` array (or ``(dim,)`` for one query) of unit-norm float32 rows."""


@runtime_checkable
class Embedder(Protocol):
    """A text embedding model and its tokenizer.

    Capabilities:
        model_id: A stable string naming the model *and every setting that changes its vectors*
            (weights, pooling, prefixes, maximum length, endpoint model name). Stored vectors carry
            it; when it changes the index is rebuilt, so vectors of two models are never compared.
        dim: The length of every vector.
        max_tokens: The most tokens of text the model reads in one input, the passage or query
            prefix included and the model's special tokens (``[CLS]``, ``[SEP]``) excluded. Text
            past it is cut off by the embedder, so the chunker keeps chunks within it.
        query_prefix / passage_prefix: Strings the model expects before a query or a passage
            (``"query: "`` / ``"passage: "`` for the e5 family, empty for MiniLM). The embedder
            adds them itself; callers pass bare text.
        count_tokens / token_spans: The model's own tokenization of bare text (no prefix, no
            special tokens), exact for local models and approximate (about 4 characters a token)
            for a remote endpoint, whose tokenizer is unknown.
    """

    @property
    def model_id(self) -> str: ...

    @property
    def dim(self) -> int: ...

    @property
    def max_tokens(self) -> int: ...

    @property
    def query_prefix(self) -> str: ...

    @property
    def passage_prefix(self) -> str: ...

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Embed passages (chunks of notes), with the passage prefix.

        Args:
            texts: Bare passages, in any order and of any length.

        Returns:
            A ``(len(texts), dim)`` float32 array whose row ``i`` is the unit vector of ``texts[i]``.
        """
        ...

    def embed_query(self, text: str) -> Vectors:
        """Embed one search query, with the query prefix; returns a ``(dim,)`` unit vector."""
        ...

    def count_tokens(self, text: str) -> int:
        """How many tokens ``text`` is, without prefix or special tokens."""
        ...

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        """The ``(start, end)`` character offsets in ``text`` of each of its tokens, in order."""
        ...

    def close(self) -> None:
        """Release the model (a session, a connection pool); the embedder is unusable after."""
        ...

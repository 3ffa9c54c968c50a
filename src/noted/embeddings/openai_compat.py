"""Embeddings from an OpenAI-compatible ``/v1/embeddings`` endpoint (Ollama, LM Studio, a hosted API).

Spoken with ``httpx`` directly: the request is one small JSON body, and only ``providers/`` may
import the OpenAI SDK. The same local/remote rule as chat applies: an endpoint whose host is not
loopback receives note text only when the person allowed it with ``ai.allowRemote``.

The endpoint's tokenizer is unknown here, so token counts are estimated at 4 characters a token
(about right for English with BPE tokenizers, generous for code) and ``token_spans`` cuts text into
4-character pieces. Keep ``max_tokens`` below the server's real limit to leave room for the error.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

import httpx
import numpy as np

from noted.endpoints import is_loopback_url
from noted.errors import ConfigError, ModelAwayError, UnavailableError

if TYPE_CHECKING:
    from noted.embeddings.protocol import Vectors

CHARS_PER_TOKEN = 4


class OpenAICompatEmbedder:
    """An :class:`~noted.embeddings.protocol.Embedder` that posts texts to ``{base_url}/embeddings``.

    Args:
        base_url: The API root, ``/v1`` included (``http://127.0.0.1:11434/v1`` for Ollama).
        model: The model name the server knows.
        api_key: Sent as a bearer token when given.
        allow_remote: The ``ai.allowRemote`` setting; needed for a host that is not loopback.
        dim: The vector length, when known; otherwise learnt from the first answer.
        max_tokens: The model's input limit, in estimated tokens.
        query_prefix: Prepended to queries (for e5-style models served remotely).
        passage_prefix: Prepended to passages.
        batch_size: Texts per request.
        timeout: Seconds to wait for each request.
        transport: An httpx transport, for tests (``httpx.MockTransport``).

    Raises:
        UnavailableError: The host is remote and ``allow_remote`` is false.
        ConfigError: ``base_url`` or ``model`` is missing.
    """

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        allow_remote: bool = False,
        dim: int | None = None,
        max_tokens: int = 512,
        query_prefix: str = "",
        passage_prefix: str = "",
        batch_size: int = 64,
        timeout: float = 60.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not base_url or not model:
            raise ConfigError("an embedding endpoint needs a base URL and a model name")
        if not is_loopback_url(base_url) and not allow_remote:
            raise UnavailableError(
                f"the embedding endpoint {base_url} is not on this machine",
                hint="set ai.allowRemote to true to send note text to it",
            )
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._base_url = base_url.rstrip("/")
        self._model = model
        self._client = httpx.Client(
            base_url=self._base_url + "/", headers=headers, timeout=timeout, transport=transport
        )
        self._dim = dim
        self.max_tokens: Final = max_tokens
        self.query_prefix: Final = query_prefix
        self.passage_prefix: Final = passage_prefix
        self._batch_size = max(1, batch_size)

    @property
    def model_id(self) -> str:
        # The key and the timeout do not change vectors; the host, model and prefixes do.
        prefixes = f":{self.query_prefix!r}:{self.passage_prefix!r}" if self._has_prefixes else ""
        return f"openai:{self._base_url}:{self._model}{prefixes}"

    @property
    def _has_prefixes(self) -> bool:
        return bool(self.query_prefix or self.passage_prefix)

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self._post(["dimension"]).shape[1])
        return self._dim

    def count_tokens(self, text: str) -> int:
        return math.ceil(len(text) / CHARS_PER_TOKEN)

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        step = CHARS_PER_TOKEN
        return [(i, min(i + step, len(text))) for i in range(0, len(text), step)]

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        prefixed = [self.passage_prefix + text for text in texts]
        if not prefixed:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [
            self._post(prefixed[i : i + self._batch_size]) for i in range(0, len(prefixed), self._batch_size)
        ]
        return np.concatenate(parts)

    def embed_query(self, text: str) -> Vectors:
        vector: Vectors = self._post([self.query_prefix + text])[0]
        return vector

    def close(self) -> None:
        self._client.close()

    def _post(self, texts: list[str]) -> Vectors:
        where = f"{self._base_url}/embeddings"
        payload = {"model": self._model, "input": texts, "encoding_format": "float"}
        try:
            response = self._client.post("embeddings", json=payload)
        except httpx.TimeoutException as exc:
            raise ModelAwayError(f"the embedding endpoint {where} did not answer in time") from exc
        except httpx.HTTPError as exc:
            raise ModelAwayError(f"cannot reach the embedding endpoint {where}: {exc}") from exc
        if response.status_code >= 500 or response.status_code == 429:  # its trouble, not the text's
            raise ModelAwayError(
                f"the embedding endpoint {where} answered {response.status_code}: {_excerpt(response)}"
            )
        if response.status_code in (401, 403):
            raise UnavailableError(
                f"the embedding endpoint {where} refused the request ({response.status_code})",
                hint="check the API key",
            )
        if response.is_error:
            raise UnavailableError(
                f"the embedding endpoint {where} answered {response.status_code}: {_excerpt(response)}",
                hint=f"check that it serves the model {self._model!r}",
            )
        vectors = _parse(response, len(texts), where)
        if self._dim is not None and vectors.shape[1] != self._dim:
            raise UnavailableError(
                f"the embedding endpoint {where} returned {vectors.shape[1]}-dimensional vectors, "
                f"expected {self._dim}"
            )
        return vectors


def _excerpt(response: httpx.Response) -> str:
    text = " ".join(response.text.split())
    return text[:200] + ("…" if len(text) > 200 else "")


def _parse(response: httpx.Response, expected: int, where: str) -> Vectors:
    try:
        body: Any = response.json()
        items = sorted(body["data"], key=lambda item: int(item.get("index", 0)))
        vectors = np.asarray([item["embedding"] for item in items], dtype=np.float32)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise UnavailableError(
            f"the embedding endpoint {where} answered something that is not an embeddings list: "
            f"{_excerpt(response)}"
        ) from exc
    if vectors.ndim != 2 or len(vectors) != expected:
        raise UnavailableError(
            f"the embedding endpoint {where} returned {len(vectors)} vectors for {expected} texts"
        )
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit: Vectors = (vectors / np.clip(norms, 1e-12, None)).astype(np.float32, copy=False)
    return unit

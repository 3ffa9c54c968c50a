"""The registry of embedder factories, keyed by the kind a person picks in the settings.

Each factory imports its implementation when called, so importing ``noted.embeddings`` loads
neither ONNX Runtime nor the tokenizer. A new kind is one more entry in ``FACTORIES``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from noted.embeddings.protocol import Embedder
from noted.errors import ConfigError

Factory = Callable[..., Embedder]


def _local() -> Factory:
    from noted.embeddings.onnx import local_embedder

    return local_embedder


def _folder() -> Factory:
    from noted.embeddings.onnx import folder_embedder

    return folder_embedder


def _openai() -> Factory:
    from noted.embeddings.openai_compat import OpenAICompatEmbedder

    return OpenAICompatEmbedder


def _fake() -> Factory:
    from noted.embeddings.fake import FakeEmbedder

    return FakeEmbedder


FACTORIES: dict[str, Callable[[], Factory]] = {
    "local": _local,
    "folder": _folder,
    "openai": _openai,
    "fake": _fake,
}
"""Embedder kinds, each mapped to a loader that imports and returns the kind's factory.

``local``: the packaged all-MiniLM-L6-v2 (``threads``, ``batch_size``). ``folder``: a model folder
(``path``, ``threads``, ``batch_size``). ``openai``: an OpenAI-compatible endpoint (``base_url``,
``model``, ``api_key``, ``allow_remote``, …). ``fake``: hashed bags of words for tests.
"""

DEFAULT_KIND = "local"


def make_embedder(kind: str = DEFAULT_KIND, **options: Any) -> Embedder:
    """Build an embedder of ``kind`` with the options that kind takes.

    Args:
        kind: One of ``FACTORIES``: ``local`` (the packaged default), ``folder`` (``path=``),
            ``openai`` (``base_url=``, ``model=``, ``api_key=``, ``allow_remote=``…) or ``fake``.
        **options: Passed to the kind's factory.

    Raises:
        ConfigError: The kind is unknown or an option is not one it takes.
        UnavailableError: The model cannot be used here (missing package, remote endpoint not
            allowed).
    """
    loader = FACTORIES.get(kind)
    if loader is None:
        raise ConfigError(
            f"unknown embedding model kind {kind!r}", hint=f"choose one of {', '.join(FACTORIES)}"
        )
    factory = loader()
    try:
        inspect.signature(factory).bind(**options)
    except TypeError as exc:
        accepted = ", ".join(inspect.signature(factory).parameters)
        raise ConfigError(
            f"bad options for the {kind!r} embedding model: {exc}", hint=f"it takes {accepted}"
        ) from exc
    return factory(**options)

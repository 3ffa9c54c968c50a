"""The ``ai.embedding.*`` settings reach the model the indexer and search build from them."""

from __future__ import annotations

from pathlib import Path

import pytest

from noted.embeddings.model_spec import default_spec
from noted.profile import Profile
from noted.services.configured import embedder_for
from noted.settings import Settings
from noted.settings.handles import EMBEDDING_MODEL, EMBEDDING_PASSAGE_PREFIX, EMBEDDING_QUERY_PREFIX


def _model_folder(where: Path) -> Path:
    """An e5-like folder: the packaged weights without a description, so no prefixes of its own."""
    spec = default_spec()
    where.mkdir()
    (where / "model.onnx").symlink_to(spec.model_path)
    (where / "tokenizer.json").symlink_to(spec.tokenizer_path)
    return where


@pytest.mark.parametrize("folder", [True, False], ids=["model folder", "packaged model"])
def test_the_prefix_settings_reach_a_local_model(tmp_path: Path, folder: bool) -> None:
    settings = Settings(tmp_path / "config.toml", environ={})
    if folder:
        settings.set(EMBEDDING_MODEL, str(_model_folder(tmp_path / "e5")))
    profile = Profile(tmp_path)
    plain = embedder_for(settings, profile)
    assert (plain.query_prefix, plain.passage_prefix) == ("", "")  # "": what the model declares
    settings.set(EMBEDDING_QUERY_PREFIX, "query: ")
    settings.set(EMBEDDING_PASSAGE_PREFIX, "passage: ")
    e5 = embedder_for(settings, profile)
    # The help says what they do ("query: " for e5 models); they were read for an endpoint only.
    assert (e5.query_prefix, e5.passage_prefix) == ("query: ", "passage: ")
    assert e5.model_id != plain.model_id  # other vectors: the index is rebuilt, as the help says

"""The status bar tells the model's first copy (some 30 s) from an ordinary load (issue 39).

A new profile said "index starting: loading the search model (the first time ~30 s)…" on every
start, whether or not the copy was being made. ``quantize.ensure`` now says when it has no copy
and makes one; the indexer's status says ``preparing`` only then. The embedder here loads its
"model" through the real ``quantize.ensure`` (the conversion itself replaced by a file write), so
whether the copy is made is decided by the real code, not by the test.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from tests.support.polling import scaled, wait_for

from noted.embeddings import quantize
from noted.embeddings.fake import FakeEmbedder
from noted.indexer.engine import Indexer
from noted.indexer.lease import Lease
from noted.indexer.service import IndexerService, IndexStatus
from noted.models import NoteDraft
from noted.store.sqlite import SqliteStore
from noted.ui.widgets.status_bar import PREPARING, STARTING, format_index


class _Loading(FakeEmbedder):
    """Loads its model through ``quantize.ensure`` on the first embedding, as the ONNX one does."""

    def __init__(self, source: Path, cache: Path) -> None:
        super().__init__()
        self._files = (source, cache)
        self.loaded: Path | None = None

    def embed_documents(self, texts: Sequence[str]):  # type: ignore[no-untyped-def]
        if self.loaded is None:
            self.loaded = quantize.ensure(*self._files)
        return super().embed_documents(texts)


def _statuses(tmp_path: Path, embedder: _Loading) -> list[IndexStatus]:
    """Every status the indexer reported while indexing one note, up to ``idle``."""
    seen: list[IndexStatus] = []
    store = SqliteStore.open(tmp_path / "notes.db", tmp_path / "resources")
    try:
        if not store.list_folders():
            folder = store.create_folder("F", actor="user")
            store.create_note(NoteDraft("Plan", "words to embed\n", parent_id=folder.id), actor="user")
        else:  # a second start: one more note, so the model is loaded again
            folder = store.list_folders()[0]
            store.create_note(NoteDraft("More", "more words\n", parent_id=folder.id), actor="user")
        service = IndexerService(Indexer(store, store.db, embedder), Lease(store.db), on_status=seen.append)
        service.start()
        wait_for(
            lambda: any(s.state == "idle" for s in seen), what="the indexer to be idle", timeout=scaled(60)
        )
        service.stop(timeout=scaled(30))
    finally:
        store.close()
    return seen


def test_the_status_says_preparing_only_while_the_copy_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source, cache = tmp_path / "model.onnx", tmp_path / "models"
    source.write_bytes(b"the model")
    made: list[Path] = []

    def convert(given: Path, target: Path) -> None:
        made.append(target)
        target.write_bytes(b"the int8 copy of " + given.read_bytes())

    monkeypatch.setattr(quantize, "_convert_in_children", convert)
    first = _statuses(tmp_path, _Loading(source, cache))
    assert len(made) == 1
    assert [s.preparing for s in first if s.state == "starting"] == [True]
    assert not any(s.preparing for s in first if s.state != "starting")  # it ends with the start

    again = _Loading(source, cache)
    second = _statuses(tmp_path, again)
    assert len(made) == 1 and again.loaded is not None  # the cached copy: loaded, not made
    assert not any(s.preparing for s in second)


def test_the_status_bar_says_which() -> None:
    assert format_index(IndexStatus("starting")) == STARTING == "index starting: loading the search model…"
    assert format_index(IndexStatus("starting", preparing=True)) == PREPARING
    assert "preparing the search model (first time, ~30 s)" in PREPARING


def test_telling_lasts_only_inside_and_is_not_called_for_a_cached_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source, cache = tmp_path / "model.onnx", tmp_path / "models"
    source.write_bytes(b"the model")
    monkeypatch.setattr(quantize, "_convert_in_children", lambda given, target: target.write_bytes(b"x"))
    told: list[str] = []
    with quantize.telling(lambda: told.append("preparing")):
        quantize.ensure(source, cache)
        quantize.ensure(source, cache)  # cached now
    assert told == ["preparing"]
    quantize.cached_path(source, cache).unlink()
    quantize.ensure(source, cache)  # made again, but outside: no one is told
    assert told == ["preparing"]

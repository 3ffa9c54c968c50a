"""An embedding endpoint that is away is waited for: the notes it was given are not failed."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator

import httpx
import pytest
from tests.support.polling import wait_for

from noted.embeddings.openai_compat import OpenAICompatEmbedder
from noted.errors import ModelAwayError, UnavailableError
from noted.indexer.coverage import index_coverage
from noted.indexer.engine import Indexer
from noted.indexer.lease import Lease
from noted.indexer.service import IndexerService
from noted.models import NoteDraft
from noted.store.sqlite import SqliteStore


class Endpoint:
    """An OpenAI-compatible /embeddings that can be away: refusing connections, or answering 503."""

    def __init__(self) -> None:
        self.away = ""

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if self.away == "refused":
            raise httpx.ConnectError("connection refused", request=request)
        if self.away:
            return httpx.Response(int(self.away), text="overloaded")
        texts = json.loads(request.content)["input"]
        data = [
            {"index": i, "embedding": [b / 255 - 0.5 for b in hashlib.sha256(t.encode()).digest()[:8]]}
            for i, t in enumerate(texts)
        ]
        return httpx.Response(200, json={"data": data})


@pytest.fixture
def endpoint() -> Endpoint:
    return Endpoint()


@pytest.fixture
def indexer(store: SqliteStore, endpoint: Endpoint) -> Iterator[Indexer]:
    model = OpenAICompatEmbedder(
        base_url="http://127.0.0.1:9/v1", model="m", transport=httpx.MockTransport(endpoint)
    )
    store.create_note(NoteDraft("otters", "otters hold hands", parent_id=_folder(store)), actor="user")
    built = Indexer(store, store.db, model)
    built.prepare()
    built.run_until_idle()
    yield built


def _folder(store: SqliteStore) -> str:
    folders = store.list_folders()
    return folders[0].id if folders else store.create_folder("F", actor="user").id


def _walrus(store: SqliteStore) -> str:
    return store.create_note(
        NoteDraft("walrus", "walruses have tusks", parent_id=_folder(store)), actor="user"
    ).id


def _state(store: SqliteStore, note_id: str) -> tuple[bool, int]:
    """Whether the note has vectors, and how many notes are counted failed."""
    with store.db.read() as conn:
        indexed = conn.execute("SELECT 1 FROM index_chunks WHERE note_id = ?", (note_id,)).fetchone()
        failed = conn.execute("SELECT count(*) FROM index_failures").fetchone()[0]
    return indexed is not None, int(failed)


@pytest.mark.parametrize("away", ["refused", "503", "429"])
def test_noted_index_stops_on_a_model_away_and_fails_no_note(
    store: SqliteStore, endpoint: Endpoint, indexer: Indexer, away: str
) -> None:
    endpoint.away = away
    walrus = _walrus(store)
    # Before, each note it was given counted as failed, the cursor passed them, and `noted index`
    # said the index was up to date; only a restart retried them.
    with pytest.raises(ModelAwayError):
        indexer.run_until_idle()
    assert _state(store, walrus) == (False, 0) and not index_coverage(store, store.db).complete
    endpoint.away = ""
    indexer.run_until_idle()
    assert _state(store, walrus) == (True, 0) and index_coverage(store, store.db).complete


def test_a_text_the_endpoint_refuses_is_still_that_note_failing(
    store: SqliteStore, endpoint: Endpoint, indexer: Indexer
) -> None:
    endpoint.away = "400"  # its answer to this text: waiting would not help
    walrus = _walrus(store)
    indexer.run_until_idle()
    assert _state(store, walrus) == (False, 1) and index_coverage(store, store.db).complete
    with pytest.raises(UnavailableError, match="answered 400") as raised:
        indexer.embedder.embed_query("x")
    assert not isinstance(raised.value, ModelAwayError)


def test_the_background_indexer_waits_for_the_model_and_goes_on(
    store: SqliteStore, endpoint: Endpoint, indexer: Indexer
) -> None:
    service = IndexerService(indexer, Lease(store.db))
    service.start()
    try:
        wait_for(lambda: service.status.state == "idle", what="the indexer idle")
        endpoint.away = "refused"
        walrus = _walrus(store)
        service.notify()
        wait_for(lambda: service.status.state == "waiting", what="the indexer waiting for the model")
        assert "cannot reach the embedding endpoint" in (service.status.error or "")
        assert _state(store, walrus) == (False, 0)
        endpoint.away = ""
        service.notify()
        wait_for(lambda: _state(store, walrus) == (True, 0), what="the note indexed once the model is back")
    finally:
        service.stop()

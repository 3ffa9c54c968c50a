"""The Joplin Data API client without a Joplin: httpx's MockTransport stands in for the server.

The real Joplin is exercised in ``tests/integration/test_joplin_*.py``; here are the failure
paths a real server cannot be made to take on demand: a timeout after a write was sent, a read
that keeps failing until its deadline, a token that must never be shown.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from noted.errors import BackendError, InvalidInputError, NotFoundError
from noted.models import ChangeType, ItemType, Note, now_ms
from noted.store.joplin.client import JoplinClient, JoplinUnreachableError, WriteOutcomeUnknownError
from noted.store.joplin.events import EventFeed
from noted.store.joplin.sidecar import ACTOR_JOPLIN, Sidecar

TOKEN = "s3cr3t-token-0123456789"
URL = "http://127.0.0.1:41999"


def _client(handler: Callable[[httpx.Request], httpx.Response], **kw: float) -> JoplinClient:
    return JoplinClient(URL, TOKEN, transport=httpx.MockTransport(handler), **kw)


def test_the_token_goes_on_the_wire_but_never_into_logs_errors_or_reprs(
    caplog: pytest.LogCaptureFixture,
) -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return httpx.Response(500, json={"error": f"boom at {request.url}"})

    client = _client(handler)
    caplog.set_level(logging.DEBUG)
    with pytest.raises(BackendError) as caught:
        client.get("/notes", {"fields": "id"})
    # Not vacuous: the server did get the token, and its error message echoed the full URL.
    assert seen and f"token={TOKEN}" in seen[0]
    assert TOKEN not in str(caught.value)
    assert TOKEN not in caplog.text
    assert TOKEN not in repr(client)
    assert "httpx" in caplog.text or caplog.records  # httpx did log the request, without the token


def test_reads_retry_until_joplin_answers() -> None:
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        if calls < 3:
            raise httpx.ConnectError("connection refused", request=request)
        return httpx.Response(200, json={"items": [{"id": "a"}], "has_more": False})

    assert _client(handler, read_deadline=5.0).get_all("/notes") == [{"id": "a"}]
    assert calls == 3


def test_reads_give_up_after_their_deadline_with_the_url() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    with pytest.raises(JoplinUnreachableError, match=f"Joplin is not reachable at {URL}"):
        _client(handler, read_deadline=0.3).get("/notes")


def test_a_write_that_was_not_sent_says_nothing_changed() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    with pytest.raises(JoplinUnreachableError, match="nothing was changed"):
        _client(handler).write("POST", "/notes", {"title": "x"})


def test_a_write_without_an_answer_is_reported_as_unknown_and_sent_once() -> None:
    sent = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal sent
        sent += 1
        raise httpx.ReadTimeout("no answer", request=request)

    with pytest.raises(WriteOutcomeUnknownError, match="may or may not have been saved"):
        _client(handler).write("POST", "/notes", {"title": "x"})
    assert sent == 1  # never retried: a retry could create the note twice


def test_errors_map_to_noted_errors() -> None:
    answers = {"/notes/x": 404, "/bad": 400, "/auth": 403}

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(answers[request.url.path], json={"error": "Missing note ID"})

    client = _client(handler)
    with pytest.raises(NotFoundError):
        client.get("/notes/x")
    with pytest.raises(InvalidInputError, match="Missing note ID"):
        client.get("/bad")
    with pytest.raises(BackendError, match="refused the API token"):
        client.get("/auth")


def test_pages_are_followed_until_has_more_is_false() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params["page"])
        assert request.url.params["limit"] == "100"
        return httpx.Response(200, json={"items": [{"id": str(page)}], "has_more": page < 3})

    assert [i["id"] for i in _client(handler).get_all("/notes")] == ["1", "2", "3"]


def test_an_empty_url_is_discovered_and_rediscovered_after_a_failure() -> None:
    found = iter(["http://127.0.0.1:41185", "http://127.0.0.1:41186"])
    hosts: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        hosts.append(f"{request.url.host}:{request.url.port}")
        if request.url.port == 41185 and len(hosts) > 1:
            raise httpx.ConnectError("gone", request=request)
        return httpx.Response(200, json={"id": "n"})

    client = JoplinClient("", TOKEN, transport=httpx.MockTransport(handler), discover_url=lambda: next(found))
    assert client.get("/notes/n") == {"id": "n"}
    assert client.get("/notes/n") == {"id": "n"}  # 41185 went away; 41186 was found
    assert hosts == ["127.0.0.1:41185", "127.0.0.1:41185", "127.0.0.1:41186"]


def test_no_joplin_found_is_a_clear_error() -> None:
    client = JoplinClient(
        "", TOKEN, transport=httpx.MockTransport(lambda r: httpx.Response(200)), read_deadline=0.2
    )
    client._discover = lambda: None
    with pytest.raises(JoplinUnreachableError, match="no Joplin Data API answered"):
        client.get("/notes")


def test_the_feed_mirrors_events_once_with_the_actor_of_notes_own_write(tmp_path: Path) -> None:
    """Joplin's events become noted's feed: a note noted wrote gets its actor, others ``joplin``."""
    events: list[dict[str, object]] = [
        {"id": 4, "item_type": 1, "item_id": "older", "type": 1, "created_time": now_ms() - 5_000},
    ]

    def handler(request: httpx.Request) -> httpx.Response:
        after = int(request.url.params["cursor"])
        items = [e for e in events if int(str(e["id"])) > after]
        last = items[-1]["id"] if items else after
        return httpx.Response(200, json={"items": items, "has_more": False, "cursor": str(last)})

    sidecar = Sidecar.open(tmp_path / "sidecar.db")
    feed = EventFeed(_client(handler), sidecar)
    start = feed.latest_cursor()  # the first pull copies what Joplin still keeps, as Joplin's
    assert [(c.item_id, c.actor) for c in feed.changes_since(0).changes] == [("older", ACTOR_JOPLIN)]

    write = sidecar.begin_write("mine", "mcp:claude")
    events.append({"id": 7, "item_type": 1, "item_id": "mine", "type": 2, "created_time": now_ms()})
    sidecar.end_write(write)
    events.append({"id": 8, "item_type": 1, "item_id": "theirs", "type": 1, "created_time": now_ms() + 5_000})
    events.append({"id": 9, "item_type": 4, "item_id": "resource", "type": 1, "created_time": now_ms()})
    sidecar.record(ItemType.FOLDER, ["f1"], ChangeType.CREATE, "user")
    page = feed.changes_since(start)
    feed.changes_since(start)  # a second pull must not copy the events again
    assert [(c.item_type, c.item_id, c.actor) for c in feed.changes_since(start).changes] == [
        (ItemType.FOLDER, "f1", "user"),
        (ItemType.NOTE, "mine", "mcp:claude"),
        (ItemType.NOTE, "theirs", ACTOR_JOPLIN),
    ]
    assert page.cursor == feed.latest_cursor() == start + 3
    assert sidecar.joplin_cursor() == 9
    sidecar.close()


def test_revisions_collapse_a_burst_by_one_actor_but_not_across_actors(tmp_path: Path) -> None:
    sidecar = Sidecar.open(tmp_path / "sidecar.db")
    note = Note("n1", "f", "T", "one", 1, 1, 1, 1)
    sidecar.save_revision(note, ACTOR_JOPLIN, 1_000)
    sidecar.save_revision(note, "assistant:c1", 2_000)
    sidecar.save_revision(Note("n1", "f", "T", "two", 1, 3, 1, 3), "assistant:c1", 3_000)
    history = sidecar.note_history("n1")
    assert [(r.actor, r.body, r.edits) for r in history] == [
        ("assistant:c1", "two", 2),
        (ACTOR_JOPLIN, "one", 1),
    ]
    assert sidecar.get_revision(history[-1].id).body == "one"
    sidecar.close()

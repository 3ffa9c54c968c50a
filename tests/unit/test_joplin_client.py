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

from noted.errors import BackendError, InvalidInputError, NotFoundError, WriteOutcomeUnknownError
from noted.models import ACTOR_JOPLIN, ACTOR_SYNC, ChangeType, ItemType, Note, now_ms
from noted.store.joplin.client import JoplinClient, JoplinUnreachableError
from noted.store.joplin.event_items import JoplinEvent
from noted.store.joplin.events import EventFeed
from noted.store.joplin.sidecar import Sidecar
from noted.store.joplin.sidecar_schema import SCHEMA_KEY
from noted.store.sqlite.db import Database

TOKEN = "s3cr3t-token-0123456789"
URL = "http://127.0.0.1:41999"


def _client(
    handler: Callable[[httpx.Request], httpx.Response], *, read_deadline: float = 10.0
) -> JoplinClient:
    return JoplinClient(URL, TOKEN, transport=httpx.MockTransport(handler), read_deadline=read_deadline)


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


def test_a_joplin_that_is_off_is_told_after_a_few_tries_not_ten_seconds_of_them() -> None:
    """A refused read is retried for about a second by default (it was ten: a write on a Joplin
    that is off waited that long to say so). Counted, not timed: a slow machine makes fewer tries,
    never more, and the ten seconds made about fourteen."""
    tries = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal tries
        tries += 1
        raise httpx.ConnectError("connection refused", request=request)

    client = JoplinClient(URL, TOKEN, transport=httpx.MockTransport(handler))
    with pytest.raises(JoplinUnreachableError, match=f"Joplin is not reachable at {URL}"):
        client.get("/notes")
    assert tries <= 4


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
        if "cursor" not in request.url.params:  # as Joplin: no items, and the newest change id
            return httpx.Response(200, json={"items": [], "has_more": False, "cursor": str(events[-1]["id"])})
        after = int(request.url.params["cursor"])
        assert "source" in request.url.params["fields"].split(",")  # not a default field of /events
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
    synced = {"id": 10, "item_type": 1, "item_id": "synced", "type": 2, "created_time": now_ms(), "source": 2}
    events.append(synced)  # brought by Joplin's sync from another device
    sidecar.record(ItemType.FOLDER, ["f1"], ChangeType.CREATE, "user")
    page = feed.changes_since(start)
    feed.changes_since(start)  # a second pull must not copy the events again
    assert [(c.item_type, c.item_id, c.actor) for c in feed.changes_since(start).changes] == [
        (ItemType.FOLDER, "f1", "user"),
        (ItemType.NOTE, "mine", "mcp:claude"),
        (ItemType.NOTE, "theirs", ACTOR_JOPLIN),
        (ItemType.NOTE, "synced", ACTOR_SYNC),
    ]
    assert page.cursor == feed.latest_cursor() == start + 4
    assert sidecar.joplin_cursor() == 10
    sidecar.close()


def test_revisions_collapse_a_burst_of_one_session_only(tmp_path: Path) -> None:
    sidecar = Sidecar.open(tmp_path / "sidecar.db")
    note = Note("n1", "f", "T", "one", 1, 1, 1, 1)
    sidecar.save_revision(note, ACTOR_JOPLIN, 1_000)
    sidecar.save_revision(note, "assistant:c1", 2_000, session="s1")
    sidecar.save_revision(Note("n1", "f", "T", "two", 1, 3, 1, 3), "assistant:c1", 3_000, session="s1")
    sidecar.save_revision(Note("n1", "f", "T", "three", 1, 4, 1, 4), "assistant:c1", 4_000)
    sidecar.save_revision(Note("n1", "f", "T", "four", 1, 5, 1, 5), "assistant:c1", 5_000)
    history = sidecar.note_history("n1")
    assert [(r.actor, r.body, r.edits) for r in history] == [
        ("assistant:c1", "four", 1),
        ("assistant:c1", "three", 1),
        ("assistant:c1", "two", 2),
        (ACTOR_JOPLIN, "one", 1),
    ]
    assert sidecar.get_revision(history[-1].id).body == "one"
    sidecar.close()


def _event(event_id: int, item_id: str, change: ChangeType = ChangeType.UPDATE) -> JoplinEvent:
    """A note change Joplin recorded just now."""
    return JoplinEvent(event_id, item_id, change, now_ms())


def test_noted_writes_are_fed_when_answered_and_joplin_does_not_repeat_them(tmp_path: Path) -> None:
    """Each write of noted's is one row, in order, even when Joplin reports only the newest change
    of the note; a second change in the same window is an edit made in Joplin, not dropped."""
    sidecar = Sidecar.open(tmp_path / "sidecar.db")
    made = sidecar.begin_write("n1", "user")
    sidecar.end_write(made, joplin_time=now_ms(), change=ChangeType.CREATE)
    tagged = sidecar.begin_write("n1", "app", ItemType.NOTE_TAG)
    sidecar.end_write(tagged, change=ChangeType.CREATE)
    edited = sidecar.begin_write("n1", "app")
    sidecar.end_write(edited, joplin_time=now_ms(), change=ChangeType.UPDATE)
    # Joplin dropped the create for the update; the update is noted's, then comes an edit made
    # in Joplin within the same second (it would be lost if every fitting change were taken).
    sidecar.mirror([_event(11, "n1"), _event(12, "n1")], 12)
    sidecar.mirror([_event(12, "n1")], 12)  # mirrored once only
    got = [(c.item_type, c.change_type, c.actor) for c in sidecar.item_changes(["n1"], 10)]
    assert got == [
        (ItemType.NOTE, ChangeType.UPDATE, ACTOR_JOPLIN),
        (ItemType.NOTE, ChangeType.UPDATE, "app"),
        (ItemType.NOTE_TAG, ChangeType.CREATE, "app"),
        (ItemType.NOTE, ChangeType.CREATE, "user"),
    ]
    sidecar.close()


def test_a_change_mirrored_before_the_answer_is_not_fed_twice(tmp_path: Path) -> None:
    sidecar = Sidecar.open(tmp_path / "sidecar.db")
    write = sidecar.begin_write("n1", "mcp:claude")
    sidecar.mirror([_event(3, "n1", ChangeType.CREATE)], 3)  # another thread pulled meanwhile
    sidecar.end_write(write, joplin_time=now_ms(), change=ChangeType.CREATE)
    got = [(c.change_type, c.actor) for c in sidecar.item_changes(["n1"], 10)]
    assert got == [(ChangeType.CREATE, "mcp:claude")]
    sidecar.close()


def test_a_first_version_sidecar_is_upgraded_in_place(tmp_path: Path) -> None:
    path = tmp_path / "sidecar.db"
    db = Database(path)
    with db.write() as conn:
        conn.execute(
            "CREATE TABLE joplin_writes (id INTEGER PRIMARY KEY AUTOINCREMENT, item_id TEXT NOT NULL, "
            "item_type TEXT NOT NULL, actor TEXT NOT NULL, started INTEGER NOT NULL, finished INTEGER, "
            "joplin_time INTEGER)"
        )
        conn.execute(
            "INSERT INTO joplin_writes(item_id, item_type, actor, started) VALUES ('old', 'note', 'user', 1)"
        )
        conn.execute("INSERT INTO meta(key, value) VALUES (?, '1')", (SCHEMA_KEY,))
    db.close()
    sidecar = Sidecar.open(path)
    write = sidecar.begin_write("n1", "user")
    sidecar.end_write(write, change=ChangeType.CREATE)
    assert [c.actor for c in sidecar.item_changes(["n1"], 10)] == ["user"]
    with sidecar.db.read() as conn:
        assert conn.execute("SELECT count(*) FROM joplin_writes WHERE feed_id IS NULL").fetchone()[0] == 1
    sidecar.close()

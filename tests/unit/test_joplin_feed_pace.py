"""A paced Joplin feed (a process that follows it for long): how often it asks Joplin's ``/events``.

An idle app asked eight times a second (its follower and its indexer, each four times), and Joplin
logs every request: some 110 MB a day. httpx's MockTransport stands in for Joplin and counts the
asks; a hand-moved clock stands in for time, so nothing here waits.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from noted.models import ChangeType, ItemType, now_ms
from noted.store.joplin.client import JoplinClient
from noted.store.joplin.events import PACE_MAX_SECONDS, PACE_MIN_SECONDS, EventFeed
from noted.store.joplin.sidecar import Sidecar


class FakeJoplin:
    """Joplin's ``/events``: the changes made so far, and how many times it was asked."""

    def __init__(self) -> None:
        self.events: list[dict[str, object]] = []
        self.asks = 0

    def change(self, item_id: str) -> None:
        event_id = len(self.events) + 1
        self.events.append(
            {"id": event_id, "item_type": 1, "item_id": item_id, "type": 2, "created_time": now_ms()}
        )

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.asks += 1
        after = int(request.url.params.get("cursor", len(self.events)))
        items = [e for e in self.events if int(str(e["id"])) > after]
        cursor = str(items[-1]["id"] if items else max(after, len(self.events)))
        return httpx.Response(200, json={"items": items, "has_more": False, "cursor": cursor})


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class World:
    joplin: FakeJoplin
    clock: Clock
    feed: EventFeed
    sidecar: Sidecar


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    joplin, clock = FakeJoplin(), Clock()
    client = JoplinClient("http://127.0.0.1:41999", "token", transport=httpx.MockTransport(joplin))
    sidecar = Sidecar.open(tmp_path / "sidecar.db")
    yield World(joplin, clock, EventFeed(client, sidecar, clock=clock), sidecar)
    sidecar.close()


def _idle_minute(feed: EventFeed, clock: Clock, cursor: int) -> None:
    """A minute of an idle app: its two followers ask the feed four times a second each."""
    for _ in range(240):
        clock.now += 0.25
        feed.changes_since(cursor)
        feed.latest_cursor()


def test_an_idle_paced_feed_asks_joplin_a_few_times_a_minute_whoever_asks_it(world: World) -> None:
    world.feed.pace()
    cursor = world.feed.latest_cursor()
    world.joplin.asks = 0
    _idle_minute(world.feed, world.clock, cursor)
    # Not vacuous: unpaced, the same minute asks 480 times (the last test here).
    assert world.joplin.asks <= 60 / PACE_MAX_SECONDS + 5


def test_a_change_in_joplin_is_seen_within_the_longest_gap_and_the_pace_quickens(world: World) -> None:
    feed, clock = world.feed, world.clock
    feed.pace()
    cursor = feed.latest_cursor()
    _idle_minute(feed, clock, cursor)  # slowed down to the longest gap
    world.joplin.change("n1")
    waited = 0.0
    while not feed.changes_since(cursor).changes:
        clock.now += 0.0625  # a binary fraction: the sums are exact
        waited += 0.0625
    assert waited <= PACE_MAX_SECONDS
    cursor = feed.latest_cursor()
    clock.now += PACE_MIN_SECONDS  # just after a change, the next one is seen within the short gap
    world.joplin.change("n2")
    assert [c.item_id for c in feed.changes_since(cursor).changes] == ["n2"]


def test_noteds_own_writes_show_at_once_on_a_paced_feed(world: World) -> None:
    """This process's writes (and other noted processes' on the profile) are in the sidecar's feed
    as Joplin answers: a paced feed that does not ask Joplin still has them."""
    world.feed.pace()
    cursor = world.feed.latest_cursor()
    asks = world.joplin.asks
    world.sidecar.record(ItemType.NOTE, ["mine"], ChangeType.UPDATE, "user")
    assert [c.item_id for c in world.feed.changes_since(cursor).changes] == ["mine"]
    assert world.joplin.asks == asks  # answered from the sidecar: the gap has not passed


def test_a_feed_not_paced_and_a_pull_that_must_see_joplin_now_always_ask(world: World) -> None:
    """A command run once, and a read before a write (``pull``), see every change made before."""
    feed = world.feed
    cursor = feed.latest_cursor()
    world.joplin.asks = 0
    _idle_minute(feed, world.clock, cursor)
    assert world.joplin.asks == 480
    feed.pace()
    feed.changes_since(cursor)
    world.joplin.change("n1")
    feed.pull()
    assert [c.item_id for c in world.sidecar.changes_since(cursor, 10).changes] == ["n1"]

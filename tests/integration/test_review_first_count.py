"""The review's first count on a profile (a fresh one, or a copy) on every backend: the feed the
person wrote alone is passed over, not read, and what other actors do afterwards is reviewed as
before (the app counts this in the status bar on start; it took 5 s at 10,000 notes)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.backends import BACKENDS, open_backend
from tests.support.counting import Counting

from noted.models import ACTOR_USER, NoteDraft, NotePatch, assistant_actor, mcp_actor
from noted.ops.review import Review
from noted.store.protocol import Store
from noted.store.sqlite.review import SqliteReview


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    with open_backend(request.param, tmp_path / "store") as store:
        yield store


def _review(store: Store) -> tuple[Review, Counting]:
    counted = Counting(store, "changes_since")
    return Review(counted.store, SqliteReview(store.db)), counted  # type: ignore[attr-defined]


def test_the_persons_own_feed_is_passed_over_and_later_moves_still_show(store: Store) -> None:
    folder = store.create_folder("Work", actor=ACTOR_USER)
    ids = [
        store.create_note(NoteDraft(f"N{i}", "x\n", parent_id=folder.id), actor=ACTOR_USER).id
        for i in range(20)
    ]
    other = store.create_folder("Elsewhere", actor=ACTOR_USER)
    review, counted = _review(store)
    review.refresh()
    # Not vacuous: before, the first refresh read every row of the feed (20 notes, 2 notebooks).
    assert counted.read["changes_since"] == 0 and review.rows.cursor() == store.latest_cursor()
    store.update_note(ids[3], NotePatch(parent_id=other.id), actor=mcp_actor("claude"))
    review.refresh()  # read from there on: the move shows against the place the seed noted
    (entry,) = review.pending()
    assert entry.note_id == ids[3] and entry.detail.get("moved_to") == other.id


def test_a_feed_with_another_actors_change_is_read_as_before(store: Store) -> None:
    folder = store.create_folder("Work", actor=ACTOR_USER)
    note = store.create_note(NoteDraft("Plan", "one\n", parent_id=folder.id), actor=ACTOR_USER)
    store.update_note(note.id, NotePatch(append="two\n"), actor=assistant_actor("c1"))
    review, counted = _review(store)
    review.refresh()
    assert counted.read["changes_since"] > 0  # nothing skipped: the assistant's change waits for review
    (entry,) = review.pending()
    assert entry.note_id == note.id and entry.detail.get("added") == 1

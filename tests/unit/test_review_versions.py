"""Which revisions a review entry lies between (``noted.ops.review_texts.versions``)."""

from __future__ import annotations

import dataclasses

from noted.models import ACTOR_SYNC, ACTOR_USER, SYNCED_LABEL, Revision, mcp_actor
from noted.ops.review import summary
from noted.ops.review_texts import versions
from noted.store.review import EntryRow, EntryState

WHEN = 1_800_000_000_000


def _entry(actor: str) -> EntryRow:
    return EntryRow(7, "n1", "Budget", "f1", actor, WHEN, WHEN + 1000, EntryState.PENDING, {"edited": True})


def _revision(rid: int, actor: str, time: int, body: str, label: str = "") -> Revision:
    return Revision(rid, "n1", time, actor, "Budget", body, label=label)


def test_an_entry_is_paired_with_its_actors_revision_in_its_time() -> None:
    history = [
        _revision(3, mcp_actor("x"), WHEN + 500, "Rent: 900\nFood: 300"),
        _revision(2, ACTOR_USER, WHEN - 60_000, "Rent: 900"),
    ]
    found = versions(history, _entry(mcp_actor("x")))
    assert found is not None and (found.after.id, found.before and found.before.id) == (3, 2)
    assert versions(history, _entry(mcp_actor("y"))) is None  # another actor's entry


def test_a_sync_entry_is_paired_with_the_revision_that_came_by_sync_under_its_writers_name() -> None:
    """noted wrote the text on another machine: the revision is its writer's, labelled as having
    come by sync, and the sync's entry (as Joplin's events name it) finds it."""
    came = _revision(3, mcp_actor("x"), WHEN + 500, "Rent: 900\nFood: 300", label=SYNCED_LABEL)
    before = _revision(2, ACTOR_USER, WHEN - 60_000, "Rent: 900")
    found = versions([came, before], _entry(ACTOR_SYNC))
    assert found is not None and (found.after.id, found.before and found.before.id) == (3, 2)
    # The same writer's revision made on this machine (no label) is not the sync's.
    here = _revision(3, mcp_actor("x"), WHEN + 500, "Rent: 900\nFood: 300")
    assert versions([here, before], _entry(ACTOR_SYNC)) is None


def test_a_sync_entry_says_who_wrote_its_text_on_another_machine() -> None:
    written = dataclasses.replace(
        _entry(ACTOR_SYNC), detail={"edited": True, "added": 1, "removed": 0, "by": "mcp:x"}
    )
    assert summary(written) == "+1 −0 lines; written by mcp:x on another machine"
    assert summary(_entry(ACTOR_SYNC)) == "saved with no change to its text"


def test_an_entry_of_several_revisions_lies_between_the_one_before_its_first_and_its_last() -> None:
    """Two saves by one client that the history kept apart: the entry starts before the first."""
    history = [
        _revision(4, mcp_actor("x"), WHEN + 900, "flour\nsugar\nsalt"),
        _revision(3, mcp_actor("x"), WHEN + 100, "flour\nsugar"),
        _revision(2, ACTOR_USER, WHEN - 60_000, "flour"),
        _revision(1, mcp_actor("x"), WHEN - 120_000, "an older entry's"),
    ]
    found = versions(history, _entry(mcp_actor("x")))
    assert found is not None and (found.after.id, found.before and found.before.id) == (4, 2)

"""Which revisions a review entry lies between (``noted.ops.review_texts.versions``)."""

from __future__ import annotations

import dataclasses

from noted.models import ACTOR_SYNC, ACTOR_USER, SYNCED_LABEL, Note, Revision, mcp_actor
from noted.ops.review import summary
from noted.ops.review_texts import put_back, versions
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


def test_a_move_put_back_settles_an_entry_only_when_its_text_is_known_to_wait_no_more() -> None:
    """``put_back`` on an edit whose revisions are not found: where the feed says the change saved
    none (``revs`` 0: a move), putting the note back settles the entry; where nothing says (Joplin's
    feed, a thinned history), the text may still wait, so the move is dropped and the entry waits.
    Not vacuous: settling the second would close a change whose text the person never saw back."""
    moved = {"edited": True, "moved_from": "f1", "moved_to": "f2"}
    note = Note("n1", "f1", "Budget", "Rent: 900", WHEN, WHEN, WHEN, WHEN)
    settled = dataclasses.replace(_entry(mcp_actor("x")), detail=moved | {"revs": [0]})
    assert put_back(settled, note, (), None) == ({"edited": True, "revs": [0]}, True)
    unknown = dataclasses.replace(_entry(mcp_actor("x")), detail=moved)
    assert put_back(unknown, note, (), None) == ({"edited": True}, False)

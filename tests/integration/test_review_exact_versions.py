"""A review entry finds the very revision and attachment version its changes made, not those of
its actor in a few seconds around it (the review once matched by time, 5 s either side).

Not vacuous: before, a model's second edit (or replace) within 5 s of its first, once the first
was accepted, lay between the text (or file) before the first and its own: its line counted both
edits and its revert undid the accepted one too.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.backends import open_backend

from noted.models import ACTOR_USER, NoteDraft, NotePatch, mcp_actor
from noted.ops import review_actions
from noted.ops.attachments import replace_attachment
from noted.ops.review import Review, summary
from noted.store.protocol import Store
from noted.store.review import EntryState
from noted.store.sqlite.review import SqliteReview

BOT = mcp_actor("claude")


def _review(store: Store) -> Review:
    review = Review(store, SqliteReview(store.db))  # type: ignore[attr-defined]
    review.refresh()
    return review


@pytest.fixture(params=("sqlite", "vault"))
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """The backends whose feed names the revision a change saved (Joplin's feed is Joplin's)."""
    with open_backend(request.param, tmp_path / "store") as store:
        yield store


@pytest.fixture(params=("sqlite", "vault", "joplin"))
def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    with open_backend(request.param, tmp_path / "store") as store:
        yield store


@pytest.mark.parametrize("between", ["accepted", "tagged"])
def test_a_models_second_edit_within_seconds_is_its_own(store: Store, between: str) -> None:
    folder = store.create_folder("Work", actor=ACTOR_USER)
    note_id = store.create_note(NoteDraft("Plan", "one\n", parent_id=folder.id), actor=ACTOR_USER).id
    review = _review(store)
    store.update_note(note_id, NotePatch(body="one\ntwo\n"), actor=BOT)
    review.refresh()
    (first,) = review.pending()
    if between == "accepted":  # the person accepts the first edit: the next starts an entry
        review_actions.accept(review, [first.id])
    else:  # the person tags the note: the model's burst ends
        store.tag_note(note_id, ["mine"], actor=ACTOR_USER)
    store.update_note(note_id, NotePatch(body="one\ntwo\nthree\n"), actor=BOT)
    review.refresh()
    second = review.pending()[0]
    assert second.id != first.id
    assert summary(second) == "+1 −0 lines"
    assert review_actions.show(review, second.id).before == ("Plan", "one\ntwo\n")
    assert review_actions.revert(review, second.id).conflict is None
    assert store.get_note(note_id).body == "one\ntwo\n"


def test_a_models_second_replace_within_seconds_reverts_to_its_own_version(any_store: Store) -> None:
    store = any_store
    res = store.add_resource(b"v0", filename="plan.txt", mime="text/plain", title="Plan", actor=ACTOR_USER)
    review = _review(store)
    replace_attachment(store, res.id, b"v1 from the model", actor=BOT)
    review.refresh()
    (first,) = review.pending()
    review_actions.accept(review, [first.id])
    replace_attachment(store, res.id, b"v2 from the model", actor=BOT)
    review.refresh()
    (second,) = review.pending()
    assert second.id != first.id
    review_actions.revert(review, second.id)
    assert store.read_resource(res.id) == b"v1 from the model"


@pytest.mark.parametrize("seen", [True, False], ids=["read-before-undo", "read-after-undo"])
def test_an_edit_the_person_undid_waits_no_more(any_store: Store, seen: bool) -> None:
    """The person undoes a model's edit in the editor (Ctrl+Z) and saves: the note is back to the
    text before it, so the entry claims no change and is settled as reverted. Not vacuous: before,
    it waited as "+1 −0 lines"."""
    store = any_store
    folder = store.create_folder("Work", actor=ACTOR_USER)
    note_id = store.create_note(NoteDraft("Plan", "one\n", parent_id=folder.id), actor=ACTOR_USER).id
    kept = store.create_note(NoteDraft("Kept", "a\n", parent_id=folder.id), actor=ACTOR_USER).id
    review = _review(store)
    store.update_note(note_id, NotePatch(body="one\ntwo\n"), actor=BOT)
    store.update_note(kept, NotePatch(body="a\nb\n"), actor=BOT)
    if seen:
        review.refresh()
        assert len(review.pending()) == 2
    store.update_note(note_id, NotePatch(body="one\n"), actor=ACTOR_USER)
    store.update_note(kept, NotePatch(body="a\nb\nc\n"), actor=ACTOR_USER)  # kept, and more
    review.refresh()
    (left,) = review.pending()
    assert left.note_id == kept and summary(left) == "+1 −0 lines"
    (undone,) = review.rows.entries(state=EntryState.REVERTED)
    assert undone.note_id == note_id


def test_reverting_an_edit_with_an_inline_tag_makes_no_conflict_copy(any_store: Store) -> None:
    """On a Markdown folder an inline ``#tag`` is a tag: taking the model's tag off took it out of
    the text too, which the revert then took for an edit since and kept both, a conflict copy
    the same as the note but for ``#ai``. Now the text goes back first: no conflict, no copy."""
    store = any_store
    folder = store.create_folder("Work", actor=ACTOR_USER)
    note_id = store.create_note(NoteDraft("Plan", "one\n", parent_id=folder.id), actor=ACTOR_USER).id
    review = _review(store)
    store.update_note(note_id, NotePatch(body="one\ntwo #ai\n"), actor=BOT)
    store.tag_note(note_id, ["ai"], actor=BOT)
    review.refresh()
    (entry,) = review.pending()
    assert review_actions.revert(review, entry.id).conflict is None
    assert store.get_note(note_id).body == "one\n" and store.note_tags(note_id) == []
    assert [n.title for n in store.list_notes()] == ["Plan"]


def test_a_revert_that_meets_an_edit_since_offers_the_note_as_it_is_now(any_store: Store) -> None:
    """The move is undone before the conflict is handed over: its other side is the note as the
    revert left it, so settling it meets no further change."""
    store = any_store
    folder = store.create_folder("Work", actor=ACTOR_USER)
    other = store.create_folder("Other", actor=ACTOR_USER)
    note_id = store.create_note(NoteDraft("Plan", "one\n", parent_id=folder.id), actor=ACTOR_USER).id
    review = _review(store)
    store.update_note(note_id, NotePatch(body="one\ntwo\n", parent_id=other.id), actor=BOT)
    store.update_note(note_id, NotePatch(body="one\ntwo, mine\n"), actor=ACTOR_USER)  # the line it added
    review.refresh()
    entry = next(e for e in review.pending() if e.actor == BOT)
    conflict = review_actions.revert(review, entry.id).conflict
    assert conflict is not None and conflict.body == "one\n"
    assert conflict.theirs == store.get_note(note_id) and conflict.theirs.parent_id == folder.id


def test_text_put_back_but_for_its_final_newline_is_put_back(any_store: Store) -> None:
    """``noted edit`` hands ``$EDITOR`` the note ending in a newline: the person who deletes the
    model's line there saves the text before it with a final newline added. That entry of text
    alone leaves the list; one that also tagged reverts without a conflict copy (before, it kept
    both: a copy differing from the note by that newline)."""
    store = any_store
    folder = store.create_folder("Work", actor=ACTOR_USER)
    alone = store.create_note(NoteDraft("Alone", "one\ntwo", parent_id=folder.id), actor=ACTOR_USER).id
    tagged = store.create_note(NoteDraft("Tagged", "one\ntwo", parent_id=folder.id), actor=ACTOR_USER).id
    review = _review(store)
    for note_id in (alone, tagged):
        store.update_note(note_id, NotePatch(body="one\ntwo\nthree"), actor=BOT)
    store.tag_note(tagged, ["ai"], actor=BOT)
    review.refresh()
    for note_id in (alone, tagged):
        store.update_note(note_id, NotePatch(body="one\ntwo\n"), actor=ACTOR_USER)
    review.refresh()
    (entry,) = review.pending()
    assert entry.note_id == tagged
    assert review_actions.revert(review, entry.id).conflict is None
    assert store.note_tags(tagged) == [] and store.get_note(tagged).body.rstrip("\n") == "one\ntwo"
    assert sorted(n.title for n in store.list_notes()) == ["Alone", "Tagged"]

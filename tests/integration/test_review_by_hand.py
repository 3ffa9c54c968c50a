"""A model's change the person puts back by hand, part by part: the text, the notebook, the tags.

The rule: each part of a note's entry that the person puts back as it was before the entry (its
text and title, its notebook, each tag, its trashing) is settled: the entry no longer lists, shows
or reverts it. Once no part waits, the entry is settled as reverted. On the embedded store, a
Markdown folder and Joplin (a loopback server), under real SQLite and real files.

Not vacuous: before, only an entry that changed the text alone was settled; one that also tagged or
moved the note stayed waiting as "+1 −0 lines; moved…; tagged…" after the text was put back, and
its revert then met the person's later edits as a conflict, and it never settled by hand.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.backends import open_backend

from noted.models import ACTOR_USER, NoteDraft, NotePatch, mcp_actor
from noted.ops import review_actions
from noted.ops.review import Review, summary
from noted.store.protocol import Store
from noted.store.review import EntryRow, EntryState
from noted.store.sqlite.review import SqliteReview

BOT = mcp_actor("claude")


@pytest.fixture(params=("sqlite", "vault", "joplin"))
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    with open_backend(request.param, tmp_path / "store") as store:
        yield store


def _models_change(store: Store) -> tuple[Review, str, str, str]:
    """A note the model edited, tagged ``ai`` and moved to *Other*: the review, the note, and the
    notebooks it came from and went to."""
    work = store.create_folder("Work", actor=ACTOR_USER).id
    other = store.create_folder("Other", actor=ACTOR_USER).id
    note_id = store.create_note(NoteDraft("Plan", "one\n", parent_id=work), actor=ACTOR_USER).id
    review = Review(store, SqliteReview(store.db))  # type: ignore[attr-defined]
    review.refresh()
    store.update_note(note_id, NotePatch(body="one\ntwo\n"), actor=BOT)
    store.tag_note(note_id, ["ai"], actor=BOT)
    store.update_note(note_id, NotePatch(parent_id=other), actor=BOT)
    review.refresh()
    (entry,) = review.pending()
    assert summary(entry).startswith("+1 −0 lines")
    return review, note_id, work, other


def _waiting(review: Review) -> EntryRow:
    review.refresh()
    (entry,) = review.pending()
    return entry


def test_text_put_back_by_hand_leaves_the_move_and_tag_waiting_then_settles(store: Store) -> None:
    review, note_id, work, other = _models_change(store)
    store.update_note(note_id, NotePatch(body="one\n"), actor=ACTOR_USER)
    entry = _waiting(review)
    folders = {other: "Other"}
    assert summary(entry, folders) == 'moved to "Other"; tagged ai'  # no line counts
    shown = review_actions.show(review, entry.id)
    assert shown.text == 'Moved to "Other"\nTagged ai\n'
    store.untag_note(note_id, ["ai"], actor=ACTOR_USER)
    assert summary(_waiting(review), folders) == 'moved to "Other"'
    store.update_note(note_id, NotePatch(parent_id=work), actor=ACTOR_USER)
    review.refresh()
    assert review.pending() == []
    assert review.rows.entry(entry.id).state is EntryState.REVERTED


def test_tags_and_move_put_back_first_leave_the_text_waiting_then_settle(store: Store) -> None:
    review, note_id, work, _ = _models_change(store)
    store.untag_note(note_id, ["ai"], actor=ACTOR_USER)
    store.update_note(note_id, NotePatch(parent_id=work), actor=ACTOR_USER)
    entry = _waiting(review)
    assert summary(entry) == "+1 −0 lines"
    store.update_note(note_id, NotePatch(body="one\n"), actor=ACTOR_USER)
    review.refresh()
    assert review.pending() == [] and review.rows.entry(entry.id).state is EntryState.REVERTED


def test_reverting_what_still_waits_leaves_the_text_the_person_wrote_since(store: Store) -> None:
    """The text was put back by hand and edited again: the revert undoes the move and the tag,
    with no conflict over a text the entry no longer claims."""
    review, note_id, work, _ = _models_change(store)
    store.update_note(note_id, NotePatch(body="one\n"), actor=ACTOR_USER)
    _waiting(review)  # the review reads the text put back (the app follows the feed)
    store.update_note(note_id, NotePatch(body="one\nmine\n"), actor=ACTOR_USER)
    entry = _waiting(review)
    outcome = review_actions.revert(review, entry.id)
    assert outcome.conflict is None and outcome.kept == ()
    note = store.get_note(note_id)
    assert (note.body, note.parent_id, store.note_tags(note_id)) == ("one\nmine\n", work, [])
    assert [n.title for n in store.list_notes()] == ["Plan"]  # no conflict copy

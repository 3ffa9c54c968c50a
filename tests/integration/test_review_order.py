"""Entries of one note reverted together come out the same whatever order the person gave them.

On the embedded store, a Markdown folder and Joplin (a loopback server), under real SQLite and
real files. ``revert_together`` is what ``noted changes revert A B``
and the Changes view's marked rows (``Space`` then ``r``) run.

Not vacuous: before, the entries went in the order given where the kind of change left it free, so
the older one, reverted first, met the newer one's text on top ("changed since") and left a
conflict to settle, and a trashing reverted before the restore that followed it left the note in
the trash.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.backends import open_backend

from noted.models import ACTOR_USER, NoteDraft, NotePatch, assistant_actor, mcp_actor
from noted.ops import review_actions
from noted.ops.review import Review
from noted.store.protocol import Store
from noted.store.review import EntryState
from noted.store.sqlite.review import SqliteReview

BOT = mcp_actor("claude")
CHAT = assistant_actor("c1")


@pytest.fixture(params=("sqlite", "vault", "joplin"))
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    with open_backend(request.param, tmp_path / "store") as store:
        yield store


def _review(store: Store) -> Review:
    review = Review(store, SqliteReview(store.db))  # type: ignore[attr-defined]
    review.refresh()
    return review


def _entries(review: Review, note_id: str) -> tuple[int, int]:
    """The note's two waiting entries, oldest first."""
    review.refresh()
    older, newer = sorted(e.id for e in review.pending() if e.note_id == note_id)
    return older, newer


@pytest.mark.parametrize("oldest_first", [True, False], ids=["oldest-first", "newest-first"])
def test_two_models_edits_of_one_note_revert_together_with_no_conflict(
    store: Store, oldest_first: bool
) -> None:
    work = store.create_folder("Work", actor=ACTOR_USER)
    other = store.create_folder("Other", actor=ACTOR_USER)
    note_id = store.create_note(NoteDraft("Plan", "one\n", parent_id=work.id), actor=ACTOR_USER).id
    review = _review(store)
    store.update_note(note_id, NotePatch(body="one\ntwo\n"), actor=CHAT)
    store.tag_note(note_id, ["ai"], actor=CHAT)
    store.update_note(note_id, NotePatch(title="Plan B", body="one\ntwo\nthree\n"), actor=BOT)
    store.update_note(note_id, NotePatch(parent_id=other.id), actor=BOT)
    older, newer = _entries(review, note_id)
    given = [older, newer] if oldest_first else [newer, older]
    outcomes = list(review_actions.revert_together(review, given))
    assert [o.conflict for o in outcomes] == [None, None] and [o.kept for o in outcomes] == [(), ()]
    note = store.get_note(note_id)
    assert (note.title, note.body, note.parent_id) == ("Plan", "one\n", work.id)
    assert store.note_tags(note_id) == []
    assert [n.title for n in store.list_notes()] == ["Plan"]  # no conflict copy
    assert {review.rows.entry(i).state for i in given} == {EntryState.REVERTED}


@pytest.mark.parametrize("oldest_first", [True, False], ids=["oldest-first", "newest-first"])
def test_a_trashing_and_the_restore_after_it_revert_together_to_the_note_as_it_was(
    store: Store, oldest_first: bool
) -> None:
    work = store.create_folder("Work", actor=ACTOR_USER)
    note_id = store.create_note(NoteDraft("Plan", "one\n", parent_id=work.id), actor=ACTOR_USER).id
    review = _review(store)
    store.trash_note(note_id, actor=CHAT)
    store.restore_note(note_id, actor=BOT)
    older, newer = _entries(review, note_id)
    given = [older, newer] if oldest_first else [newer, older]
    outcomes = list(review_actions.revert_together(review, given))
    assert [o.conflict for o in outcomes] == [None, None]
    assert not store.get_note(note_id).is_trashed  # as before the first: out of the trash

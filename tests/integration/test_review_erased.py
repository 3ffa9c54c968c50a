"""The review of a note a model trashed and the person erased before the review read the feed.

The review had seen the note (an earlier change of the model's, accepted), so the model's
trashing makes an entry; by the time the feed is read the note is gone for good on the embedded
store and the Markdown folder, and gone from Joplin (whose revisions noted keeps).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.backends import BACKENDS, open_backend

from noted.models import ACTOR_USER, NoteDraft, NotePatch, mcp_actor
from noted.ops import review_actions
from noted.ops.review import Review, summary
from noted.ops.trash import empty_trash
from noted.store.protocol import Store
from noted.store.sqlite.review import SqliteReview


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_note_a_model_trashed_and_the_person_erased_is_listed_by_its_name(
    backend: str, tmp_path: Path
) -> None:
    with open_backend(backend, tmp_path / "store") as store:
        _trashed_then_erased_before_the_read(store)


def _trashed_then_erased_before_the_read(store: Store) -> None:
    bot = mcp_actor("claude")
    folder = store.create_folder("Work", actor=ACTOR_USER)
    note_id = store.create_note(NoteDraft("Gone", "one\n", parent_id=folder.id), actor=ACTOR_USER).id
    review = Review(store, SqliteReview(store.db))  # type: ignore[attr-defined]
    store.update_note(note_id, NotePatch(body="one\ntwo\n"), actor=bot)
    review.refresh()
    review_actions.accept(review, [e.id for e in review.pending()])
    store.trash_note(note_id, actor=bot)
    empty_trash(store, actor=ACTOR_USER)

    # Before: the read of the feed stopped at 'no note with id' (noted changes exit 1, the app's
    # view kept its old rows), and the entry it had made by then was named "" (untitled).
    review.refresh()
    (entry,) = review.pending()
    assert (entry.note_id, entry.actor) == (note_id, bot)
    assert entry.title == "Gone", entry.title
    assert "trashed" in summary(entry)

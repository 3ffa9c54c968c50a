"""The review on a real Joplin, facing what the person does in Joplin itself around a model's write.

Joplin reports a note's change a little after it answers, keeps only a note's newest change, and
never reports a tag's link: the review must still charge a model only with what its own write did.
Each change "in Joplin" is made through Joplin's own Data API, as its app would make it.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.joplin import JoplinServer, shared_server

from noted.models import ACTOR_USER, NoteDraft, NotePatch, mcp_actor
from noted.ops import review_actions
from noted.ops.review import Review, summary
from noted.store.joplin import JoplinStore
from noted.store.sqlite.review import SqliteReview

pytestmark = pytest.mark.slow

BOT = mcp_actor("claude")


@pytest.fixture
def joplin(tmp_path_factory: pytest.TempPathFactory) -> JoplinServer:
    return shared_server(tmp_path_factory.getbasetemp())


@pytest.fixture
def store(joplin: JoplinServer, tmp_path: Path) -> Iterator[JoplinStore]:
    s = joplin.store(tmp_path / "profile")
    yield s
    s.close()


def _setup(store: JoplinStore) -> tuple[str, str, str, Review]:
    """A note of the person's in one notebook, another notebook, and a review that has seen them."""
    home = store.create_folder(f"Home {secrets.token_hex(3)}", actor=ACTOR_USER).id
    away = store.create_folder(f"Away {secrets.token_hex(3)}", actor=ACTOR_USER).id
    note_id = store.create_note(NoteDraft("Plan", "one\n", parent_id=home), actor=ACTOR_USER).id
    review = Review(store, SqliteReview(store.db))
    review.refresh()
    return note_id, home, away, review


def _tag_in_joplin(joplin: JoplinServer, note_id: str) -> str:
    title = f"mine-{secrets.token_hex(3)}"
    tag = joplin.api("POST", "/tags", {"title": title})
    joplin.api("POST", f"/tags/{tag['id']}/notes", {"id": note_id})
    return title


def _check_only_the_models_text(
    store: JoplinStore, review: Review, note_id: str, away: str, tag: str
) -> None:
    review.refresh()
    (entry,) = review.pending()
    assert (entry.actor, summary(entry, {away: "Away"})) == (BOT, "+1 −0 lines")
    assert review_actions.revert(review, entry.id).kept == ()
    note = store.get_note(note_id)
    assert (note.parent_id, note.body) == (away, "one\n")  # the text is undone, the person's move stays
    assert store.note_tag_titles([note_id])[note_id] == (tag,)


def test_a_move_and_a_tag_made_in_joplin_after_a_models_edit_stay_the_persons(
    store: JoplinStore, joplin: JoplinServer
) -> None:
    """Not vacuous: the review reads the model's edit as the note's last change (Joplin has not
    reported the move yet, and never reports a tag), and once compared with the note as it is now,
    charging the model with "moved to Away; tagged mine-…" and moving the note back on revert."""
    note_id, _, away, review = _setup(store)
    store.update_note(note_id, NotePatch(append="model\n"), actor=BOT)
    joplin.api("PUT", f"/notes/{note_id}", {"parent_id": away})
    tag = _tag_in_joplin(joplin, note_id)
    _check_only_the_models_text(store, review, note_id, away, tag)


def test_a_move_and_a_tag_made_in_joplin_before_a_models_edit_stay_the_persons(
    store: JoplinStore, joplin: JoplinServer
) -> None:
    """Not vacuous: Joplin drops its report of the move once the model's write lands (it keeps a
    note's newest change), so the review saw the note last at home, untagged, and charged the
    model with the move and the tag."""
    note_id, _, away, review = _setup(store)
    joplin.api("PUT", f"/notes/{note_id}", {"parent_id": away})
    tag = _tag_in_joplin(joplin, note_id)
    store.update_note(note_id, NotePatch(append="model\n"), actor=BOT)
    _check_only_the_models_text(store, review, note_id, away, tag)

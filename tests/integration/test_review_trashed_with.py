"""Reverting a model's trashing of a notebook that is back already brings back what went to the
trash with it, as the feed recorded it, on every backend.

Not vacuous: before, "went with it" was guessed by time (trashed within five seconds of the
model's change), so a note the person had trashed on their own just before was brought back too.

A tag the model deleted after trashing the notebook, put back by reverting its deletion, is no
longer said taken off the notes still waiting with the notebook's trashing (they kept reading
``untagged bulk; trashed``); on Joplin the deletion recorded only the notes out of the trash
(``/tags/ID/notes`` lists no others), so the revert did not put the tag back on those at all.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.backends import open_backend
from tests.support.tools_env import MANAGE_TOOLS, WRITE_TOOLS, Env, make_env, review_of

from noted.models import ACTOR_USER
from noted.ops import review_actions
from noted.ops.review import summary


@pytest.fixture(params=("sqlite", "vault", "joplin"))
def env(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Env]:
    with open_backend(request.param, tmp_path / "store") as store:
        yield make_env(store, tmp_path, enabled=(*WRITE_TOOLS, *MANAGE_TOOLS))


async def test_a_note_the_person_trashed_just_before_stays_in_the_trash(env: Env) -> None:
    work = env.folder("Work")
    a, b, mine = env.note(work, "A", "a\n"), env.note(work, "B", "b\n"), env.note(work, "Mine", "m\n")
    env.store.trash_note(mine, actor=ACTOR_USER)  # the person's, a moment before the model's
    review = review_of(env.store)
    await env.ok("delete_notebook", id=work)
    review.refresh()
    by_item = {e.note_id: e.id for e in review.pending()}
    assert review_actions.revert(review, by_item[a]).kept == ()  # brings the notebook back
    assert review_actions.revert(review, by_item[work]).kept == ()
    assert not env.store.get_note(b).is_trashed  # went with it: back
    assert env.store.get_note(mine).is_trashed  # the person's own: left in the trash


async def test_a_tag_put_back_by_a_revert_is_no_longer_said_taken_off_notes_still_waiting(env: Env) -> None:
    big = env.folder("Big")
    notes = [env.note(big, f"n{i}", "text\n") for i in range(3)]
    for note in notes:
        env.store.tag_note(note, ["bulk"], actor=ACTOR_USER)
    tag = env.store.find_tag("bulk")
    assert tag is not None
    review = review_of(env.store)
    await env.ok("delete_notebook", id=big)
    await env.ok("delete_tag", id=tag.id)
    review.refresh()
    titles = {f.id: f.title for f in env.store.list_folders(include_trashed=True)}

    def lines() -> set[str]:
        review.refresh()
        return {summary(e, titles) for e in review.pending() if e.note_id in notes}

    assert lines() == {"untagged bulk; trashed"}  # not vacuous: the words the revert must change
    (tag_entry,) = [e for e in review.pending() if e.detail.get("kind") == "tag"]
    review_actions.revert(review, tag_entry.id)
    assert [[t.title for t in env.store.note_tags(n)] for n in notes] == [["bulk"]] * 3
    assert lines() == {"trashed"}  # still waiting with the notebook's trashing, as it should

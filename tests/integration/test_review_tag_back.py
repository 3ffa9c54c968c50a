"""A tag a model deleted, put back by reverting its deletion, is no longer said to be taken off
the notes it is on again, though those notes' entries wait with something else (their notebook's
trashing, by the same model).

Seen as: ``delete_notebook`` Big (its notes tagged bulk), ``delete_tag bulk``, ``noted changes
revert`` of the tag's entry; the rows under the notebook still read ``untagged bulk; trashed``.
Through the real tool registry as the assistant, on the embedded store and the Markdown folder.
Not on Joplin: its tag's deletion records only the notes out of the trash (``/tags/ID/notes``
lists no others), so the revert does not put the tag back on the trashed notes at all.
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


@pytest.fixture(params=("sqlite", "vault"))
def env(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Env]:
    with open_backend(request.param, tmp_path / "store") as store:
        yield make_env(store, tmp_path, enabled=(*WRITE_TOOLS, *MANAGE_TOOLS))


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

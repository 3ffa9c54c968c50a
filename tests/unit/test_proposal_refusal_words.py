"""The line a person reads when a proposal they accept cannot be applied speaks their words, on
every backend: a ``create_note`` proposal whose notebook the person deleted for good since ended
"no notebook with id …; list_notebooks lists them", the tool's line for a model (a person has no
list_notebooks). It now says the notebook was deleted for good, as a note's is said to be."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.backends import BACKENDS, open_backend
from tests.support.tools_env import Env, make_env

from noted.models import ACTOR_USER
from noted.ops import notebooks, trash
from noted.store.review import ProposalState
from noted.store.sqlite.review import SqliteReview
from noted.tools import proposals


@pytest.fixture(params=BACKENDS)
def env(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Env]:
    with open_backend(request.param, tmp_path / "store") as store:
        env = make_env(store, tmp_path, enabled=("create_note",))
        env.ctx.review = SqliteReview(store.db)
        yield env


async def test_a_proposal_whose_notebook_was_deleted_for_good_says_so_in_the_persons_words(env: Env) -> None:
    work = env.folder("Work")
    waiting = dataclasses.replace(env.ctx, writes_wait=True)
    answer = await env.registry.call("create_note", {"title": "Idea", "notebook_id": work}, waiting)
    assert answer.ok and answer.payload is not None and answer.payload["status"] == "pending_review"
    assert env.ctx.review is not None
    proposal = env.ctx.review.proposal(int(str(answer.payload["proposal"])[1:]))
    notebooks.trash_notebook(env.store, work, actor=ACTOR_USER)
    trash.empty_trash(env.store, actor=ACTOR_USER)
    done = await proposals.apply(env.registry, proposal, env.ctx)
    assert done.state is ProposalState.FAILED, done
    assert done.message == "its notebook was deleted for good", done
    assert [n for n in env.store.list_notes() if n.title == "Idea"] == []

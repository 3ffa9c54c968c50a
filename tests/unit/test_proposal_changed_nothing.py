"""Accepting a proposal whose change the person made by other means meanwhile writes nothing and
says so, on every backend.

A ``restore_note`` proposal accepted after the person had restored the note from the trash
themselves was reported "applied" (``noted changes accept`` printed "Applied pN"), though it changed
nothing. Its run is now rehearsed first (``noted.tools.rehearsal``), as the proposal was: a run that
would reach no write is settled with a line saying it changed nothing. Not vacuous: the same
proposal accepted while the note is still in the trash restores it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.backends import BACKENDS, open_backend
from tests.support.tools_env import Env, make_env

from noted.models import ACTOR_USER
from noted.ops import notes as ops
from noted.store.review import ProposalRow, ProposalState
from noted.store.sqlite.review import SqliteReview
from noted.tools import proposals


@pytest.fixture(params=BACKENDS)
def env(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Env]:
    with open_backend(request.param, tmp_path / "store") as store:
        env = make_env(store, tmp_path, enabled=("restore_note", "manage_tags"))
        env.ctx.review = SqliteReview(store.db)
        yield env


async def _proposed(env: Env, tool: str, **args: object) -> ProposalRow:
    waiting = dataclasses.replace(env.ctx, writes_wait=True)
    answer = await env.registry.call(tool, args, waiting)
    assert answer.ok and answer.payload is not None and answer.payload["status"] == "pending_review", answer
    assert env.ctx.review is not None
    return env.ctx.review.proposal(int(str(answer.payload["proposal"])[1:]))


def _trashed_note(env: Env) -> str:
    note = env.note(env.folder("Work"), "Plan", "one\n")
    ops.trash_note(env.store, note, actor=ACTOR_USER)
    return note


async def test_a_restore_accepted_after_the_person_restored_the_note_says_it_changed_nothing(
    env: Env,
) -> None:
    note = _trashed_note(env)
    proposal = await _proposed(env, "restore_note", id=note)
    ops.restore_note(env.store, note, actor=ACTOR_USER)  # from the trash, by other means
    cursor = env.store.latest_cursor()
    done = await proposals.apply(env.registry, proposal, env.ctx)
    assert done.state is ProposalState.APPLIED and done.unchanged, done
    assert done.message == proposals.UNCHANGED, done
    assert env.store.latest_cursor() == cursor  # nothing written
    assert env.store.note_history(note)[0].actor == ACTOR_USER


async def test_a_restore_accepted_while_the_note_is_in_the_trash_restores_it(env: Env) -> None:
    note = _trashed_note(env)
    proposal = await _proposed(env, "restore_note", id=note)
    done = await proposals.apply(env.registry, proposal, env.ctx)
    assert done.state is ProposalState.APPLIED and not done.unchanged, done
    assert not env.store.get_note(note).is_trashed


async def test_a_tag_the_person_added_meanwhile_is_said_to_change_nothing(env: Env) -> None:
    note = env.note(env.folder("Work"), "Plan", "one\n")
    proposal = await _proposed(env, "manage_tags", note_id=note, add=["alpha"])
    ops.edit_tags(env.store, note, ["alpha"], [], actor=ACTOR_USER)
    cursor = env.store.latest_cursor()
    done = await proposals.apply(env.registry, proposal, env.ctx)
    assert done.state is ProposalState.APPLIED and done.unchanged, done
    assert env.store.latest_cursor() == cursor

"""Accepting a proposal runs it once: it is claimed in one write transaction before it runs.

Two accepts at once (the person's two prompts, or the app and a prompt) used to both run the
write; now the second is told it was accepted already. A claim left by a process that stopped
before it settled shows as such and can be accepted or rejected again.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.support.cli import env_with_src
from tests.support.tools_env import Env, make_env

from noted.models import now_ms
from noted.ops.review_list import waiting_words
from noted.store.review import STUCK_MS, ProposalRow, ProposalState
from noted.store.sqlite import SqliteStore
from noted.store.sqlite.review import SqliteReview
from noted.tools import proposals


@pytest.fixture
def env(tmp_path: Path) -> Env:
    store = SqliteStore.open(tmp_path / "notes.db", tmp_path / "resources")
    env = make_env(store, tmp_path, enabled=("create_note",))
    env.ctx.review = SqliteReview(store.db)
    return env


async def _proposed(env: Env) -> ProposalRow:
    work = env.folder("Work")
    waiting = dataclasses.replace(env.ctx, writes_wait=True)
    answer = await env.registry.call("create_note", {"title": "Idea", "notebook_id": work}, waiting)
    assert answer.ok and answer.payload is not None and answer.payload["status"] == "pending_review"
    assert env.ctx.review is not None
    return env.ctx.review.proposal(int(str(answer.payload["proposal"])[1:]))


def _ideas(env: Env) -> int:
    return len([n for n in env.store.list_notes() if n.title == "Idea"])


async def test_two_accepts_at_once_write_once_and_the_second_is_told(env: Env) -> None:
    """Not vacuous: both start before either has run the tool (the tool runs in a thread, so each
    apply waits there), which is what made two notes of one proposal."""
    proposal = await _proposed(env)
    first, second = await asyncio.gather(
        proposals.apply(env.registry, proposal, env.ctx), proposals.apply(env.registry, proposal, env.ctx)
    )
    assert _ideas(env) == 1
    assert (first.claimed, first.state) == (True, ProposalState.APPLIED)
    assert (
        not second.claimed and second.message == f"p{proposal.id} was accepted already: it is being applied"
    )
    assert env.ctx.review is not None and env.ctx.review.proposal(proposal.id).state is ProposalState.APPLIED
    again = await proposals.apply(env.registry, proposal, env.ctx)
    assert not again.claimed and "accepted already" in again.message and _ideas(env) == 1


async def test_a_claim_a_stopped_process_left_can_be_taken_over_and_is_said(env: Env) -> None:
    proposal = await _proposed(env)
    rows = env.ctx.review
    assert rows is not None
    now = now_ms()
    assert rows.claim(proposal.id, time=now, stuck_before=now - STUCK_MS)  # another process, running
    claimed = rows.proposal(proposal.id)
    assert waiting_words(claimed, now_ms()) == "accepted: being applied"
    assert [p.id for p in rows.proposals()] == [proposal.id]  # still listed, not lost
    assert not proposals.open_to_decide(claimed) and not proposals.reject(rows, claimed)
    assert not (await proposals.apply(env.registry, claimed, env.ctx)).claimed and _ideas(env) == 0

    later = now + STUCK_MS + 1  # that process stopped before it wrote anything
    assert "noted stopped" in waiting_words(claimed, later)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("noted.tools.proposals.now_ms", lambda: later)
        assert proposals.open_to_decide(claimed)
        done = await proposals.apply(env.registry, claimed, env.ctx)
    assert (done.claimed, done.state, _ideas(env)) == (True, ProposalState.APPLIED, 1)


async def test_a_claim_of_a_process_gone_is_stuck_at_once_and_another_machines_only_after_the_time_out(
    env: Env,
) -> None:
    """The claimants are real: a process of this machine that has ended (its own name for itself),
    and the same name moved to another host, which cannot be checked from here."""
    proposal = await _proposed(env)
    rows = env.ctx.review
    assert isinstance(rows, SqliteReview)
    ended = subprocess.run(
        [sys.executable, "-c", "from noted.store.processes import this_process; print(this_process())"],
        capture_output=True,
        text=True,
        env=env_with_src(),
        check=True,
    ).stdout.strip()
    elsewhere = json.dumps({**json.loads(ended), "host": "another-machine"})
    for claimant, stopped in ((ended, True), (elsewhere, False)):
        with rows.db.write() as conn:
            conn.execute(
                "UPDATE proposals SET state = 'applying', decided_time = ?, claimant = ? WHERE id = ?",
                (now_ms(), claimant, proposal.id),
            )
        claimed = rows.proposal(proposal.id)
        assert ("noted stopped" in waiting_words(claimed, now_ms())) is stopped
        assert proposals.open_to_decide(claimed) is stopped
        assert "noted stopped" in waiting_words(claimed, now_ms() + STUCK_MS + 1)
    done = await proposals.apply(env.registry, rows.proposal(proposal.id), env.ctx)
    assert not done.claimed and _ideas(env) == 0  # another machine's claim holds until the time-out


async def test_a_run_that_raises_puts_the_proposal_back_to_wait(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    proposal = await _proposed(env)

    async def broken(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(env.registry, "call", broken)
    with pytest.raises(KeyboardInterrupt):
        await proposals.apply(env.registry, proposal, env.ctx)
    assert env.ctx.review is not None and env.ctx.review.proposal(proposal.id).state is ProposalState.PENDING


async def test_a_proposal_to_rename_names_what_it_renames_and_the_new_title(env: Env) -> None:
    env.enable("update_notebook", "rename_tag")
    work = env.folder("Work")
    tag = env.store.create_tag("todo", actor="user").id
    waiting = dataclasses.replace(env.ctx, writes_wait=True)
    for tool, args in (
        ("update_notebook", {"id": work, "title": "Jobs"}),
        ("rename_tag", {"id": tag, "title": "later"}),
    ):
        answer = await env.registry.call(tool, args, waiting)
        assert answer.ok and answer.payload is not None and answer.payload["status"] == "pending_review"
    assert env.ctx.review is not None
    assert [p.title for p in env.ctx.review.proposals()] == ["todo → later", "Work → Jobs"]  # newest first

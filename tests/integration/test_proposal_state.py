"""A proposal is applied on the state of the note it was made on, ``noted changes show`` says all
it does, and one that cannot be applied for a reason other than the person's answer is not
"rejected".

Real SQLite store and review rows; the proposal is made through the tool registry in review mode,
as an AI app's write would be, and decided with the real ``noted changes`` in this process."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest
from tests.integration.ui_support import Fixture, open_services
from tests.support.cli import Cli

from noted.models import ACTOR_USER, NotePatch, mcp_actor
from noted.ops import review_list
from noted.services import Services
from noted.store.review import ProposalState
from noted.tools.scope import Limit, Scope

BOT = mcp_actor("bot")


@pytest.fixture
def services(fixture: Fixture) -> Iterator[Services]:
    services = open_services(fixture.root)
    for tool in ("update_note", "manage_tags"):
        services.settings.set(f"ai.tool.{tool}.enabled", True)
    try:
        yield services
    finally:
        services.close()


@pytest.fixture
def cli(fixture: Fixture, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(fixture.root, capsys)


def propose(services: Services, tool: str, scope: Scope | None = None, **args: Any) -> str:
    ctx = dataclasses.replace(services.tool_context(BOT), writes_wait=True, scope=scope or Scope())
    answer = asyncio.run(services.registry.call(tool, args, ctx))
    assert answer.ok and answer.payload is not None and answer.payload["status"] == "pending_review"
    return str(answer.payload["proposal"])


def tags(services: Services, note_id: str) -> list[str]:
    return sorted(t.title for t in services.store.note_tags(note_id))


def state(services: Services, ref: str) -> ProposalState:
    return services.review.rows.proposal(int(ref[1:])).state


def test_tags_the_person_added_after_the_proposal_stay(
    services: Services, fixture: Fixture, cli: Cli
) -> None:
    """Not vacuous: the proposal's list (keep, ai) was applied as it stood, dropping the
    person's tag, because tagging does not change the note's updated_time."""
    services.store.tag_note(fixture.ideas, ["keep"], actor=ACTOR_USER)
    ref = propose(services, "update_note", id=fixture.ideas, tags=["keep", "ai"])
    cli.ok("tag", fixture.ideas, "human-added")
    shown = cli.ok("changes", "show", ref).out
    assert "Adds the tags: ai." in shown and "(no change)" not in shown and "Removes" not in shown
    cli.ok("changes", "accept", ref)
    assert tags(services, fixture.ideas) == ["ai", "human-added", "keep"]


def test_a_tag_the_proposal_took_off_is_taken_off_and_one_the_person_took_off_stays_off(
    services: Services, fixture: Fixture, cli: Cli
) -> None:
    services.store.tag_note(fixture.ideas, ["a", "b"], actor=ACTOR_USER)
    ref = propose(services, "update_note", id=fixture.ideas, tags=["b"])
    services.store.untag_note(fixture.ideas, ["b"], actor=ACTOR_USER)
    cli.ok("changes", "accept", ref)
    assert tags(services, fixture.ideas) == []


def test_a_move_is_a_conflict_when_the_person_moved_the_note_since(
    services: Services, fixture: Fixture, cli: Cli
) -> None:
    """Nothing is lost: the person's move stays and the proposal still waits (it can be rejected)."""
    ref = propose(services, "update_note", id=fixture.ideas, notebook_id=fixture.work)
    shown = cli.ok("changes", "show", ref).out
    assert 'Moves it from "Home" to "Work".' in shown and "(no change)" not in shown
    services.store.update_note(fixture.ideas, NotePatch(parent_id=fixture.projects), actor=ACTOR_USER)
    result = cli("changes", "accept", ref)
    assert result.code == 3 and "its notebook" in result.err and "still waits" in result.err
    assert services.store.get_note(fixture.ideas).parent_id == fixture.projects
    assert state(services, ref) is ProposalState.PENDING
    assert cli.ok("changes", "reject", ref).out.startswith("Rejected")


def test_a_text_edit_applies_after_the_person_only_moved_the_note(
    services: Services, fixture: Fixture, cli: Cli
) -> None:
    """What the edit overwrites (the body) did not change: it is applied, the move stays."""
    ref = propose(services, "update_note", id=fixture.ideas, body="new text\n")
    services.store.update_note(fixture.ideas, NotePatch(parent_id=fixture.work), actor=ACTOR_USER)
    cli.ok("changes", "accept", ref)
    note = services.store.get_note(fixture.ideas)
    assert (note.body, note.parent_id) == ("new text\n", fixture.work)


def test_a_note_in_the_trash_keeps_its_proposal_waiting(
    services: Services, fixture: Fixture, cli: Cli
) -> None:
    """Not vacuous: it was marked "rejected" for good, and accepting after restoring was refused."""
    ref = propose(services, "manage_tags", note_id=fixture.ideas, add=["ai"])
    services.store.trash_note(fixture.ideas, actor=ACTOR_USER)
    assert "The note is in the trash now" in cli.ok("changes", "show", ref).out
    result = cli("changes", "accept", ref)
    assert result.code == 1 and "is in the trash" in result.err and "still waits" in result.err
    assert state(services, ref) is ProposalState.PENDING
    cli.ok("restore", fixture.ideas)
    cli.ok("changes", "accept", ref)
    assert tags(services, fixture.ideas) == ["ai"] and state(services, ref) is ProposalState.APPLIED


def test_a_note_moved_out_of_the_clients_notebooks_keeps_its_proposal_waiting(
    services: Services, fixture: Fixture, cli: Cli
) -> None:
    scope = Scope((Limit(frozenset({fixture.home}), "token"),))
    ref = propose(services, "manage_tags", scope, note_id=fixture.ideas, add=["ai"])
    services.store.update_note(fixture.ideas, NotePatch(parent_id=fixture.work), actor=ACTOR_USER)
    result = cli("changes", "accept", ref)
    assert result.code == 1 and "no longer in a notebook" in result.err
    assert state(services, ref) is ProposalState.PENDING and tags(services, fixture.ideas) == []


def test_a_note_deleted_for_good_ends_its_proposal_as_failed_not_rejected(
    services: Services, fixture: Fixture, cli: Cli
) -> None:
    ref = propose(services, "manage_tags", note_id=fixture.ideas, add=["ai"])
    services.store.trash_note(fixture.ideas, actor=ACTOR_USER)
    services.store.empty_trash(actor=ACTOR_USER)
    result = cli("changes", "accept", ref)
    assert result.code == 1 and "deleted for good" in result.err
    assert state(services, ref) is ProposalState.FAILED
    ctx = services.tool_context(BOT)
    answer = asyncio.run(services.registry.call("proposal_status", {"ids": [ref]}, ctx))
    assert answer.payload is not None
    (told,) = answer.payload["proposals"]
    assert told["status"] == "failed" and "deleted for good" in told["reason"]
    again = cli("changes", "accept", ref)
    assert again.code == 1 and "could not be applied" in again.err and "failed already" not in again.err


def test_a_proposal_that_ended_as_a_conflict_can_be_dismissed(
    services: Services, fixture: Fixture, cli: Cli
) -> None:
    """Not vacuous: a conflict could be neither accepted nor rejected ("p1 was conflict already")."""
    ref = propose(services, "update_note", id=fixture.ideas, body="mine\n")
    rows = services.review.rows
    rows.settle(int(ref[1:]), ProposalState.CONFLICT, time=1, reason="Kept the note as it is")
    accepted = cli("changes", "accept", ref)
    assert accepted.code == 1 and "conflict" in accepted.err and "was conflict" not in accepted.err
    assert cli.ok("changes", "reject", ref).out.startswith("Rejected")
    assert state(services, ref) is ProposalState.REJECTED


def test_the_command_line_names_a_proposal_in_the_words_of_the_changes_view(
    services: Services, fixture: Fixture, cli: Cli
) -> None:
    """``noted changes accept pN`` said ``Applied pN: update_note "Ideas".``, a tool's name, where
    the Changes view says ``update note``; the listing and ``show`` too. Not vacuous: each line is
    checked for the tool's name and for the view's own words, read from the view's row."""
    ref = propose(services, "update_note", id=fixture.ideas, body="new text\n")
    (row,) = [r for r in review_list.items(services.review).rows if r.ref == ref]
    words = row.summary.removeprefix("waits for you: ").split("; ")[0]  # then its lines counted
    assert words == "update note"
    lines = [
        next(line for line in cli.ok("changes").out.splitlines() if ref in line),
        cli.ok("changes", "show", ref).out.splitlines()[0],
        cli.ok("changes", "accept", ref).out.strip(),
    ]
    for line in lines:
        assert "update_note" not in line and f'{words} "' in line, lines
    assert lines[2] == f'Applied {ref}: update note "{services.store.get_note(fixture.ideas).title}".'

"""A proposal (a write that waited for review) that meets a note the person changed since it was
proposed: its three sides, and each way out keeps both texts (``noted.tools.proposal_sides``).

Real SQLite store and review rows; the proposal is made through the tool registry in review mode,
as an AI app's ``update_note`` would be."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from tests.integration.ui_support import Fixture, open_services
from tests.support.cli import Cli

from noted.models import ACTOR_USER, NotePatch, mcp_actor
from noted.ops.conflicts import Choice
from noted.services import Services
from noted.store.review import ProposalRow, ProposalState
from noted.tools import proposal_effects, proposal_sides, proposals

BOT = mcp_actor("bot")
BASE = "one\ntwo\nthree\n"


@pytest.fixture
def services(fixture: Fixture) -> Iterator[Services]:
    services = open_services(fixture.root)
    services.settings.set("ai.tool.update_note.enabled", True)
    services.store.update_note(fixture.ideas, NotePatch(body=BASE), actor=ACTOR_USER)
    try:
        yield services
    finally:
        services.close()


def propose(services: Services, note_id: str, **args: Any) -> ProposalRow:
    ctx = services.tool_context(BOT)
    ctx.writes_wait = True
    answer = asyncio.run(services.registry.call("update_note", {"id": note_id, **args}, ctx))
    assert answer.ok and answer.payload is not None and answer.payload["status"] == "pending_review"
    return services.review.rows.proposal(int(str(answer.payload["proposal"])[1:]))


def texts(services: Services, note_id: str) -> list[tuple[str, str]]:
    return [(r.actor, r.body) for r in services.store.note_history(note_id)]


def test_the_three_sides_of_a_proposal_whose_note_changed(services: Services, fixture: Fixture) -> None:
    proposal = propose(services, fixture.ideas, body="one\nTWO, said the bot\nthree\n")
    store = services.store
    assert proposal_sides.conflict_of(store, proposal) is None  # the note as proposed on: no conflict
    store.update_note(fixture.ideas, NotePatch(body="one\ntwo, said I\nthree\n"), actor=ACTOR_USER)
    conflict = proposal_sides.conflict_of(store, proposal)
    assert conflict is not None
    assert conflict.base.body == BASE  # the version it was proposed on, kept with the proposal
    assert conflict.theirs.body == "one\ntwo, said I\nthree\n"  # the note now
    assert conflict.body == "one\nTWO, said the bot\nthree\n"  # the proposal
    merged, clashes = conflict.merge_text(proposal_sides.names(f"p{proposal.id}"))
    assert clashes == 1
    assert (
        "<<<<<<< the note now\ntwo, said I\n||||||| as proposed on\ntwo\n=======\nTWO, said the bot\n"
        in merged
    )


@pytest.mark.parametrize(
    ("mine", "merged"),
    [("zero\n" + BASE, f"zero\n{BASE}four"), (BASE + "mine\n", BASE + "mine\nfour")],
    ids=["line-before", "appended-too"],
)
def test_a_proposal_meeting_a_change_on_other_lines_is_merged_when_accepted(
    services: Services, fixture: Fixture, mine: str, merged: str
) -> None:
    """The one rule of a write that waited (``noted.ops.conflicts.carried_text``), as an approved
    chat write's: the append is made to the version it was proposed on, and the person's change
    since stays. Not vacuous: this was a conflict, and accepting it wrote nothing."""
    store = services.store
    proposal = propose(services, fixture.ideas, append="four")
    store.update_note(fixture.ideas, NotePatch(body=mine), actor=ACTOR_USER)
    assert proposal_sides.conflict_of(store, proposal) is None
    title = store.get_note(fixture.ideas).title
    assert proposal_effects.preview(store, proposal) == ((title, mine), (title, merged))
    outcome = asyncio.run(proposals.apply(services.registry, proposal, services.tool_context(BOT)))
    assert outcome.state is ProposalState.APPLIED and not outcome.unchanged
    assert texts(services, fixture.ideas)[0] == (BOT, merged)  # written as its client


@pytest.mark.parametrize(
    ("choice", "now", "applied"),
    [
        (Choice.THEIRS, "mine\n", False),
        (Choice.OVERWRITE, "theirs\n", True),
        (Choice.MERGE, "merged\n", True),
    ],
)
def test_each_choice_keeps_both_texts_and_ends_the_proposal(
    services: Services, fixture: Fixture, choice: Choice, now: str, applied: bool
) -> None:
    proposal = propose(services, fixture.ideas, body="theirs\n")
    store, rows = services.store, services.review.rows
    store.update_note(fixture.ideas, NotePatch(body="mine\n"), actor=ACTOR_USER)
    conflict = proposal_sides.conflict_of(store, proposal)
    assert conflict is not None
    merged = (conflict.theirs.title, "merged\n") if choice is Choice.MERGE else None
    said = proposal_sides.settle(store, rows, proposal, conflict, choice, merged)
    assert store.get_note(fixture.ideas).body == now
    history = texts(services, fixture.ideas)
    assert (BOT, "theirs\n") in history  # the proposal, written as its client
    assert (ACTOR_USER, "mine\n") in history  # the person's text stays in the history
    ended = rows.proposal(proposal.id)
    assert ended.state is (ProposalState.APPLIED if applied else ProposalState.CONFLICT)
    assert proposal.id not in {p.id for p in rows.proposals()}  # it waits no more
    assert f"p{proposal.id}" in said


def test_keep_both_makes_the_proposal_a_conflict_copy(services: Services, fixture: Fixture) -> None:
    proposal = propose(services, fixture.ideas, body="theirs\n")
    store = services.store
    store.update_note(fixture.ideas, NotePatch(body="mine\n"), actor=ACTOR_USER)
    conflict = proposal_sides.conflict_of(store, proposal)
    assert conflict is not None
    said = proposal_sides.settle(store, services.review.rows, proposal, conflict, Choice.KEEP_BOTH)
    assert store.get_note(fixture.ideas).body == "mine\n"
    (copy,) = [n for n in store.list_notes() if "(conflict copy" in n.title]
    assert store.get_note(copy.id).body.endswith("\n\ntheirs\n") and copy.title in said
    assert services.review.rows.proposal(proposal.id).state is ProposalState.CONFLICT


def test_a_proposal_kept_before_its_base_was_finds_it_in_the_history(
    services: Services, fixture: Fixture
) -> None:
    """Proposals stored before the text was kept with them: the revision they were made on."""
    proposal = propose(services, fixture.ideas, append="four")
    detail = {k: v for k, v in proposal.detail.items() if k != "base"}
    older = ProposalRow(**{**{f: getattr(proposal, f) for f in proposal.__slots__}, "detail": detail})
    services.store.update_note(fixture.ideas, NotePatch(body="changed\n"), actor=ACTOR_USER)
    conflict = proposal_sides.conflict_of(services.store, older)
    assert conflict is not None and conflict.base.body == BASE and conflict.body == BASE + "four"


def test_cli_show_gives_the_three_sides_and_accept_still_writes_nothing(
    services: Services, fixture: Fixture, capsys: pytest.CaptureFixture[str]
) -> None:
    proposal = propose(services, fixture.ideas, body="one\nTWO, said the bot\nthree\n")
    services.store.update_note(fixture.ideas, NotePatch(body="one\ntwo, said I\nthree\n"), actor=ACTOR_USER)
    services.close()  # the CLI opens the profile itself
    cli, ref = Cli(fixture.root, capsys), f"p{proposal.id}"
    shown = cli.ok("changes", "show", ref).out
    now_part, rest = shown.split(f"What {ref} changes", 1)
    assert "-two\n+two, said I" in now_part and "--- as proposed on" in now_part  # the note now
    assert "-two\n+TWO, said the bot" in rest  # the proposal, against the same version
    assert (
        "<<<<<<< the note now\ntwo, said I\n||||||| as proposed on\ntwo\n=======\nTWO, said the bot\n"
        f">>>>>>> {ref}" in rest  # where they clash, the three
    )
    sides = cli.json("changes", "show", ref)["sides"]
    assert [sides[k]["body"] for k in ("proposed_on", "now", "proposal")] == [
        BASE,
        "one\ntwo, said I\nthree\n",
        "one\nTWO, said the bot\nthree\n",
    ]
    result = cli("changes", "accept", ref)
    assert result.code == 3 and "changed after" in result.err  # as before: nothing written
    assert "<<<<<<< the note now" in cli.ok("changes", "show", ref).out  # still shown whole


@pytest.mark.parametrize(
    "before, args",
    [
        ("", {"prepend": "first"}),  # the preview once showed "first\n"; the store writes "first"
        ("", {"append": "last"}),
        (BASE, {"prepend": "top"}),
        (BASE, {"append": "end"}),
        (BASE, {"body": "all new\n"}),
    ],
)
def test_the_preview_of_a_proposal_is_what_accepting_it_writes(
    services: Services, fixture: Fixture, before: str, args: dict[str, str]
) -> None:
    store = services.store
    store.update_note(fixture.ideas, NotePatch(body=before), actor=ACTOR_USER)
    proposal = propose(services, fixture.ideas, **args)
    shown = proposal_effects.preview(store, proposal)
    assert shown is not None
    outcome = asyncio.run(proposals.apply(services.registry, proposal, services.tool_context(BOT)))
    assert outcome.state is ProposalState.APPLIED
    assert shown[1] == (store.get_note(fixture.ideas).title, store.get_note(fixture.ideas).body)


def test_accepting_a_proposal_whose_tool_is_off_says_so_in_the_persons_words(
    services: Services, fixture: Fixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """``noted changes accept`` (and the Changes view) said the refusal written for the model:
    "… Only the person can switch it on: … Ask them if you need it." to the person."""
    proposal = propose(services, fixture.ideas, append="four")
    services.settings.set("ai.tool.update_note.enabled", False)
    services.close()  # the CLI opens the profile itself
    result = Cli(fixture.root, capsys)("changes", "accept", f"p{proposal.id}")
    assert 'the tool "update_note" is switched off; it is switched on in Settings' in result.err, result.err
    assert "Ask them" not in result.err and "Only the person" not in result.err, result.err
    assert (
        "four" not in open_services(fixture.root).store.get_note(fixture.ideas).body
    )  # not vacuous: refused

"""What review triage (the Changes view and ``noted changes``) says of its rows and of what it did.

A proposal's row named only its action (``update note "Rev"``) where a change's row counts its
lines; reverting said ``Reverted 1, turned down 0.`` (a count of nothing); and the conflict copy a
revert or a proposal left said the note "was changed elsewhere while this text was being edited",
which is what an editor's save meets, not a revert or a write that waited. Real SQLite profile,
proposals made through the tool registry in review mode, the CLI run in this process.
"""

from __future__ import annotations

import pytest
from tests.integration import test_proposal_sides as sides
from tests.integration.ui_support import Fixture, open_services
from tests.support.cli import Cli

from noted.models import ACTOR_USER, NotePatch
from noted.ops import review_list
from noted.ops.conflicts import Choice
from noted.services import Services
from noted.tools import proposal_sides
from noted.ui.screens.changes_work import act

BASE, BOT = sides.BASE, sides.BOT
services = sides.services  # the fixture: a profile whose ideas note is BASE, update_note on


def _propose(services: Services, note_id: str, **args: str) -> str:
    return f"p{sides.propose(services, note_id, **args).id}"


def _rows(services: Services) -> dict[str, review_list.ReviewItem]:
    services.review.refresh()
    return {row.ref: row for row in review_list.items(services.review).rows}


def test_a_proposal_row_counts_its_lines_as_a_change_row_does(
    services: Services, fixture: Fixture, capsys: pytest.CaptureFixture[str]
) -> None:
    ref = _propose(services, fixture.ideas, body="one\nTWO\nthree\nfour\n")
    services.store.update_note(fixture.ideas, NotePatch(body=BASE + "mine\n"), actor=BOT)
    rows = _rows(services)
    change = next(r for r in rows.values() if not r.proposal)
    assert change.summary == "+1 −0 lines"  # a change's row, as it was
    assert rows[ref].summary == "waits for you: update note; +2 −1 lines"  # against what it saw
    services.close()  # the CLI opens the profile itself
    out = Cli(fixture.root, capsys, init=False).ok("changes").out
    assert 'update note "Ideas"; +2 −1 lines' in out, out


def test_reverting_says_only_what_it_did(services: Services, fixture: Fixture) -> None:
    services.store.update_note(fixture.ideas, NotePatch(body=BASE + "bot\n"), actor=BOT)
    (change,) = _rows(services).values()
    assert act(services, "revert", [change]).line == "Reverted 1."  # not "…, turned down 0."
    ref = _propose(services, fixture.ideas, append="more")
    assert act(services, "revert", [_rows(services)[ref]]).line == "Turned down 1."


def test_a_reverts_conflict_copy_says_it_holds_the_text_from_before_the_change(
    services: Services, fixture: Fixture, capsys: pytest.CaptureFixture[str]
) -> None:
    services.store.update_note(fixture.ideas, NotePatch(body="one\nTWO by bot\nthree\n"), actor=BOT)
    (change,) = _rows(services).values()
    services.store.update_note(fixture.ideas, NotePatch(body="one\nTWO by me\nthree\n"), actor=ACTOR_USER)
    services.close()
    result = Cli(fixture.root, capsys, init=False)("changes", "revert", change.ref)
    assert result.code == 3, result.err
    services = open_services(fixture.root)
    try:
        (copy,) = [n for n in services.store.list_notes() if "(conflict copy" in n.title]
        first = services.store.get_note(copy.id).body.split("\n", 1)[0]
        assert f"the text from before change {change.ref} (by {BOT})" in first, first
        assert "being edited" not in first, first
    finally:
        services.close()


def test_a_proposals_conflict_copy_says_it_waited_for_review(services: Services, fixture: Fixture) -> None:
    ref = _propose(services, fixture.ideas, body="one\nTWO by bot\nthree\n")
    services.store.update_note(fixture.ideas, NotePatch(body="one\nTWO by me\nthree\n"), actor=ACTOR_USER)
    proposal = services.review.rows.proposal(int(ref[1:]))
    conflict = proposal_sides.conflict_of(services.store, proposal)
    assert conflict is not None
    proposal_sides.settle(services.store, services.review.rows, proposal, conflict, Choice.KEEP_BOTH)
    (copy,) = [n for n in services.store.list_notes() if "(conflict copy" in n.title]
    first = services.store.get_note(copy.id).body.split("\n", 1)[0]
    assert f"{ref}'s text (by {BOT})" in first and "waited for review" in first, first
    assert "being edited" not in first, first


def test_changes_json_gives_proposals_and_changes_one_shape(
    services: Services, fixture: Fixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """``noted changes --json`` named a proposal's id and author ``proposal``/``client`` and a
    change's ``id``/``actor``, and gave a proposal no ``summary``: a script reading both had to
    know two shapes. Both now carry the same keys (a proposal keeps its old ones too), and the
    ``id`` is what ``noted changes accept`` takes. Not vacuous: each key is read from each item."""
    ref = _propose(services, fixture.ideas, body="one\nTWO\nthree\nfour\n")
    services.store.update_note(fixture.ideas, NotePatch(body="zero\n" + BASE), actor=BOT)  # beside it
    services.close()
    cli = Cli(fixture.root, capsys, init=False)
    listed = cli.json("changes")
    shared = ("id", "actor", "title", "note_id", "time", "state", "summary")
    assert [sorted(k for k in shared if k in item) for item in listed] == [sorted(shared)] * 2, listed
    proposal, change = listed
    assert (proposal["id"], proposal["proposal"], proposal["actor"], proposal["client"]) == (
        ref,
        ref,
        BOT,
        BOT,
    )
    assert (proposal["summary"], change["summary"]) == ("update note; +2 −1 lines", "+1 −0 lines")
    for item in listed:
        cli.ok("changes", "accept", str(item["id"]))

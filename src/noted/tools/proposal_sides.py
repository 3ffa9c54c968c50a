"""A proposal that meets a note changed since it was proposed on the lines it changes: its three
sides, and the person's choice (a change on other lines is merged by accepting it).

Accepting such a proposal as it stands is refused (``noted.tools.proposals.apply`` writes nothing
and the proposal still waits). Before that, a front end asks ``conflict_of``: for an edit of a note's
text it gives a ``noted.ops.conflicts.Conflict`` whose base is the version the proposal was made on
(kept with the proposal), whose other side is the note now and whose person's side is the proposal
applied to that base. The conflict view and ``noted changes show`` show the three, and ``settle``
carries out the choice with ``noted.ops.conflicts.resolve``, so nothing is lost: take the note now
(the proposal's text stays in the note's history, written as its client), take the proposal (the
note now stays in the history), keep both (the proposal becomes a conflict copy) or save a merge
(both sides stay in the history). The proposal then ends as ``applied`` (its text, or a merge, is
the note's) or ``conflict`` (the note kept its text), and its client is told through
``proposal_status``.
"""

from __future__ import annotations

import dataclasses

from noted.errors import NotedError, NotFoundError
from noted.models import ACTOR_USER, now_ms
from noted.ops.conflicts import Choice, Conflict, resolve
from noted.ops.review_list import applied
from noted.store.protocol import Store
from noted.store.review import ProposalRow, ProposalState, ReviewRows
from noted.tools.proposal_effects import TEXT_TOOL, accepted_text
from noted.tools.proposals import claim, proposal_ref, taken_line

_SAID = {
    Choice.THEIRS: "Kept the note as it is; {ref}'s text is in its history.",
    Choice.OVERWRITE: "Applied {ref}; the note as it was is in its history.",
    Choice.MERGE: "Saved your merge; the note as it was and {ref}'s text are in its history.",
}


def names(ref: str) -> tuple[str, str, str]:
    """What the three sides of proposal ``ref`` (``p12``) are called: the base, the note now, it."""
    return ("as proposed on", "the note now", ref)


def base_text(store: Store, proposal: ProposalRow) -> tuple[str, str] | None:
    """The (title, body) ``proposal`` was made on: kept with it, or (for a proposal kept before
    the text was) the newest revision not newer than it; None when neither is there."""
    kept = proposal.detail.get("base")
    if isinstance(kept, list) and len(kept) == 2:
        return str(kept[0]), str(kept[1])
    try:
        history = store.note_history(proposal.note_id, bodies=False)
        older = [r for r in history if r.time <= proposal.base_updated_time]
        return (older[0].title, store.get_revision(older[0].id).body) if older else None
    except NotFoundError:
        return None


def conflict_of(store: Store, proposal: ProposalRow) -> Conflict | None:
    """The three sides of ``proposal`` when it clashes with what the person changed in the note's
    title or body since it was proposed; None when it can be applied (merged with a change on other
    lines) or has no text to set beside the note's."""
    if proposal.tool != TEXT_TOOL or not proposal.note_id:
        return None
    try:
        now = store.get_note(proposal.note_id)
    except NotFoundError:
        return None
    if accepted_text(proposal, now) is not None:
        return None
    base = base_text(store, proposal)
    if base is None:
        return None
    title, body = applied(proposal, base)
    why = f"{proposal_ref(proposal.id)}'s text (by {proposal.client}), not applied as the note changed while it waited for review"
    return Conflict(dataclasses.replace(now, title=base[0], body=base[1]), title, body, now, why)


def settle(
    store: Store,
    rows: ReviewRows,
    proposal: ProposalRow,
    conflict: Conflict,
    choice: Choice,
    merged: tuple[str, str] | None = None,
) -> str:
    """Carry out the person's ``choice`` (not ``BACK``) and end the proposal; one line saying
    where each side is.

    Raises:
        ConflictError: the note changed again meanwhile (the proposal still waits).
        NotedError: another process accepted or settled the proposal first.
    """
    ref = proposal_ref(proposal.id)
    claimed = claim(rows, proposal)  # so that it is settled once, whoever else acts on it now
    if claimed is None:
        raise NotedError(taken_line(rows.proposal(proposal.id)))
    try:
        done = resolve(store, conflict, choice, actor=ACTOR_USER, mine_actor=proposal.client, merged=merged)
    except BaseException:
        rows.release(proposal.id, time=claimed)
        raise
    taken = choice in (Choice.OVERWRITE, Choice.MERGE)
    if choice is Choice.KEEP_BOTH:
        said = f'Kept both: {ref}\'s text is in "{done.copy.title if done.copy else ""}", beside the note.'
    else:
        said = _SAID[choice].format(ref=ref)
    reason = "" if choice is Choice.OVERWRITE else said
    state = ProposalState.APPLIED if taken else ProposalState.CONFLICT
    rows.settle(
        proposal.id, state, time=now_ms(), reason=reason, result_note_id=done.note.id if taken else ""
    )
    return said

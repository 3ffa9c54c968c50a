"""What the Changes view's workers do (blocking: each is called from a thread): a row's diff, the
line a row's change starts at, and accepting or reverting rows. No Textual here.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from noted.mcp.standing import standing
from noted.ops import review_actions
from noted.ops.conflicts import Choice, Conflict
from noted.ops.diffs import first_changed_line
from noted.ops.review_list import ReviewItem
from noted.services import Services
from noted.store.review import ProposalRow, ProposalState
from noted.tools import proposal_effects, proposal_sides, proposals


@dataclass(frozen=True, slots=True)
class Outcome:
    """What an action did, in one line, and a conflict left to settle: of a revert (``ref`` is the
    change's id) or of a proposal that met a note changed since (``ref`` is ``pN``)."""

    line: str
    conflict: tuple[str, Conflict] | None = None


def diff_text(services: Services, row: ReviewItem) -> str:
    """A row's diff; a proposal that met a note changed since: both sides against its base."""
    if row.proposal:
        proposal = services.review.rows.proposal(int(row.ref[1:]))
        conflict = proposal_sides.conflict_of(services.store, proposal)
        if conflict is not None:
            now, mine = conflict.diffs(proposal_sides.names(row.ref))
            return f"The note changed since {row.ref} was proposed (a diff each against that version):\n{now}{mine}"
        return proposal_effects.what_it_does(services.store, proposal)
    return review_actions.show(services.review, int(row.ref)).text


def changed_line(services: Services, row: ReviewItem) -> int | None:
    """The body line (0-based) where a row's change begins in the note as it is: a change's first
    changed line in its version, a proposal's where it would change the note now; None when only
    the title, the place or the tags changed."""
    if row.proposal:
        found = proposal_effects.preview(services.store, services.review.rows.proposal(int(row.ref[1:])))
        if found is None:
            return None
        (_, now), (_, after) = found
        return first_changed_line(after, now)
    diff = review_actions.show(services.review, int(row.ref))
    if diff.after is None:
        return None
    return first_changed_line((diff.before or ("", ""))[1], diff.after[1])


def act(services: Services, what: str, rows: list[ReviewItem]) -> Outcome:
    """Accept or revert ``rows``; refuses all when one is not waiting any more. A proposal whose
    note changed since is not applied: the first such comes back to be settled by the person."""
    review = services.review
    changes = [int(r.ref) for r in rows if not r.proposal]
    waiting = [review.rows.proposal(int(r.ref[1:])) for r in rows if r.proposal]
    review_actions.waiting(review, changes)
    if what == "accept":
        review_actions.accept(review, changes)
        return _apply(services, waiting, [f"Accepted {len(changes)}"] if changes else [])
    taken = [p for p in waiting if not proposals.reject(review.rows, p)]  # another process came first
    kept = [proposals.taken_line(review.rows.proposal(p.id)) for p in taken]
    for reverted in review_actions.revert_together(review, changes):
        entry_id = reverted.entry.id
        kept += [f"change {entry_id}: {line}" for line in reverted.kept]
        if reverted.conflict is not None:
            return Outcome(
                "; ".join([f"Change {entry_id}: the note changed since; choose what to keep.", *kept]),
                (str(entry_id), reverted.conflict),
            )
    turned = len(waiting) - len(taken)
    done = [f"reverted {len(changes)}"] * bool(changes) + [f"turned down {turned}"] * bool(turned)
    said = [f"{', '.join(done).capitalize()}."] if done else []  # what happened only: no "turned down 0"
    return Outcome("; ".join(said + kept) or "Done.")


def _apply(services: Services, waiting: list[ProposalRow], lines: list[str]) -> Outcome:
    clash: tuple[str, Conflict] | None = None
    for proposal in waiting:
        ref = proposals.proposal_ref(proposal.id)
        conflict = proposal_sides.conflict_of(services.store, proposal)
        if conflict is not None:
            if clash is None:
                clash = (ref, conflict)
                lines.append(f"{ref}: the note changed since it was proposed; choose what to keep.")
            else:
                lines.append(f"{ref}: the note changed since it was proposed; accept it again to choose.")
            continue
        context, refused = standing(services.tool_context(proposal.client), services.registry, proposal)
        done = asyncio.run(proposals.apply(services.registry, proposal, context, refused))
        if not done.claimed:
            lines.append(done.message)
        elif done.state is not ProposalState.APPLIED or done.unchanged:
            lines.append(f"{ref}: {done.message}")
    return Outcome("; ".join(lines) or "Done.", clash)


def settle(
    services: Services, ref: str, conflict: Conflict, choice: Choice, merged: tuple[str, str] | None = None
) -> str:
    """Carry out the person's choice for the conflict of change or proposal ``ref``; one line."""
    if ref.startswith("p"):
        proposal = services.review.rows.proposal(int(ref[1:]))
        return proposal_sides.settle(services.store, services.review.rows, proposal, conflict, choice, merged)
    settled, stayed = review_actions.settle(services.review, int(ref), conflict, choice, merged)
    return " ".join([settled.message, *(f"{line[:1].upper()}{line[1:]}." for line in stayed)])

"""``noted changes`` for proposals (``pN``): the writes that wait, shown, applied or turned down.

Accepting runs the write as its client, on the state of the note it was proposed on
(``noted.tools.proposals.apply``); a text changed since on other lines is merged, a note changed
since in a way it would overwrite is left as it is and the proposal still waits (exit 3), to be settled in the app or rejected. ``show`` of such a proposal gives its three sides
(``noted.tools.proposal_sides``): what changed in the note and what the proposal changes, each
against the version it was proposed on, and the places where they clash, diff3-style.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from noted.cli.context import CliContext
from noted.cli.exits import ExitCode
from noted.errors import InvalidInputError, NotedError
from noted.mcp.standing import standing
from noted.models import now_ms
from noted.ops.conflicts import Conflict
from noted.ops.review_list import action_words, erased_words, line_words, proposal_summary, waiting_words
from noted.store.review import EntryRow, ProposalRow, ProposalState
from noted.tools import proposal_effects, proposal_sides, proposals
from noted.tools.proposals import proposal_ref
from noted.wording import local_time


def waiting(ctx: CliContext, ids: Sequence[int], *, rejecting: bool = False) -> list[ProposalRow]:
    """The proposals, every one open to the decision (``rejecting``: a conflict is too), or an
    error naming the first that is not."""
    if not ids:
        return []
    rows = ctx.services.review.rows
    found = [rows.proposal(i) for i in ids]
    for proposal in found:
        if not proposals.open_to_decide(proposal, rejecting=rejecting):
            raise NotedError(
                proposals.taken_line(proposal), hint="`noted changes --pending` lists those that wait"
            )
    return found


def as_json(proposal: ProposalRow) -> dict[str, object]:
    """A proposal for scripts, with the keys a change has (``id``, what ``noted changes`` takes;
    ``actor``; ``summary``) beside its own older ``proposal`` and ``client``."""
    return {
        "id": proposal_ref(proposal.id),
        "actor": proposal.client,
        "summary": proposal_summary(proposal),
        "proposal": proposal_ref(proposal.id),
        "client": proposal.client,
        "tool": proposal.tool,
        "note_id": proposal.note_id,
        "title": proposal.title,
        "time": proposal.time,
        "state": proposal.state.value,
        "reason": proposal.reason,
        "arguments": proposal.detail.get("arguments", {}),
    }


def list_lines(ctx: CliContext, pending: Sequence[ProposalRow]) -> None:
    if not pending:
        return
    ctx.out("Waiting for you (nothing is written until you accept):")
    for p in pending:
        ctx.line(
            f'  {proposal_ref(p.id):>7}  {local_time(p.time)}  {p.client:<22}  {action_words(p)} "{p.title}"'
            + erased_words(p)
            + (f"; {words}" if (words := line_words(p)) else "")
            + _applying(p)
        )
    ctx.out()


def _applying(proposal: ProposalRow) -> str:
    """What a listing adds for a proposal accepted and being applied, or left so."""
    words = waiting_words(proposal, now_ms())
    return f"  ({words})" if words else ""


def show(ctx: CliContext, proposal_id: int) -> int:
    services = ctx.services
    proposal = services.review.rows.proposal(proposal_id)
    conflict = proposal_sides.conflict_of(services.store, proposal)
    if ctx.json:
        ctx.emit(as_json(proposal) | ({"sides": _sides(conflict)} if conflict else {}))
        return 0
    ctx.line(
        f'{proposal_ref(proposal.id)} · {action_words(proposal)} "{proposal.title}" · {proposal.client} · '
        f"{local_time(proposal.time)} · {proposal.state.value}"
        + (f" ({proposal.reason})" if proposal.reason else "")
    )
    ctx.out()
    if conflict is not None:
        _three_sides(ctx, proposal, conflict)
        return 0
    ctx.out(proposal_effects.what_it_does(services.store, proposal).rstrip("\n"))
    return 0


def _sides(conflict: Conflict) -> dict[str, dict[str, str]]:
    def side(title: str, body: str) -> dict[str, str]:
        return {"title": title, "body": body}

    return {
        "proposed_on": side(conflict.base.title, conflict.base.body),
        "now": side(conflict.theirs.title, conflict.theirs.body),
        "proposal": side(conflict.title, conflict.body),
    }


def _three_sides(ctx: CliContext, proposal: ProposalRow, conflict: Conflict) -> None:
    """The note now and the proposal, each against the version it was proposed on, and where
    they clash (diff3-style: the note now, that version, the proposal)."""
    ref = proposal_ref(proposal.id)
    names = proposal_sides.names(ref)
    now, mine = conflict.diffs(names)
    ctx.out(f"The note changed after {ref} was proposed. What changed in it since:")
    ctx.out(now.rstrip("\n"))
    ctx.out()
    ctx.out(f"What {ref} changes, against the version it was proposed on:")
    ctx.out(mine.rstrip("\n"))
    ctx.out()
    merged, clashes = conflict.merge_text(names)
    if not clashes:
        ctx.out("The two merge without a clash; the Changes view in the app (F3) can save the merge.")
        return
    ctx.out(f"Where they clash ({clashes}; the Changes view in the app, F3, lets you choose or merge):")
    inside = False
    for line in merged.splitlines():
        inside = inside or line.startswith("<<<<<<< ")
        if inside:
            ctx.out(line)
        inside = inside and not line.startswith(">>>>>>> ")


def accept(ctx: CliContext, pending: Sequence[ProposalRow]) -> int:
    """Apply each proposal; 3 when one met a note changed since, 16 when Joplin did not answer one's
    write (it may have landed), 1 when one could not be applied."""
    services = ctx.services
    code = ExitCode.OK
    for proposal in pending:
        context, refused = standing(services.tool_context(proposal.client), services.registry, proposal)
        done = asyncio.run(proposals.apply(services.registry, proposal, context, refused))
        ref = proposal_ref(proposal.id)
        if not done.claimed:  # another accept or reject came first: nothing was run here
            code = max(code, ExitCode.REFUSED)
            ctx.error(done.message)
            continue
        if done.state is ProposalState.APPLIED:
            words = f'{action_words(proposal)} "{proposal.title}"'
            said = f"{ref} ({words}): {done.message}." if done.unchanged else ""
            ctx.out(said or f"Applied {ref}: {words}.") if not ctx.json else None
            continue
        unsure = ExitCode.BACKEND if done.kept else ExitCode.REFUSED  # kept: its answer was lost
        code = ExitCode.CONFLICT if done.clash else max(code, unsure)
        ctx.error(f"{ref}: {done.message}")
        if done.clash:
            ctx.error(
                f"  `noted changes show {ref}` shows both; the Changes view in the app (F3) lets you "
                f"choose or merge, `noted changes reject {ref}` turns it down"
            )
    if ctx.json:
        ctx.emit([as_json(services.review.rows.proposal(p.id)) for p in pending])
    return int(code)


def reject(ctx: CliContext, ids: Sequence[int], reason: str) -> int:
    reason = " ".join(reason.split())[:300]
    pending = waiting(ctx, ids, rejecting=True)
    rows = ctx.services.review.rows
    code, done = ExitCode.OK, []
    for proposal in pending:
        if proposals.reject(rows, proposal, reason):
            done.append(proposal)
            continue
        code = ExitCode.REFUSED  # another accept or reject came first
        ctx.error(proposals.taken_line(rows.proposal(proposal.id)))
    if ctx.json:
        ctx.emit([as_json(rows.proposal(p.id)) for p in pending])
    elif done:
        ctx.out(f"Rejected {', '.join(proposal_ref(p.id) for p in done)}; nothing was written.")
    return int(code)


def changes_made(ctx: CliContext, ids: Sequence[int]) -> list[int]:
    """The change each applied proposal made, which ``revert pN`` reverts; one line saying why
    when a proposal made none (nothing is done then)."""
    review = ctx.services.review
    found: list[int] = []
    said: list[str] = []
    for proposal in (review.rows.proposal(i) for i in ids):
        ref = proposal_ref(proposal.id)
        if proposal.state in (ProposalState.PENDING, ProposalState.APPLYING):
            raise InvalidInputError(f"{ref} changed nothing yet: reject it rather than revert it")
        if proposal.state is not ProposalState.APPLIED:
            raise NotedError(f"{ref} ended {proposal.state.value}: it changed nothing to revert")
        entry = _entry_of(review.rows.entries(state=None, actor=proposal.client), proposal)
        if entry is None:
            raise NotedError(
                f"{ref} was applied, but the change it made is not in the review any more",
                hint=f"`noted history NOTE` shows it; `noted changes --actor {proposal.client}` lists what waits",
            )
        said.append(f"{ref} was applied as change {entry.id}.")
        found.append(entry.id)
    for line in [] if ctx.json else said:
        ctx.out(line)
    return found


def _entry_of(entries: Sequence[EntryRow], proposal: ProposalRow) -> EntryRow | None:
    """The review entry of the change an applied ``proposal`` made (its client's, on its note,
    between the proposal and its acceptance), among ``entries``, newest first."""
    note_id = proposal.result_note_id or proposal.note_id
    for entry in entries:
        made = entry.first_time <= proposal.decided_time and entry.last_time >= proposal.time
        if entry.note_id == note_id and entry.actor == proposal.client and made:
            return entry
    return None

"""Writes that wait for the person: proposals, and the tool a client asks about them with.

A caller in review mode (an MCP client whose token says ``--writes review``, or the assistant with
``ai.writes = review``) has ``ToolContext.writes_wait`` set. ``ToolRegistry.call`` then checks the
call as usual (switch, scope, arguments), rehearses the tool up to its first write so a call direct
mode refuses is refused alike, and one that would change nothing is answered alike
(``noted.tools.rehearsal``), and, instead of running the rest, hands it to
``propose``: the call is stored (``noted.store.review.ReviewRows.propose``) with the note's
``updated_time`` as it was, and the model is told that it waits and under which id. ``apply`` runs
it when the person accepts, as the client, on the state it was made on (``noted.tools.proposal_effects``:
what the person changed since that it would overwrite makes it wait, a text changed on other lines
is merged as an approved write's is; its tags are applied as a
change to those it saw). A proposal that cannot be applied as things are keeps waiting, or, when it
never can be (its note deleted for good), ends ``failed``, not ``rejected``; nothing is lost, and the
client learns the outcome through ``proposal_status`` (``noted.tools.proposal_status``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from noted.errors import NotFoundError
from noted.models import Note, new_id, now_ms
from noted.ops.erased import ErasedNote, last_notebook
from noted.store.protocol import Store
from noted.store.review import STUCK_MS, ProposalRow, ProposalState, ReviewRows, stuck
from noted.tools import proposal_effects as effects
from noted.tools import schema as s
from noted.tools.base import Payload, Tool, ToolContext, ToolError
from noted.tools.payloads import view, visible_erased, visible_note
from noted.tools.proposal_effects import TEXT_TOOL
from noted.tools.scope import Scope

if TYPE_CHECKING:
    from noted.tools.registry import ToolRegistry

PENDING = "pending_review"
"""The ``status`` of a write tool's answer when the write waits for the person."""
PENDING_RESULT: Payload = s.obj(
    {
        "status": {"type": "string", "const": PENDING},
        "proposal": s.string("The proposal's id; proposal_status tells what became of it."),
        "message": s.string("What happens next."),
    },
    ("status", "proposal", "message"),
)
"""A write tool's other possible answer (MCP clients check answers against the output schema)."""


LOST = (
    "accepted, but Joplin did not answer: its change may or may not be written; look at the note, "
    "then accept it again or reject it"
)
"""What a proposal whose accept met no answer says while it waits again."""


def proposal_ref(proposal_id: int) -> str:
    """How a proposal is named to people and models: ``p12``."""
    return f"p{proposal_id}"


def note_key(tool: Tool) -> str | None:
    """The argument that names the note a write tool changes, if it names one."""
    properties = tool.input_schema.get("properties", {})
    for key in ("id", "note_id"):
        described = str(properties.get(key, {}).get("description", "")).lower()
        if "note" in described and "notebook" not in described:
            return key
    return None


def is_mine(proposal: ProposalRow, ctx: ToolContext) -> bool:
    """Whether ``ctx``'s caller made ``proposal``: the same actor, and the same token (a client
    added again under a revoked one's name is a stranger to its proposals)."""
    same = _client(proposal.client) == _client(ctx.actor)
    return same and str(proposal.detail.get("owner", "")) == ctx.owner


_DOORS = ("mcp:", "actions:")
"""The prefixes of an outside app's actors, one a door (MCP, the OpenAPI door): a token's client is
one client through either (``mcp:bot`` and ``actions:bot`` see the same proposals)."""


def _client(actor: str) -> str:
    door = next((d for d in _DOORS if actor.startswith(d)), "")
    return f"outside:{actor.removeprefix(door)}" if door else actor


def _scope_detail(scope: Scope) -> list[list[Any]]:
    return [[sorted(limit.notebooks), limit.source] for limit in scope.limits]


def propose(tool: Tool, args: Payload, ctx: ToolContext) -> Payload:
    """Store ``tool(args)`` as a proposal of ``ctx.actor``; the answer the model gets."""
    rows = rows_of(ctx)
    key = note_key(tool)
    note = _note_of(ctx, str(args[key]), key) if key and key in args else None
    named = tool.label(ctx, args) if tool.label is not None and note is None else ""
    title = note.title if note else named or str(args.get("title", "")) or tool.title
    row = rows.propose(
        client=ctx.actor,
        tool=tool.name,
        note_id=note.id if note else "",
        title=title,
        base_updated_time=note.updated_time if isinstance(note, Note) else 0,
        time=now_ms(),
        detail={
            "arguments": dict(args),
            "scope": _scope_detail(ctx.scope),
            **({"owner": ctx.owner} if ctx.owner else {}),
            **_base(ctx, tool, note),
            **({"new_id": new_id()} if tool.makes else {}),  # what the item it makes is called
        },
    )
    ref = proposal_ref(row.id)
    return {
        "status": PENDING,
        "proposal": ref,
        "message": f"Nothing was written: this change waits for the person's review as {ref}. "
        "It is applied only if they accept it; proposal_status tells you what became of it.",
    }


def _note_of(ctx: ToolContext, note_id: str, field: str) -> Note | ErasedNote:
    """The note a write names, in the caller's scope: one erased outside noted whose revisions are
    kept too, as ``restore_note`` writes it again (the rehearsal refused any other write on it)."""
    scope = view(ctx)
    try:
        return visible_note(ctx, scope, note_id, field=field)
    except ToolError:
        return visible_erased(ctx, scope, note_id, field=field)


def _base(ctx: ToolContext, tool: Tool, note: Note | ErasedNote | None) -> dict[str, Any]:
    """What of the note the proposal was made on is kept with it: the rest of its state (``seen``;
    of an erased note, that it was erased and where: ``noted.tools.proposal_effects.erased_seen``)
    and, for ``update_note``, its text, which ``noted.tools.proposal_sides`` shows as a third side
    if the note's text changes meanwhile."""
    if isinstance(note, ErasedNote):
        return {"seen": effects.erased_seen(note)}
    if note is None:
        return {}
    text = {"base": [note.title, note.body]} if tool.name == TEXT_TOOL else {}
    return {"seen": effects.seen(ctx.store, note), **text}


def rows_of(ctx: ToolContext) -> ReviewRows:
    """The proposals ``ctx`` keeps; a ``ToolError`` where none are kept."""
    if ctx.review is None:
        raise ToolError("proposals are not kept here", advice="ask the person")
    return ctx.review


@dataclass(frozen=True, slots=True)
class Applied:
    """What accepting a proposal did: how it ended, the tool's answer or refusal, and the note.
    ``claimed`` is False when nothing was run because another caller had accepted or settled it.
    A proposal that could not be applied as things are now, for a reason the person can change,
    ends ``PENDING`` (it still waits); ``clash`` says that reason is a change the person made since
    that it would overwrite."""

    state: ProposalState
    message: str
    note_id: str = ""
    claimed: bool = True
    clash: bool = False
    kept: str = ""
    """What the proposal says while it waits again (``ProposalRow.reason``): an accept whose
    answer was lost."""
    unchanged: bool = False
    """Settled ``APPLIED`` without a write: its change was there already (the person made it)."""


UNCHANGED = "its change was there already, so it changed nothing"
"""What accepting a proposal whose change is there already did (``Applied.unchanged``)."""


def open_to_decide(proposal: ProposalRow, *, rejecting: bool = False) -> bool:
    """Whether the person may accept (or, ``rejecting``, turn down) ``proposal`` now: one that
    waits, or one that ended as a conflict, which the person may still dismiss."""
    dismissable = rejecting and proposal.state is ProposalState.CONFLICT
    return proposal.state is ProposalState.PENDING or dismissable or stuck(proposal, now_ms())


def taken_line(proposal: ProposalRow) -> str:
    """Why ``proposal`` cannot be accepted or rejected now, in one line."""
    ref = proposal_ref(proposal.id)
    match proposal.state:
        case ProposalState.APPLYING:
            return f"{ref} was accepted already: it is being applied"
        case ProposalState.APPLIED:
            return f"{ref} was accepted already (applied)"
        case ProposalState.CONFLICT:
            return (
                f"{ref} ended as a conflict with a change made to its note since ({proposal.reason or 'nothing written'}); "
                f"it can only be rejected now"
            )
        case ProposalState.FAILED:
            return f"{ref} could not be applied ({proposal.reason}); nothing was written"
        case _:
            return f"{ref} was {proposal.state.value} already"


def claim(rows: ReviewRows, proposal: ProposalRow, *, rejecting: bool = False) -> int | None:
    """Claim ``proposal`` for this caller alone; the claim's time, or None when another has it.
    ``rejecting`` claims a conflict too (to dismiss it)."""
    now = now_ms()
    also = (ProposalState.CONFLICT,) if rejecting else ()
    return now if rows.claim(proposal.id, time=now, stuck_before=now - STUCK_MS, also=also) else None


async def apply(
    registry: ToolRegistry, proposal: ProposalRow, ctx: ToolContext, refused: str = ""
) -> Applied:
    """Run ``proposal`` as its client, on the state of the note it was proposed on, and record the
    outcome; ``ctx`` is the client's as it stands now (``noted.mcp.standing``): the write runs
    within both its scope and the one the proposal was made in, and ``refused`` says why the client
    may make no write now (its token revoked): then nothing is run and the proposal fails.

    The proposal is claimed first, in one write transaction, so that two accepts at once run it
    once: the second is told it was accepted already. A run that raises, or that meets a note the
    person can still make right (changed since, in the trash, moved out of the client's
    notebooks), puts it back to wait. A claim whose process was killed is taken over at once
    (``noted.store.review.stuck``); what a proposal makes (``Tool.makes``) has the id fixed when it
    was proposed, so one a killed run wrote already is found, and the proposal settled, not run twice."""
    rows = rows_of(ctx)
    claimed = claim(rows, proposal)
    if claimed is None:
        current = rows.proposal(proposal.id)
        return Applied(current.state, taken_line(current), claimed=False)
    done: Applied | None = None
    try:
        if refused:
            return _settle(rows, proposal, ProposalState.FAILED, refused)
        done = await _run(registry, rows, proposal, ctx)
        return done
    finally:  # once settled, there is nothing to put back
        rows.release(proposal.id, time=claimed, reason=done.kept if done else "")


async def _run(registry: ToolRegistry, rows: ReviewRows, proposal: ProposalRow, ctx: ToolContext) -> Applied:
    from dataclasses import replace

    args = dict(proposal.detail.get("arguments", {}))
    tool = registry.get(proposal.tool)
    made = str(proposal.detail.get("new_id", "")) or None
    if made is not None and tool is not None and tool.makes is not None and tool.makes(ctx.store, made):
        return _settle(rows, proposal, ProposalState.APPLIED, "applied", made)  # a killed apply wrote it
    context = replace(
        ctx,
        actor=proposal.client,
        scope=Scope(effects.scope_of(proposal.detail).limits + ctx.scope.limits),
        writes_wait=False,
        approve=None,
        new_id=made,
    )
    if tool is not None and proposal.note_id:
        try:
            note: Note | None = ctx.store.get_note(proposal.note_id)
        except NotFoundError:  # gone, or erased with its revisions kept: restore_note writes it again
            note = None
        if note is None and effects.erased(ctx.store, proposal) is None:
            return _settle(rows, proposal, ProposalState.FAILED, "its note was deleted for good")
        fitted = args if note is None else _fitted(rows, proposal, tool, args, note, ctx.store)
        if isinstance(fitted, Applied):
            return fitted
        args = fitted
    # Rehearsed first, as it was when proposed: a run that would reach no write changes nothing
    # (the person restored the note, added the tag…), and is not to be called "applied".
    foretold = await registry.foretold(proposal.tool, args, context)
    if foretold is not None and foretold.ok:
        return _settle(rows, proposal, ProposalState.APPLIED, UNCHANGED, proposal.note_id, unchanged=True)
    result = foretold or await registry.call(proposal.tool, args, context)
    if result.ok:
        note_id = str((result.payload or {}).get("id", proposal.note_id))
        return _settle(rows, proposal, ProposalState.APPLIED, "applied", note_id)
    message = result.for_person()
    if "changed since" in message:  # between the check above and the write
        return _waits(proposal, _moved(proposal, ["the note"]), clash=True)
    if result.landed:  # not a failure: accepting again finds its change there, or what it made
        ref = proposal_ref(proposal.id)
        said = _waits(proposal, f"{message}; {ref} still waits: if its change is not there, accept it")
        return replace(said, kept=LOST)
    return _unapplied(rows, proposal, context, message)


def _fitted(
    rows: ReviewRows, proposal: ProposalRow, tool: Tool, args: dict[str, Any], note: Note, store: Store
) -> dict[str, Any] | Applied:
    """The arguments to apply ``proposal`` to ``note`` as it is now with, or how it ends without a
    run: it waits when it would overwrite what the person changed since, and is settled when its
    change is there already."""
    changed = effects.overwritten(store, proposal, note)
    if changed:
        return _waits(proposal, _moved(proposal, changed), clash=True)
    if effects.text_there(proposal, note):  # the rest (tags, notebook…) may still be to do
        args = {k: v for k, v in args.items() if k not in (*effects.REPLACES_TITLE, *effects.REPLACES_BODY)}
        if args.keys() <= {"id"}:
            return _settle(rows, proposal, ProposalState.APPLIED, UNCHANGED, note.id, unchanged=True)
    else:  # a change since on other lines is merged, as an approved write's is
        args = effects.carried_args(proposal, note, args)
    if "base_updated_time" in tool.input_schema.get("properties", {}):
        legacy = "seen" not in proposal.detail  # kept before what it saw was: its own version
        args["base_updated_time"] = proposal.base_updated_time if legacy else note.updated_time
    tags = effects.tags_for(store, proposal, note.id)
    if tags is not None:
        args["tags"] = tags
    return args


def _unapplied(rows: ReviewRows, proposal: ProposalRow, context: ToolContext, message: str) -> Applied:
    """A refusal of the tool: the proposal waits when the person can make it apply (its note is in the
    trash, or it or its notebook is out of the client's notebooks now; an erased note's last notebook
    is in the trash); otherwise it ends ``failed``."""
    ref = proposal_ref(proposal.id)
    erased = None
    try:
        note = context.store.get_note(proposal.note_id) if proposal.note_id else None
    except NotFoundError:
        note, erased = None, effects.erased(context.store, proposal)
        if erased is None:
            return _settle(rows, proposal, ProposalState.FAILED, "its note was deleted for good")
        if view(context).allows_folder(erased.notebook):  # something to do first, then accept
            if last_notebook(context.store, erased.id) != erased.notebook:  # the tool's line names a tool
                message = f'note "{erased.title}" was last in a notebook in the trash: restore that notebook'
            return _waits(proposal, f"{message}, then accept {ref} again (it still waits), or reject it")
    if note is not None and note.is_trashed:
        return _waits(
            proposal,
            f'note "{note.title}" is in the trash: restore it, then accept {ref} again (it still waits)',
        )
    if note is not None and not view(context).allows_note(note):
        return _waits(
            proposal,
            f'note "{note.title}" is no longer in a notebook {proposal.client} may change: move it back, '
            f"then accept {ref} again (it still waits), or reject it",
        )
    notebook = str(proposal.detail.get("arguments", {}).get("notebook_id", "")) or (
        erased.notebook if erased else ""
    )
    if notebook and not view(context).allows_folder(notebook):
        return _waits(
            proposal,
            f"its notebook is no longer one {proposal.client} may change: accept {ref} again once it "
            "is (it still waits), or reject it",
        )
    if notebook and not _there(context.store, notebook):  # the tool's line names a tool
        return _settle(rows, proposal, ProposalState.FAILED, "its notebook was deleted for good")
    return _settle(rows, proposal, ProposalState.FAILED, message)


def _there(store: Store, folder_id: str) -> bool:
    try:
        store.get_folder(folder_id)
    except NotFoundError:
        return False
    return True


def _waits(proposal: ProposalRow, message: str, *, clash: bool = False) -> Applied:
    return Applied(ProposalState.PENDING, message, proposal.note_id, clash=clash)


def _moved(proposal: ProposalRow, changed: Sequence[str]) -> str:
    return (
        f'"{proposal.title}" changed after {proposal_ref(proposal.id)} was proposed ({", ".join(changed)}), '
        f"and accepting it would overwrite that: nothing was written, and {proposal_ref(proposal.id)} still waits"
    )


def _settle(
    rows: ReviewRows,
    proposal: ProposalRow,
    state: ProposalState,
    message: str,
    note_id: str = "",
    *,
    unchanged: bool = False,
) -> Applied:
    reason = "" if state is ProposalState.APPLIED else message
    rows.settle(proposal.id, state, time=now_ms(), reason=reason, result_note_id=note_id)
    return Applied(state, message, note_id, unchanged=unchanged)


def reject(rows: ReviewRows, proposal: ProposalRow, reason: str = "") -> bool:
    """Turn ``proposal`` down (one that waits, or dismiss one that ended as a conflict); nothing is
    written. False when another caller had accepted or settled it first (then it is left as it is)."""
    if claim(rows, proposal, rejecting=True) is None:
        return False
    return rows.settle(proposal.id, ProposalState.REJECTED, time=now_ms(), reason=reason)

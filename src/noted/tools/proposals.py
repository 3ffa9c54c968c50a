"""Writes that wait for the person: proposals, and the tool a client asks about them with.

A caller in review mode (an MCP client whose token says ``--writes review``, or the assistant with
``ai.writes = review``) has ``ToolContext.writes_wait`` set. ``ToolRegistry.call`` then checks the
call as usual (switch, scope, arguments), rehearses the tool up to its first write so a call direct
mode refuses is refused alike, and one that would change nothing is answered alike
(``noted.tools.rehearsal``), and, instead of running the rest, hands it to
``propose``: the call is stored (``noted.store.review.ReviewRows.propose``) with the note's
``updated_time`` as it was, and the model is told that it waits and under which id. ``apply`` runs
it when the person accepts, as the client, against that version: ``update_note`` gets it as its
``base_updated_time``, and any other tool is refused when the note changed meanwhile. A refused
proposal keeps its arguments, so nothing is lost; the client learns the outcome through
``proposal_status``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from noted.errors import NotFoundError
from noted.models import Note, NotePatch, now_ms
from noted.store.protocol import Store
from noted.store.review import STUCK_MS, ProposalRow, ProposalState, ReviewRows, stuck
from noted.tools import schema as s
from noted.tools.base import READ, Payload, Tool, ToolContext, ToolError
from noted.tools.payloads import iso, view, visible_note
from noted.tools.scope import Limit, Scope

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


def _scope_detail(scope: Scope) -> list[list[Any]]:
    return [[sorted(limit.notebooks), limit.source] for limit in scope.limits]


def _scope_of(detail: Mapping[str, Any]) -> Scope:
    return Scope(tuple(Limit(frozenset(ids), source) for ids, source in detail.get("scope", [])))


def propose(tool: Tool, args: Payload, ctx: ToolContext) -> Payload:
    """Store ``tool(args)`` as a proposal of ``ctx.actor``; the answer the model gets."""
    rows = _rows(ctx)
    key = note_key(tool)
    note = visible_note(ctx, view(ctx), str(args[key]), field=key) if key and key in args else None
    named = tool.label(ctx, args) if tool.label is not None and note is None else ""
    title = note.title if note else named or str(args.get("title", "")) or tool.title
    row = rows.propose(
        client=ctx.actor,
        tool=tool.name,
        note_id=note.id if note else "",
        title=title,
        base_updated_time=note.updated_time if note else 0,
        time=now_ms(),
        detail={"arguments": dict(args), "scope": _scope_detail(ctx.scope), **_base(tool, note)},
    )
    ref = proposal_ref(row.id)
    return {
        "status": PENDING,
        "proposal": ref,
        "message": f"Nothing was written: this change waits for the person's review as {ref}. "
        "It is applied only if they accept it; proposal_status tells you what became of it.",
    }


TEXT_TOOL = "update_note"
"""The write whose proposal keeps the text it was proposed on (``detail["base"]``): if the note
changes meanwhile, ``noted.tools.proposal_sides`` shows it as a third side and merges against it."""


def _base(tool: Tool, note: Note | None) -> dict[str, Any]:
    return {"base": [note.title, note.body]} if note is not None and tool.name == TEXT_TOOL else {}


def _rows(ctx: ToolContext) -> ReviewRows:
    if ctx.review is None:
        raise ToolError("proposals are not kept here; ask the person")
    return ctx.review


@dataclass(frozen=True, slots=True)
class Applied:
    """What accepting a proposal did: how it ended, the tool's answer or refusal, and the note.
    ``claimed`` is False when nothing was run because another caller had accepted or settled it."""

    state: ProposalState
    message: str
    note_id: str = ""
    claimed: bool = True


def open_to_decide(proposal: ProposalRow) -> bool:
    """Whether the person may accept or reject ``proposal`` now."""
    return proposal.state is ProposalState.PENDING or stuck(proposal, now_ms())


def taken_line(proposal: ProposalRow) -> str:
    """Why ``proposal`` cannot be accepted or rejected now, in one line."""
    ref = proposal_ref(proposal.id)
    if proposal.state is ProposalState.APPLYING:
        return f"{ref} was accepted already: it is being applied"
    said = "accepted" if proposal.state in (ProposalState.APPLIED, ProposalState.CONFLICT) else "rejected"
    return f"{ref} was {said} already ({proposal.state.value})"


def claim(rows: ReviewRows, proposal: ProposalRow) -> int | None:
    """Claim ``proposal`` for this caller alone; the claim's time, or None when another has it."""
    now = now_ms()
    return now if rows.claim(proposal.id, time=now, stuck_before=now - STUCK_MS) else None


async def apply(registry: ToolRegistry, proposal: ProposalRow, ctx: ToolContext) -> Applied:
    """Run ``proposal`` as its client, against the version it was proposed on, and record the
    outcome; ``ctx`` is the client's (actor and store), its scope the one the proposal was made in.

    The proposal is claimed first, in one write transaction, so that two accepts at once run it
    once: the second is told it was accepted already. A run that raises puts it back to wait."""
    rows = _rows(ctx)
    claimed = claim(rows, proposal)
    if claimed is None:
        current = rows.proposal(proposal.id)
        return Applied(current.state, taken_line(current), claimed=False)
    try:
        return await _run(registry, rows, proposal, ctx)
    finally:
        rows.release(proposal.id, time=claimed)  # once settled, there is nothing to put back


async def _run(registry: ToolRegistry, rows: ReviewRows, proposal: ProposalRow, ctx: ToolContext) -> Applied:
    from dataclasses import replace

    args = dict(proposal.detail.get("arguments", {}))
    tool = registry.get(proposal.tool)
    context = replace(
        ctx, actor=proposal.client, scope=_scope_of(proposal.detail), writes_wait=False, approve=None
    )
    if tool is not None and proposal.note_id:
        if "base_updated_time" in tool.input_schema.get("properties", {}):
            args["base_updated_time"] = proposal.base_updated_time
        elif _moved_on(ctx.store, proposal):
            return _settle(rows, proposal, ProposalState.CONFLICT, _moved(proposal))
    result = await registry.call(proposal.tool, args, context)
    if result.ok:
        note_id = str((result.payload or {}).get("id", proposal.note_id))
        return _settle(rows, proposal, ProposalState.APPLIED, "applied", note_id)
    message = result.message or "the tool failed"
    state = ProposalState.CONFLICT if "changed since" in message else ProposalState.REJECTED
    return _settle(rows, proposal, state, _moved(proposal) if state is ProposalState.CONFLICT else message)


def _moved_on(store: Store, proposal: ProposalRow) -> bool:
    """Whether the note changed (or went for good) after the proposal was made."""
    try:
        return store.get_note(proposal.note_id).updated_time != proposal.base_updated_time
    except NotFoundError:
        return True


def _moved(proposal: ProposalRow) -> str:
    return (
        f'"{proposal.title}" changed after {proposal_ref(proposal.id)} was proposed; nothing was written '
        "(the proposal is kept: read the note again and propose anew)"
    )


def _settle(
    rows: ReviewRows, proposal: ProposalRow, state: ProposalState, message: str, note_id: str = ""
) -> Applied:
    reason = "" if state is ProposalState.APPLIED else message
    rows.settle(proposal.id, state, time=now_ms(), reason=reason, result_note_id=note_id)
    return Applied(state, message, note_id)


def reject(rows: ReviewRows, proposal: ProposalRow, reason: str = "") -> bool:
    """Turn ``proposal`` down; nothing is written. False when another caller had accepted or
    settled it first (then it is left as it is)."""
    if claim(rows, proposal) is None:
        return False
    return rows.settle(proposal.id, ProposalState.REJECTED, time=now_ms(), reason=reason)


# The tool a client asks with ------------------------------------------------------------------------


def _status(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    """The caller's own proposals within its scope; any other id is left out, as one that names
    nothing is, so the answer tells nothing of other clients' proposals or of notes out of scope."""
    rows = _rows(ctx)
    wanted = {str(i).strip().lower().removeprefix("p") for i in args.get("ids", [])}
    mine = [p for p in rows.proposals(state=None) if p.client == ctx.actor]
    found = _within(ctx, [p for p in mine if not wanted or str(p.id) in wanted])
    return {
        "proposals": [
            {
                "proposal": proposal_ref(p.id),
                "tool": p.tool,
                "note": p.title,
                "status": p.state.value,
                "reason": p.reason,
                "proposed": iso(p.time),
                **({"decided": iso(p.decided_time)} if p.decided_time else {}),
            }
            for p in found[: int(args.get("limit", 50))]
        ]
    }


def _within(ctx: ToolContext, found: list[ProposalRow]) -> list[ProposalRow]:
    """The proposals of ``found`` the caller's scope reaches now: one on a note, where that note
    is in scope; any other, where the scope it was made in lies inside the caller's (a client
    token's notebooks can be narrowed by adding it again). Fails closed: a note gone is out."""
    scope = view(ctx)
    if scope.unrestricted or not found:
        return found
    notes = {n.id: n for n in ctx.store.get_notes([p.note_id for p in found if p.note_id])}
    folders = ctx.store.list_folders(include_trashed=True)
    allowed = scope.folder_ids or frozenset()

    def reaches(proposal: ProposalRow) -> bool:
        if proposal.note_id:
            note = notes.get(proposal.note_id)
            return note is not None and scope.allows_note(note)
        made_in = _scope_of(proposal.detail).resolve(folders).folder_ids
        return made_in is not None and made_in <= allowed

    return [p for p in found if reaches(p)]


PROPOSAL_STATUS = Tool(
    name="proposal_status",
    title="What became of my proposals",
    description=(
        "When your writes wait for the person's review, each answer names a proposal (p12). This "
        "tells what became of yours: pending, applying (accepted, being written), applied, rejected "
        "(with the person's reason, if they "
        "gave one) or conflict (the note changed before they accepted it: read it again and propose "
        "anew). Without ids, your latest proposals."
    ),
    input_schema=s.obj(
        {
            "ids": s.array(
                s.string("A proposal id, as p12.", maxLength=24), "Which proposals.", maxItems=100
            ),
            "limit": s.integer("At most this many.", minimum=1, maximum=200),
        },
        (),
    ),
    output_schema=s.obj(
        {
            "proposals": s.array(
                s.obj(
                    {
                        "proposal": s.string(),
                        "tool": s.string(),
                        "note": s.string(),
                        "status": s.string(),
                        "reason": s.string(),
                        "proposed": s.string(),
                        "decided": s.string(),
                    },
                    ("proposal", "tool", "note", "status", "reason", "proposed"),
                ),
                "Newest first.",
            )
        },
        ("proposals",),
    ),
    annotations=READ,
    handler=_status,
    examples=({"ids": ["p12", "p13"]}, {}),
)

TOOLS = (PROPOSAL_STATUS,)


def args_text(proposal: ProposalRow) -> str:
    """The proposal's arguments, for a person to read."""
    return json.dumps(proposal.detail.get("arguments", {}), ensure_ascii=False, indent=2)


def preview(store: Store, proposal: ProposalRow) -> tuple[tuple[str, str], tuple[str, str]] | None:
    """The note's (title, body) now and as the proposal would leave it, for the text-changing
    proposals (``create_note``, ``update_note``); None for the others (their arguments say it)."""
    args = proposal.detail.get("arguments", {})
    if proposal.tool == "create_note":
        return ("", ""), (str(args.get("title", "")), str(args.get("body", "")))
    if proposal.tool != TEXT_TOOL or not proposal.note_id:
        return None
    try:
        note = store.get_note(proposal.note_id)
    except NotFoundError:
        return None
    return (note.title, note.body), applied(proposal, (note.title, note.body))


def applied(proposal: ProposalRow, text: tuple[str, str]) -> tuple[str, str]:
    """The (title, body) an ``update_note`` proposal makes of ``text``."""
    args = proposal.detail.get("arguments", {})
    title, body = text
    patch = NotePatch(body=args.get("body"), append=args.get("append"), prepend=args.get("prepend"))
    body = patch.body_after(body)
    if isinstance(args.get("replace_text"), dict):
        swap = args["replace_text"]
        body = body.replace(str(swap.get("find", "")), str(swap.get("replace", "")), 1)
    return str(args.get("title", title)), body

"""The tool a client in review mode asks what became of its proposals with: ``proposal_status``
(the proposals themselves: ``noted.tools.proposals``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from noted.store.review import ProposalRow
from noted.tools import proposal_effects as effects
from noted.tools import schema as s
from noted.tools.base import READ, Payload, Tool, ToolContext
from noted.tools.payloads import iso, view
from noted.tools.proposals import is_mine, proposal_ref, rows_of


def _status(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    """The caller's own proposals within its scope. Any other id asked for is listed in
    ``not_found``, as one that names nothing is, so the answer tells nothing of other clients'
    proposals or of notes out of scope, and no id asked for is passed over in silence."""
    rows = rows_of(ctx)
    asked = {str(i).strip(): _key(str(i)) for i in args.get("ids", [])}
    wanted = set(asked.values())
    mine = [p for p in rows.proposals(state=None) if is_mine(p, ctx)]
    found = _within(ctx, [p for p in mine if not wanted or str(p.id) in wanted])
    shown = {str(p.id) for p in found}
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
        ],
        "not_found": [given for given, key in asked.items() if key not in shown],
    }


def _key(given: str) -> str:
    """``P12 `` and ``p12`` name the same proposal."""
    return given.strip().lower().removeprefix("p")


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
        made_in = effects.scope_of(proposal.detail).resolve(folders).folder_ids
        return made_in is not None and made_in <= allowed

    return [p for p in found if reaches(p)]


PROPOSAL_STATUS = Tool(
    name="proposal_status",
    title="What became of my proposals",
    description=(
        "When your writes wait for the person's review, each answer names a proposal (p12). This "
        "tells what became of yours: pending (it still waits, also when accepting it met a note "
        "changed since; the reason says when an accept met no answer and may have written it), applying (accepted, being written), applied, rejected (with the person's "
        "reason, if they gave one), conflict (the note had changed and the person kept its text: "
        "read it again and propose anew) or failed (it could not be applied, e.g. the note was "
        "deleted for good: the reason says why). Without ids, your latest proposals. Ids that name "
        "no proposal of yours you can see are listed in not_found."
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
            ),
            "not_found": s.array(s.string(), "Ids that name no proposal of yours you can see."),
        },
        ("proposals", "not_found"),
    ),
    annotations=READ,
    handler=_status,
    examples=({"ids": ["p12", "p13"]}, {}),
)

TOOLS = (PROPOSAL_STATUS,)

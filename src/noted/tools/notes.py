"""The tools that read notes: ``read_note``, ``read_notes`` and ``note_history``.

Bodies are capped (8,000 characters by default) and paged by offset; a long note can instead be
read by its outline and one section at a time. Sections come from ``noted.markdown``, so a path
given here is the path a search hit reported.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from noted.markdown import outline, outline_lines, section_text
from noted.models import Note
from noted.ops.attachments import linking_notes
from noted.ops.erased import ErasedNote
from noted.settings.handles import LARGE_NOTE_CHARS
from noted.tools import schema as s
from noted.tools.base import READ, Payload, Tool, ToolContext, ToolError
from noted.tools.payloads import (
    DEFAULT_MAX_CHARS,
    iso,
    note_fields,
    page,
    pick_section,
    view,
    visible_erased,
    visible_note,
)
from noted.tools.proposals import is_mine, proposal_ref
from noted.tools.scope import ScopeView

READ_NOTES_MAX_IDS = 20
READ_NOTES_BUDGET = 8_000
HISTORY_MAX = 100

# The paging inputs shared with editor_read_note.
READ_INPUTS: dict[str, Payload] = {
    "outline": s.boolean(
        "True: return only the outline, one line per heading: path<TAB>chars<TAB>heading. "
        "Cannot be combined with section.",
        default=False,
    ),
    "section": s.string(
        'A section to read, with its subsections: a path from the outline ("1.2.1", "0" or "top" for text '
        'before the first heading) or the exact heading text ("Shopping list").',
        minLength=1,
        maxLength=s.MAX_TITLE,
    ),
    "offset": s.offset("Character offset to start from (for the next page)."),
    "max_chars": s.integer(
        f"The most characters to return (default {DEFAULT_MAX_CHARS}); 0 returns everything.",
        minimum=0,
        maximum=s.MAX_TEXT * 10,
        default=DEFAULT_MAX_CHARS,
    ),
}
READ_OUTPUTS: dict[str, Payload] = {
    **s.PAGE_FIELDS,
    "outline": s.string("With outline=true: one line per heading, path<TAB>chars<TAB>heading."),
    "section": s.obj({"path": s.string(), "heading": s.string()}, ("path", "heading")),
    "partial": s.string(
        "Set when the note is over notes.largeNoteChars: the outline and sections are of its opening "
        "only (a section reaching its end may go on); offset and max_chars read all of it."
    ),
}


def read_text(
    body: str, args: Mapping[str, Any], how_to_continue: Callable[[int, str | None], str], *, limit: int
) -> Payload:
    """The outline, a section or a page of ``body``, as ``args`` (``READ_INPUTS``) ask.

    ``how_to_continue(offset, section)`` names the call that reads on from ``offset``. A body over
    ``limit`` (``notes.largeNoteChars``) has the outline and sections of its opening, said in ``partial``.
    """
    want_outline = bool(args.get("outline", False))
    key: str | None = args.get("section")
    if want_outline and key is not None:
        raise ToolError(
            '"outline" and "section" cannot be used together: ask for the outline first, then read '
            "one section from it",
            field="section",
        )
    offset = int(args.get("offset", 0))
    max_chars = int(args.get("max_chars", DEFAULT_MAX_CHARS))
    if key is None and not want_outline:
        return page(body, offset, max_chars, how_to_continue=lambda at: how_to_continue(at, None))
    tree = outline(body, limit)
    if want_outline:
        said = {"partial": tree.partial} if tree.partial else {}
        return {"outline": "\n".join(outline_lines(tree)), "body_length": len(body), **said}
    found = pick_section(tree, key or "")
    part = section_text(body, found)
    paged = page(part, offset, max_chars, how_to_continue=lambda at: how_to_continue(at, found.path))
    cut = {"partial": tree.partial} if tree.partial and tree.cut(found) else {}
    return {"section": {"path": found.path, "heading": found.heading}, **paged, **cut}


# read_note ----------------------------------------------------------------------------------------


def _read_note(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    note = visible_note(ctx, view(ctx), args["id"])

    def how(offset: int, section: str | None) -> str:
        where = f', section="{section}"' if section is not None else ""
        return f'call read_note with id="{note.id}"{where}, offset={offset}'

    return {
        **note_fields(ctx, note),
        **read_text(note.body, args, how, limit=ctx.settings.get(LARGE_NOTE_CHARS)),
        **pending_on(ctx, note.id),
    }


def pending_on(ctx: ToolContext, note_id: str) -> Payload:
    """The proposals that wait for the person on this note (none: nothing), so a model reading it
    knows the text it sees may change; another client's are counted, not shown."""
    if ctx.review is None:
        return {}
    waiting = [p for p in ctx.review.proposals() if p.note_id == note_id]
    if not waiting:
        return {}
    mine = [proposal_ref(p.id) for p in waiting if is_mine(p, ctx)]
    return {
        "pending_proposals": {
            "yours": mine,
            "others": len(waiting) - len(mine),
            "note": "Changes to this note wait for the person's review; the text above is the note as it is now.",
        }
    }


PENDING_ON: Payload = s.obj(
    {"yours": s.array(s.string()), "others": s.integer(), "note": s.string()}, ("yours", "others", "note")
)

READ_NOTE = Tool(
    name="read_note",
    title="Read a note",
    description=(
        "Read one note by id: its title, notebook, tags, to-do state, times and body. The body is "
        f"capped at max_chars (default {DEFAULT_MAX_CHARS} characters; 0 = no limit). When "
        "has_more is true, read on with offset = body_offset + body_returned_chars, or ask for "
        "outline=true (one line per heading: path, size, heading; section 0 is the text before "
        'the first heading) and then read one part with section="1.2" or the heading text. '
        "Keep updated_time: update_note accepts it as base_updated_time so that a change made "
        "meanwhile by someone else is never overwritten."
    ),
    input_schema=s.obj({"id": s.note_id(), **READ_INPUTS}, ("id",)),
    output_schema=s.obj({**s.NOTE_FIELDS, **READ_OUTPUTS, "pending_proposals": PENDING_ON}, s.NOTE_REQUIRED),
    annotations=READ,
    handler=_read_note,
    examples=(
        {"id": s.EXAMPLE_ID},
        {"id": s.EXAMPLE_ID, "outline": True},
        {"id": s.EXAMPLE_ID, "section": "1.2"},
        {"id": s.EXAMPLE_ID, "offset": 8000, "max_chars": 4000},
    ),
)


# read_notes ---------------------------------------------------------------------------------------


def share_budget(lengths: list[int], budget: int) -> list[int]:
    """Split ``budget`` characters so short texts take what they need and long ones share the rest."""
    shares = [0] * len(lengths)
    left = budget
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    for done, i in enumerate(order):
        fair = left // (len(lengths) - done)
        shares[i] = min(lengths[i], fair)
        left -= shares[i]
    return shares


def _read_notes(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    ids = list(dict.fromkeys(args["ids"]))
    scope = view(ctx)
    found = {n.id: n for n in ctx.store.get_notes(ids) if scope.allows_note(n)}
    notes = [found[i] for i in ids if i in found]
    shares = share_budget([len(n.body) for n in notes], READ_NOTES_BUDGET)
    out: list[Payload] = []
    for note, share in zip(notes, shares, strict=True):

        def how(offset: int, note_id: str = note.id) -> str:
            return f'call read_note with id="{note_id}", offset={offset}'

        # Every share is at least budget / 20 unless the body is shorter, so a share of 0 means
        # an empty body, for which max_chars=0 ("no limit") returns the same empty text.
        paged = page(note.body, 0, share, how_to_continue=how)
        out.append({**note_fields(ctx, note), **paged})
    return {"notes": out, "not_found": [i for i in ids if i not in found]}


READ_NOTES = Tool(
    name="read_notes",
    title="Read several notes",
    description=(
        f"Read up to {READ_NOTES_MAX_IDS} notes at once (e.g. the hits of a search). All bodies "
        f"share one budget of {READ_NOTES_BUDGET} characters: short notes come whole and long ones "
        "split what is left, so check has_more and read the rest of a long one with read_note "
        "(offset, outline or section). Ids that name no note are listed in not_found."
    ),
    input_schema=s.obj(
        {
            "ids": s.array(
                s.note_id("A note id."),
                f"The notes to read, at most {READ_NOTES_MAX_IDS}.",
                minItems=1,
                maxItems=READ_NOTES_MAX_IDS,
            )
        },
        ("ids",),
    ),
    output_schema=s.obj(
        {
            "notes": s.array(s.obj({**s.NOTE_FIELDS, **s.PAGE_FIELDS}, s.NOTE_REQUIRED + s.PAGE_REQUIRED)),
            "not_found": s.array(s.string(), "Ids that name no note you can see."),
        },
        ("notes", "not_found"),
    ),
    annotations=READ,
    handler=_read_notes,
    examples=({"ids": [s.EXAMPLE_ID, "fedcba9876543210fedcba9876543210"]},),
)


# note_history -------------------------------------------------------------------------------------


_WHAT = {
    ("note", "create"): "created the note",
    ("note", "update"): "changed the note (text, title, notebook, to-do state or trash)",
    ("note", "delete"): "erased the note",
    ("note_tag", "create"): "added a tag to the note",
    ("note_tag", "delete"): "removed a tag from the note",
    ("folder", "create"): "created the note's notebook",
    ("folder", "update"): "changed the note's notebook (renamed, moved, trashed or restored)",
    ("folder", "delete"): "erased the note's notebook",
    ("resource", "create"): "added an attachment",
    ("resource", "update"): "replaced an attachment",
    ("resource", "delete"): "deleted an attachment",
}


def _activity(ctx: ToolContext, scope: ScopeView, note: Note | ErasedNote, limit: int) -> list[Payload]:
    """Who did what to the note, its tags, its notebook and the attachments the scope shows, newest
    first (of an erased note: its notebook's as the feed last saw it)."""
    if isinstance(note, Note):
        linked = ctx.store.list_resources(note_id=note.id)
        attachments = [r.id for r in linked if linking_notes(ctx.store, r.id, scope.folder_ids) is not None]
        around = [note.parent_id, *attachments]
    else:
        around = [note.notebook] if note.notebook else []
    changes = ctx.store.item_changes([note.id, *around], limit=limit)
    return [
        {
            "time": iso(c.time),
            "actor": c.actor,
            "item_type": c.item_type.value,
            "item_id": c.item_id,
            "change": c.change_type.value,
            "what": _WHAT.get((c.item_type.value, c.change_type.value), c.change_type.value),
        }
        for c in changes
    ]


def _note_history(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    scope = view(ctx)
    note: Note | ErasedNote
    try:
        note = visible_note(ctx, scope, args["id"])
    except ToolError:  # erased outside noted, its revisions kept: listed as a live note's are
        note = visible_erased(ctx, scope, args["id"])
    revisions = ctx.store.note_history(note.id, bodies=False)  # (only the listed ones are read)
    limit = int(args.get("limit", 20))
    # A revision's id counts every revision of the profile: in a scope, its place in this note's
    # history (1 the oldest) is shown instead, so the saves made elsewhere are not counted.
    numbers = [r.id for r in revisions] if scope.unrestricted else list(range(len(revisions), 0, -1))
    return {
        "activity": _activity(ctx, scope, note, limit),
        "id": note.id,
        "title": note.title,
        "total": len(revisions),
        **({"erased": True} if isinstance(note, ErasedNote) else {}),
        "revisions": [
            {
                "revision_id": number,
                "time": iso(r.time),
                "actor": r.actor,
                "title": r.title,
                "body_length": len(ctx.store.get_revision(r.id).body),
                "edits": r.edits,
                # What the save was ("yours, set aside", "restored from rev 12"); not in a scope, where
                # a revision id it names would count the saves made elsewhere.
                **({"label": r.label} if r.label and scope.unrestricted else {}),
            }
            for r, number in zip(revisions[:limit], numbers, strict=False)
        ],
    }


NOTE_HISTORY = Tool(
    name="note_history",
    title="Show a note's history",
    description=(
        "List the saved states (revisions) of a note, newest first: when, who made them (actor: "
        "user, assistant:<chat>, mcp:<app>, actions:<app>, import, sync, outside: a Markdown folder's file "
        "changed by another program), the title then, the body "
        "size and how many saves by that actor were merged into it; and its activity: every change "
        "to the note, its tags, its notebook and its attachments, with who made it and when. Use it "
        "to see who changed a note and when."
    ),
    input_schema=s.obj(
        {
            "id": s.note_id(),
            "limit": s.integer(
                "The most revisions, and activity entries, to list (default 20).",
                minimum=1,
                maximum=HISTORY_MAX,
            ),
        },
        ("id",),
    ),
    output_schema=s.obj(
        {
            "id": s.string(),
            "title": s.string(),
            "total": s.integer("How many revisions the note has."),
            "erased": s.boolean(
                "True when the note was erased outside noted (say, in Joplin's app) and only these "
                "revisions are kept: restore_note writes it again as its newest revision."
            ),
            "revisions": s.array(
                s.obj(
                    {
                        "revision_id": s.integer(
                            "Which revision; to an app that sees only some notebooks, its number in this "
                            "note's history (1 = the oldest)."
                        ),
                        "time": s.TIME,
                        "actor": s.string(),
                        "title": s.string(),
                        "body_length": s.integer(),
                        "edits": s.integer(),
                        "label": s.string(
                            "What the save was when the actor does not tell: yours, set aside / yours, taken / "
                            "theirs by …, taken (a conflict the person settled: their text and the other), "
                            "conflict copy, restored from rev N, undid …"
                        ),
                    },
                    ("revision_id", "time", "actor", "title", "body_length", "edits"),
                )
            ),
            "activity": s.array(
                s.obj(
                    {
                        "time": s.TIME,
                        "actor": s.string("Who: user, assistant:<chat>, mcp:<app>, actions:<app>…"),
                        "item_type": s.string(
                            "note, note_tag, folder (its notebook) or resource (an attachment)."
                        ),
                        "item_id": s.string(),
                        "change": s.string("create, update or delete."),
                        "what": s.string("The change in words."),
                    },
                    ("time", "actor", "item_type", "item_id", "change", "what"),
                ),
                "Changes to the note and the things around it, newest first.",
            ),
        },
        ("id", "title", "total", "revisions", "activity"),
    ),
    annotations=READ,
    handler=_note_history,
    examples=(
        {"id": s.EXAMPLE_ID},
        {"id": s.EXAMPLE_ID, "limit": 5},
    ),
)

TOOLS = (READ_NOTE, READ_NOTES, NOTE_HISTORY)

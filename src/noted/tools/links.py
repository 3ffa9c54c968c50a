"""The ``note_links`` tool: a note's outgoing links, its backlinks and the links that lead nowhere."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from noted.ops.links import link_payload, note_links
from noted.settings.handles import LARGE_NOTE_CHARS
from noted.tools import schema as s
from noted.tools.base import READ, Payload, Tool, ToolContext
from noted.tools.payloads import view, visible_note


def _note_links(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    scope = view(ctx)
    note = visible_note(ctx, scope, args["id"])
    # In a scope, links resolve among the visible notes only (see ``noted.ops.links``).
    part = ctx.settings.get(LARGE_NOTE_CHARS)
    return link_payload(note_links(ctx.store, ctx.keyword, note.id, scope.folder_ids, part_chars=part))


_LINK = s.obj(
    {
        "target": s.string("The link as written: Note#Heading, ../a.md, :/id."),
        "text": s.string("What the link shows."),
        "note_id": s.nullable(s.string("The note it leads to (null: nowhere).")),
        "title": s.nullable(s.string()),
        "heading": s.nullable(s.string("The #heading asked for.")),
        "section": s.nullable(s.string("That heading's section path, for read_note(section=…).")),
        "broken": s.nullable(s.string("Why it leads nowhere (null: it leads somewhere).")),
    },
    ("target", "text", "note_id", "title", "heading", "section", "broken"),
)

NOTE_LINKS = Tool(
    name="note_links",
    title="Show a note's links and backlinks",
    description=(
        "List the notes a note links to ([[wiki links]] with |alias and #heading, relative Markdown "
        "links, :/id links), each with the note and section it leads to; the notes that link to it "
        "(backlinks); the links that lead nowhere (broken); and the attachments it links. Use it to "
        "follow or check links."
    ),
    input_schema=s.obj({"id": s.note_id()}, ("id",)),
    output_schema=s.obj(
        {
            "id": s.string(),
            "title": s.string(),
            "outgoing": s.array(_LINK, "The note's links to notes, in order."),
            "backlinks": s.array(
                s.obj({"note_id": s.string(), "title": s.string()}, ("note_id", "title")),
                "The notes that link to this one, by title.",
            ),
            "broken": s.array(_LINK, "The outgoing links that lead nowhere."),
            "attachments": s.array(
                s.obj(
                    {
                        "id": s.string(),
                        "title": s.string(),
                        "filename": s.string(),
                        "mime": s.string(),
                        "size": s.integer("Bytes."),
                    },
                    ("id", "title", "filename", "mime", "size"),
                ),
                "The attachments the note links (read_attachment reads one).",
            ),
        },
        ("id", "title", "outgoing", "backlinks", "broken", "attachments"),
    ),
    annotations=READ,
    handler=_note_links,
    examples=({"id": s.EXAMPLE_ID},),
)

TOOLS = (NOTE_LINKS,)

"""Listing notes by metadata: ``list_notes`` (filters and a cursor) and ``list_tag_notes``.

``list_notes`` pages by a cursor, not an offset: the cursor names the last note returned by its
``updated_time`` and id, and the next page starts strictly after it, so a note saved while a caller
pages through moves to the front instead of shifting every later page (the caller finds it next
time with ``updated_since``). Bodies are never returned; ``read_note`` reads one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from noted.models import FULL_ID, NoteMeta
from noted.tools import schema as s
from noted.tools.base import READ, Payload, Tool, ToolContext, ToolError
from noted.tools.payloads import (
    body_lengths,
    iso,
    note_tag_titles,
    notebook_title,
    offset_page,
    parse_time,
    scoped_notes,
    tag_title,
    view,
    visible_folder,
)
from noted.tools.scope import ScopeView
from noted.tools.tags import visible_tag

LIST_MAX = 100
_CURSOR = re.compile(rf"^(\d{{1,15}})\.({FULL_ID.pattern})$", re.IGNORECASE)

NOTE_ROW: dict[str, Payload] = {
    "id": s.string(),
    "title": s.string(),
    "notebook_id": s.string(),
    "notebook": s.string("The notebook's title."),
    "updated_time": s.TIME,
    "created_time": s.TIME,
    "tags": s.array(s.string(), "Tag titles."),
    "is_todo": s.boolean(),
    "todo_completed": s.boolean(),
    "body_length": s.integer("The body's length in characters (read_note reads it)."),
    "encrypted": s.boolean(
        "Only on a note Joplin holds encrypted and has not decrypted yet: its title and text are unknown."
    ),
}
_ROW_REQUIRED = tuple(k for k in NOTE_ROW if k != "encrypted")


def note_rows(ctx: ToolContext, page: list[NoteMeta]) -> list[Payload]:
    """The rows of one page of notes, as ``NOTE_ROW`` describes."""
    lengths = body_lengths(ctx, page)
    titles: dict[str, str] = {}
    return [note_row(ctx, m, titles, lengths.get(m.id, m.body_length)) for m in page]


def note_row(ctx: ToolContext, meta: NoteMeta, titles: dict[str, str], body_length: int) -> Payload:
    """One note's metadata, as ``NOTE_ROW`` describes; ``titles`` caches notebook titles."""
    if meta.parent_id not in titles:
        titles[meta.parent_id] = notebook_title(ctx, meta.parent_id)
    return {
        "id": meta.id,
        "title": meta.listed_title,
        "notebook_id": meta.parent_id,
        "notebook": titles[meta.parent_id],
        "updated_time": iso(meta.updated_time),
        "created_time": iso(meta.user_created_time or meta.created_time),
        "tags": note_tag_titles(ctx, meta.id),
        "is_todo": meta.is_todo,
        "todo_completed": bool(meta.todo_completed),
        "body_length": body_length,
    } | ({"encrypted": True} if meta.encrypted else {})


# list_notes ---------------------------------------------------------------------------------------


def _candidates(ctx: ToolContext, scope: ScopeView, args: Mapping[str, Any]) -> list[NoteMeta]:
    folder_id = None
    if "notebook_id" in args:
        folder_id = visible_folder(ctx, scope, args["notebook_id"]).id
    tag_id = visible_tag(ctx, scope, args["tag_id"], field="tag_id").id if "tag_id" in args else None
    return scoped_notes(ctx, scope, folder_id=folder_id, tag_id=tag_id)


def _after_cursor(metas: list[NoteMeta], cursor: str | None) -> list[NoteMeta]:
    if cursor is None:
        return metas
    found = _CURSOR.match(cursor)
    if found is None:
        raise ToolError(
            'field "cursor" is not a cursor that list_notes returned (next_cursor)',
            field="cursor",
            person="the list was asked to go on from a place it never gave",
        )
    time, note_id = int(found.group(1)), found.group(2).lower()
    return [m for m in metas if (m.updated_time, _desc(m.id)) < (time, _desc(note_id))]


def _desc(note_id: str) -> str:
    # Newest first, ties by id A→Z: for a descending key on time the id part must be inverted.
    return note_id.translate(_INVERT)


_INVERT = str.maketrans("0123456789abcdef", "fedcba9876543210")


def _list_notes(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    scope = view(ctx)
    metas = _candidates(ctx, scope, args)
    if "updated_since" in args:
        since = parse_time(args["updated_since"], "updated_since")
        metas = [m for m in metas if m.updated_time >= since]
    metas.sort(key=lambda m: (m.updated_time, _desc(m.id)), reverse=True)
    total = len(metas)
    metas = _after_cursor(metas, args.get("cursor"))
    limit = int(args.get("limit", s.LIST_DEFAULT))
    page, more = metas[:limit], len(metas) > limit
    out: Payload = {"total": total, "has_more": more, "notes": note_rows(ctx, page)}
    if more:
        out["next_cursor"] = f"{page[-1].updated_time}.{page[-1].id}"
    return out


LIST_NOTES = Tool(
    name="list_notes",
    title="List notes",
    description=(
        "List notes by their metadata, most recently saved first, without bodies: id, title, "
        "notebook, updated_time, created_time, tags, to-do state and body_length. Narrow it with "
        "notebook_id (notes directly inside that notebook), tag_id (list_tags gives ids) and "
        "updated_since (notes saved at or after that time, e.g. the updated_time of your last "
        "look). total counts every match; when has_more is true, pass next_cursor as cursor for "
        "the next page. Read a note with read_note."
    ),
    input_schema=s.obj(
        {
            "notebook_id": s.notebook_id("Only notes directly inside this notebook."),
            "tag_id": s.string("Only notes with this tag (an id from list_tags).", minLength=1, maxLength=64),
            "updated_since": s.time_arg(
                'Only notes saved at or after this time ("2025-03-01T09:30:00.000Z").'
            ),
            "limit": s.integer(
                f"The most notes to return (default {s.LIST_DEFAULT}).", minimum=1, maximum=LIST_MAX
            ),
            "cursor": s.string("next_cursor from the previous page.", minLength=1, maxLength=64),
        },
    ),
    output_schema=s.obj(
        {
            "total": s.integer("How many notes match, over all pages."),
            "has_more": s.boolean(),
            "next_cursor": s.string("Pass as cursor for the next page (only when has_more)."),
            "notes": s.array(s.obj(NOTE_ROW, _ROW_REQUIRED)),
        },
        ("total", "has_more", "notes"),
    ),
    annotations=READ,
    handler=_list_notes,
    examples=(
        {},
        {"notebook_id": s.EXAMPLE_ID, "limit": 20},
        {"tag_id": s.EXAMPLE_ID, "updated_since": "2025-03-01T00:00:00.000Z"},
        {"cursor": f"1740821400000.{s.EXAMPLE_ID}"},
    ),
)


# list_tag_notes -----------------------------------------------------------------------------------


def _list_tag_notes(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    scope = view(ctx)
    tag = visible_tag(ctx, scope, args["tag_id"], field="tag_id")
    metas = scoped_notes(ctx, scope, tag_id=tag.id)
    limit = int(args.get("limit", s.LIST_DEFAULT))
    offset = int(args.get("offset", 0))
    page = note_rows(ctx, metas[offset : offset + limit])
    return offset_page(offset, len(metas), "notes", page, tag_id=tag.id, tag=tag_title(ctx, tag.title))


LIST_TAG_NOTES = Tool(
    name="list_tag_notes",
    title="List a tag's notes",
    description=(
        "List the notes that carry one tag (tag_id from list_tags or get_tag), most recently "
        "updated first, with their metadata but not their bodies. total counts them all; page with "
        "offset (next_offset) when has_more is true."
    ),
    input_schema=s.obj(
        {
            "tag_id": s.string("The tag's id.", minLength=1, maxLength=64),
            "limit": s.integer(
                f"The most notes to list (default {s.LIST_DEFAULT}).", minimum=1, maximum=LIST_MAX
            ),
            "offset": s.offset("Notes to skip, for the next page."),
        },
        ("tag_id",),
    ),
    output_schema=s.obj(
        {
            "tag_id": s.string(),
            "tag": s.string("The tag's title."),
            **s.OFFSET_PAGE,
            "notes": s.array(s.obj(NOTE_ROW, _ROW_REQUIRED)),
        },
        ("tag_id", "tag", *s.OFFSET_PAGE_REQUIRED, "notes"),
    ),
    annotations=READ,
    handler=_list_tag_notes,
    examples=({"tag_id": s.EXAMPLE_ID}, {"tag_id": s.EXAMPLE_ID, "limit": 100, "offset": 100}),
)

TOOLS = (LIST_NOTES, LIST_TAG_NOTES)

"""Reading attachments: ``list_attachments`` and ``read_attachment``, and the visibility rule that
every attachment tool shares (the writes are in ``attachment_writes``).

With no scope every attachment is visible, linked or not. In a scope, one is visible when notes
link it and every one of them is visible (``noted.ops.attachments.linking_notes``): a caller can
add a ``:/id`` link to a visible note, so "a visible note links it" would let it read a file kept
elsewhere; in a Markdown folder, a file in the folder of a notebook outside the scope is hidden
whichever notes link it. Any other attachment is, to the caller, an id that names nothing, for every
tool; and replacing or deleting a visible one changes visible notes only. The note writes add no
link to what the caller cannot see either, by ``:/id`` or, in a Markdown folder, by path or name
(``check_links``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from noted.errors import NotFoundError
from noted.models import FULL_ID, Note, Resource
from noted.ops import filetypes
from noted.ops.attachments import linking_notes
from noted.store.protocol import FileLink, HasFileLinks
from noted.tools import files
from noted.tools import schema as s
from noted.tools.base import IMAGES, READ, ImageData, Payload, Tool, ToolContext, ToolError
from noted.tools.payloads import DEFAULT_MAX_CHARS, iso, offset_page, view, visible_note
from noted.tools.scope import ScopeView

LIST_MAX = 200


def visible_attachment(
    ctx: ToolContext, scope: ScopeView, resource_id: str, field: str = "id"
) -> tuple[Resource, list[Note]]:
    """The attachment and the notes that link it; "not found" when it does not exist or the scope
    does not show it."""
    try:
        resource: Resource | None = ctx.store.get_resource(resource_id)
    except NotFoundError:
        resource = None
    notes = None if resource is None else linking_notes(ctx.store, resource.id, scope.folder_ids)
    if resource is None or notes is None:
        raise ToolError(
            f'no attachment with id "{resource_id}"', field=field, advice="list_attachments lists them"
        )
    return resource, notes


_ID_LINK = re.compile(rf":/({FULL_ID.pattern})", re.IGNORECASE)


def check_links(
    ctx: ToolContext,
    scope: ScopeView,
    text: str,
    *,
    before: str = "",
    field: str = "body",
    note_id: str | None = None,
    folder_id: str = "",
) -> None:
    """In a scope, refuse ``text`` (a note's whole text after the write: an append may finish a
    link ``before`` began) when it links (``:/id``) a note or an attachment the caller cannot see
    that ``before`` did not link already, in the words for an id that names nothing.

    A link is more than text: a Markdown folder writes the path of what ``:/id`` names (its
    notebook and title, a file's name) into the note, and a hidden file linked from a visible note
    would be seen once the notes elsewhere that link it let go of it. There, a note links files by
    path or name too, and any file it links is its attachment; such a link (the note's own,
    ``note_id``, or a new one's in ``folder_id``) may lead to a file in the folder of a notebook
    the caller sees or to an attachment it sees (one in the folder every note's attachments go to,
    that only its notes link). A link to any other file, or to none, is refused in the same words,
    so a refusal never says whether a file is there; so is a wiki link found by name alone
    (``FileLink.by_name``), whose file is the shortest path of that name anywhere: had the client's
    file been taken, the refusal of one with a file of the same name higher up outside would tell it.
    """
    if scope.unrestricted:
        return
    had = {i.lower() for i in _ID_LINK.findall(before)}
    for item_id in dict.fromkeys(i.lower() for i in _ID_LINK.findall(text)):
        if item_id in had or any(scope.allows_note(n) for n in ctx.store.get_notes([item_id])):
            continue
        try:
            visible_attachment(ctx, scope, item_id)
        except ToolError:
            raise ToolError(
                f'no note or attachment with id "{item_id}" to link; nothing was written', field=field
            ) from None
    store = ctx.store
    if not isinstance(store, HasFileLinks):
        return
    known = {_key(link) for link in store.file_links(before, note_id=note_id, folder_id=folder_id)}
    for link in store.file_links(text, note_id=note_id, folder_id=folder_id):
        if _key(link) not in known and not _may_link(ctx, scope, link):
            raise ToolError(
                f'no note or attachment "{link.target}" to link; nothing was written (link a file by '
                "its path from the note's folder or from the top of the folder, not by its name alone)",
                field=field,
            )


def _key(link: FileLink) -> tuple[str, bool]:
    """A file link as written: one the note had already may stay. (Not the file it leads to: that a
    new link led to the file of one already there would tell that the file exists.)"""
    return link.target, link.wiki


def _may_link(ctx: ToolContext, scope: ScopeView, link: FileLink) -> bool:
    if link.path is None or link.by_name:
        # A link found by name leads to the shortest path of that name anywhere: whether it would
        # lead inside the scope depends on the files outside, so it is never taken from a scope.
        return False
    if link.notebook is not None:
        return scope.allows_folder(link.notebook)
    return (
        link.attachment is not None
        and linking_notes(ctx.store, link.attachment, scope.folder_ids) is not None
    )


def attachment_fields(resource: Resource, notes: list[Note]) -> Payload:
    return {
        "id": resource.id,
        "title": resource.title,
        "filename": resource.filename,
        "mime": resource.mime,
        "size": resource.size,
        "created_time": iso(resource.created_time),
        "updated_time": iso(resource.updated_time),
        "notes": [{"id": n.id, "title": n.title} for n in notes],
    }


ATTACHMENT: dict[str, Payload] = {
    "id": s.string(),
    "title": s.string(),
    "filename": s.string(),
    "mime": s.string("The media type, e.g. image/png."),
    "size": s.integer("Bytes."),
    "created_time": s.TIME,
    "updated_time": s.TIME,
    "notes": s.array(
        s.obj({"id": s.string(), "title": s.string()}, ("id", "title")), "The notes that link it."
    ),
}
ATTACHMENT_ID = s.string("The attachment's id (list_attachments lists them).", minLength=1, maxLength=64)
CONTENT = s.string(
    f"The file's bytes in base64, at most {filetypes.MAX_FILE // (1024 * 1024)} MiB decoded "
    '("" for an empty file).',
    maxLength=files.MAX_BASE64,
)
MIME = s.string('The media type, e.g. "image/png", "application/pdf", "text/plain".', maxLength=200)


# list_attachments ----------------------------------------------------------------------------------


def _list_attachments(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    scope = view(ctx)
    note_id = None
    if "note_id" in args:
        note_id = visible_note(ctx, scope, args["note_id"], field="note_id").id
    rows: list[Payload] = []
    for resource in ctx.store.list_resources(note_id=note_id):
        notes = linking_notes(ctx.store, resource.id, scope.folder_ids)
        if notes is not None:
            rows.append(attachment_fields(resource, notes))
    limit = int(args.get("limit", s.LIST_DEFAULT))
    offset = int(args.get("offset", 0))
    return offset_page(offset, len(rows), "attachments", rows[offset : offset + limit])


LIST_ATTACHMENTS = Tool(
    name="list_attachments",
    title="List attachments",
    description=(
        "List attachments (files kept with notes: images, PDFs…): id, title, filename, mime, size in "
        "bytes and the notes that link them. With note_id, only that note's attachments. Read one "
        "with read_attachment(id)."
    ),
    input_schema=s.obj(
        {
            "note_id": s.note_id("Only the attachments this note links."),
            "limit": s.integer(
                f"The most attachments to list (default {s.LIST_DEFAULT}).", minimum=1, maximum=LIST_MAX
            ),
            "offset": s.offset("Attachments to skip, for the next page."),
        }
    ),
    output_schema=s.obj(
        {
            **s.OFFSET_PAGE,
            "attachments": s.array(s.obj(ATTACHMENT, tuple(ATTACHMENT))),
        },
        (*s.OFFSET_PAGE_REQUIRED, "attachments"),
    ),
    annotations=READ,
    handler=_list_attachments,
    examples=({}, {"note_id": s.EXAMPLE_ID}),
)


# read_attachment -----------------------------------------------------------------------------------


def mime_of(resource: Resource) -> str:
    try:
        return files.normal_mime(resource.mime)
    except ToolError:
        return "application/octet-stream"


def _read_text(resource: Resource, data: bytes, args: Mapping[str, Any]) -> Payload:
    text = data.decode("utf-8", errors="replace")
    offset = int(args.get("offset", 0))
    if offset > len(text):
        raise ToolError(
            f'field "offset" is {offset}, past the end of the text ({len(text)} characters)', field="offset"
        )
    max_chars = int(args.get("max_chars", DEFAULT_MAX_CHARS))
    end = len(text) if max_chars == 0 else min(len(text), offset + max_chars)
    out: Payload = {
        "kind": "text",
        "text": text[offset:end],
        "text_length": len(text),
        "offset": offset,
        "returned_chars": end - offset,
        "has_more": end < len(text),
    }
    if end < len(text):
        out["truncated"] = (
            f"Showing characters {offset:,}–{end:,} of {len(text):,}. To read on, call read_attachment "
            f'with id="{resource.id}", offset={end}; or pass max_chars=0 for all of it.'
        )
    return out


def _read_image(data: bytes, mime: str, detail: str) -> Payload:
    thumb = files.thumbnail(data, mime, detail)
    return {
        "kind": "image",
        "image": {
            "mime": thumb.mime,
            "width": thumb.width,
            "height": thumb.height,
            "original_width": thumb.original_width,
            "original_height": thumb.original_height,
            "detail": detail,
            "bytes": len(thumb.data),
        },
        IMAGES: (ImageData(thumb.mime, thumb.data),),
    }


def _read_attachment(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    resource, notes = visible_attachment(ctx, view(ctx), args["id"])
    if resource.size > filetypes.MAX_FILE:
        raise ToolError(
            f'attachment "{resource.title}" is {resource.size:,} bytes, more than the '
            f"{filetypes.MAX_FILE:,} a tool returns; the person can open it in noted",
            field="id",
        )
    data = ctx.store.read_resource(resource.id)
    mime = mime_of(resource)
    if files.is_text(mime):
        content = _read_text(resource, data, args)
    elif mime in filetypes.SHOWN_IMAGES:
        content = _read_image(data, mime, str(args.get("detail", "high")))
    else:
        content = {"kind": "binary", "content_base64": files.base64_text(data)}
    return {**attachment_fields(resource, notes), **content}


READ_ATTACHMENT = Tool(
    name="read_attachment",
    title="Read an attachment",
    description=(
        "Read one attachment by id. Text files (text/*, JSON, XML, SVG…) come back as text, paged like "
        f"read_note (max_chars, default {DEFAULT_MAX_CHARS}; offset to read on). Images (PNG, JPEG, "
        "GIF, WebP, BMP, TIFF, ICO) come back as an image you can look at, scaled down so its longest "
        "side is at most 128, 256 or 512 pixels for detail low, medium or high (default high); "
        "the stored file is not changed. Other files come back whole as content_base64. Files over "
        f"{filetypes.MAX_FILE // (1024 * 1024)} MiB are refused."
    ),
    input_schema=s.obj(
        {
            "id": ATTACHMENT_ID,
            "detail": s.string(
                "For images: low (128 px), medium (256 px) or high (512 px, the default).",
                enum=list(files.DETAIL_PIXELS),
            ),
            "offset": s.offset("For text: the character to start from."),
            "max_chars": s.integer(
                f"For text: the most characters to return (default {DEFAULT_MAX_CHARS}); 0 for all.",
                minimum=0,
                maximum=filetypes.MAX_FILE,
            ),
        },
        ("id",),
    ),
    output_schema=s.obj(
        {
            **ATTACHMENT,
            "kind": s.string(
                "text, image or binary: which of the fields below is there.", enum=["text", "image", "binary"]
            ),
            "text": s.string(),
            "text_length": s.integer(),
            "offset": s.integer(),
            "returned_chars": s.integer(),
            "has_more": s.boolean(),
            "truncated": s.string(),
            "image": s.obj(
                {
                    "mime": s.string("The type of the image shown (PNG, or JPEG for photos)."),
                    "width": s.integer(),
                    "height": s.integer(),
                    "original_width": s.integer(),
                    "original_height": s.integer(),
                    "detail": s.string(),
                    "bytes": s.integer(),
                },
                ("mime", "width", "height", "original_width", "original_height", "detail", "bytes"),
            ),
            "content_base64": s.string("The whole file, base64."),
        },
        (*ATTACHMENT, "kind"),
    ),
    annotations=READ,
    handler=_read_attachment,
    examples=(
        {"id": s.EXAMPLE_ID},
        {"id": s.EXAMPLE_ID, "detail": "low"},
        {"id": s.EXAMPLE_ID, "offset": 8000},
    ),
)

# get_attachment ------------------------------------------------------------------------------------


def _get_attachment(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    resource, notes = visible_attachment(ctx, view(ctx), args["id"])
    return attachment_fields(resource, notes)


GET_ATTACHMENT = Tool(
    name="get_attachment",
    title="Get an attachment's details",
    description=(
        "One attachment's details by id, without its content: title, filename, mime, size in bytes, "
        "times and the notes that link it. Cheap; read_attachment returns the content."
    ),
    input_schema=s.obj({"id": ATTACHMENT_ID}, ("id",)),
    output_schema=s.obj(ATTACHMENT, tuple(ATTACHMENT)),
    annotations=READ,
    handler=_get_attachment,
    examples=({"id": s.EXAMPLE_ID},),
)

TOOLS = (LIST_ATTACHMENTS, GET_ATTACHMENT, READ_ATTACHMENT)

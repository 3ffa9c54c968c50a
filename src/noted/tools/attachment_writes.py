"""Changing attachments: ``attach_file``, ``replace_attachment`` and ``delete_attachment``.

Input is checked in full (base64, size, declared image type; see ``tools.files``) before anything
is written. A replace or a delete keeps what it takes away as a version, so the chat's undo and
``noted history ID --restore N`` can put it back. Replacing or deleting an attachment changes every note that links it; in a scope every
such note is visible, or the attachment is not (see ``tools.attachments``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from noted.errors import InvalidInputError
from noted.models import Note, Resource
from noted.ops.attachments import attach_to_note, delete_attachment, link_for, replace_attachment
from noted.store.rules import clean_title
from noted.tools import files
from noted.tools import schema as s
from noted.tools.attachments import (
    ATTACHMENT,
    ATTACHMENT_ID,
    CONTENT,
    MIME,
    attachment_fields,
    mime_of,
    visible_attachment,
)
from noted.tools.base import Annotations, Payload, Tool, ToolContext, ToolError, Undo, file_made
from noted.tools.payloads import view, visible_note
from noted.tools.pinning import pinned, pinned_attachment

_PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


# attach_file ---------------------------------------------------------------------------------------


def decoded_file(args: Mapping[str, Any], *, mime_default: str | None = None) -> tuple[bytes, str]:
    """The checked bytes and normalised type of the file in ``args`` (nothing is written)."""
    mime = files.normal_mime(args["mime"]) if "mime" in args else mime_default or "application/octet-stream"
    data = files.decode(args["content_base64"])
    files.check_type(data, mime)
    return data, mime


def store_and_link(ctx: ToolContext, note: Note, args: Mapping[str, Any], data: bytes, mime: str) -> Resource:
    """Store the checked file and append its link to ``note``; no attachment is left if linking fails."""
    filename = files.clean_filename(args["filename"])
    title = str(args.get("title") or "").strip() or filename
    beside = not view(ctx).unrestricted  # the name it gets must not tell of files outside the scope
    return attach_to_note(
        ctx.store,
        note,
        data,
        filename=filename,
        mime=mime,
        title=title,
        actor=ctx.actor,
        beside=beside,
        made_id=ctx.new_id,
    )


def _attach_file(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    scope = view(ctx)
    note = visible_note(ctx, scope, args["note_id"], field="note_id")
    if note.is_trashed:
        raise ToolError(
            f'note "{note.title}" is in the trash',
            field="note_id",
            advice="restore_note brings it back first",
        )
    files.clean_filename(args["filename"])
    try:
        clean_title(str(args.get("title") or ""))
    except InvalidInputError as exc:
        raise ToolError(str(exc), field="title") from exc
    data, mime = decoded_file(args)
    with pinned(ctx, scope, note, field="note_id"):
        resource = store_and_link(ctx, note, args, data, mime)
    return {**attachment_fields(resource, [note]), "note_id": note.id, "link": link_for(resource)}


ATTACH_FILE = Tool(
    name="attach_file",
    title="Attach a file to a note",
    description=(
        "Store a file (an image, a PDF, any file up to 10 MiB) with a note and add a link to it at the "
        "end of the note: ![title](:/id) for an image, [title](:/id) for other files. Give the bytes "
        "as content_base64 and their real media type as mime; an image whose bytes are not of its "
        "declared type is refused. Returns the attachment's id (for read_attachment, "
        "replace_attachment) and the link added."
    ),
    input_schema=s.obj(
        {
            "note_id": s.note_id(),
            "filename": s.string(
                'The file name, e.g. "receipt.pdf".', minLength=1, maxLength=files.MAX_FILENAME
            ),
            "mime": MIME,
            "content_base64": CONTENT,
            "title": s.string("What the link shows (default: the file name).", maxLength=s.MAX_TITLE),
        },
        ("note_id", "filename", "mime", "content_base64"),
    ),
    output_schema=s.obj(
        {**ATTACHMENT, "note_id": s.string(), "link": s.string("The Markdown added to the note.")},
        (*ATTACHMENT, "note_id", "link"),
    ),
    annotations=Annotations(read_only=False, destructive=False, idempotent=False),
    handler=_attach_file,
    makes=file_made,
    examples=(
        {"note_id": s.EXAMPLE_ID, "filename": "dot.png", "mime": "image/png", "content_base64": _PNG_1PX},
        {
            "note_id": s.EXAMPLE_ID,
            "filename": "notes.txt",
            "mime": "text/plain",
            "content_base64": "aGVsbG8K",
            "title": "Meeting notes",
        },
    ),
    undo=Undo(notes=("note_id",)),
)


# replace_attachment, delete_attachment ---------------------------------------------------------------


def _replace_attachment(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    scope = view(ctx)
    resource, notes = visible_attachment(ctx, scope, args["id"])
    filename = files.clean_filename(args["filename"]) if "filename" in args else None
    title = str(args["title"]).strip() if "title" in args else None
    if title is not None and ("\n" in title or "\r" in title):
        raise ToolError("the title must be one line", field="title")
    data, mime = decoded_file(args, mime_default=mime_of(resource))
    with pinned_attachment(ctx, scope, resource, notes):
        replaced = replace_attachment(
            ctx.store, resource.id, data, filename=filename, mime=mime, title=title, actor=ctx.actor
        )
    # A write always moves the time on; the same file, name, type and title write nothing.
    return attachment_fields(replaced, notes) | {"replaced": replaced.updated_time != resource.updated_time}


def _attachment_label(ctx: ToolContext, args: Mapping[str, Any]) -> str:
    resource, _ = visible_attachment(ctx, view(ctx), args["id"])
    return resource.title or resource.filename


REPLACE_ATTACHMENT = Tool(
    name="replace_attachment",
    title="Replace an attachment's file",
    description=(
        "Put a new file in place of an attachment's, keeping its id, so every note that shows it "
        "shows the new one (e.g. an updated screenshot). mime defaults to the current type; "
        "filename and title may change too. The old file is kept as a version: the person can "
        "restore it (noted history ID) and the chat's undo puts it back. Up to 10 MiB; an image "
        "whose bytes are not of its declared type is refused. replaced is false when the attachment "
        "already had this file, name, type and title: nothing was written."
    ),
    input_schema=s.obj(
        {
            "id": ATTACHMENT_ID,
            "content_base64": CONTENT,
            "mime": MIME,
            "filename": s.string("A new file name.", minLength=1, maxLength=files.MAX_FILENAME),
            "title": s.string("A new title.", maxLength=s.MAX_TITLE),
        },
        ("id", "content_base64"),
    ),
    output_schema=s.obj(
        {**ATTACHMENT, "replaced": s.boolean("False when it already was so: nothing was written.")},
        (*ATTACHMENT, "replaced"),
    ),
    annotations=Annotations(read_only=False, destructive=True, idempotent=True),
    handler=_replace_attachment,
    label=_attachment_label,
    examples=({"id": s.EXAMPLE_ID, "content_base64": _PNG_1PX, "mime": "image/png"},),
    undo=Undo(files=("id",)),
)


def _delete_attachment(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    scope = view(ctx)
    resource, notes = visible_attachment(ctx, scope, args["id"])
    with pinned_attachment(ctx, scope, resource, notes):
        kept = delete_attachment(ctx.store, resource.id, actor=ctx.actor)
    return {**attachment_fields(resource, notes), "deleted": True, "file_kept": kept.line if kept else None}


DELETE_ATTACHMENT = Tool(
    name="delete_attachment",
    title="Delete an attachment",
    description=(
        "Delete an attachment. The links to it in notes stay as text; the result lists those notes, "
        "so you can remove the links with update_note(replace_text=...) if the person wants. The "
        "file is kept as a version: the person can bring it back under the same id (noted history "
        "ID), which makes those links work again, and the chat's undo does. In a Markdown folder, "
        "a file noted did not write stays in the folder: while a note links it, the delete is "
        "refused (remove the links first); else file_kept says where the file stays and why."
    ),
    input_schema=s.obj({"id": ATTACHMENT_ID}, ("id",)),
    output_schema=s.obj(
        {
            **ATTACHMENT,
            "deleted": s.boolean(),
            "file_kept": s.nullable(
                s.string("Where the file stays in the notes folder, and why (null: it went too).")
            ),
        },
        (*ATTACHMENT, "deleted", "file_kept"),
    ),
    annotations=Annotations(read_only=False, destructive=True, idempotent=False),
    handler=_delete_attachment,
    label=_attachment_label,
    examples=({"id": s.EXAMPLE_ID},),
    undo=Undo(files=("id",)),
)

TOOLS = (ATTACH_FILE, REPLACE_ATTACHMENT, DELETE_ATTACHMENT)

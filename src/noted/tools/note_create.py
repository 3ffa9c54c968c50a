"""``create_note``: a note from Markdown or from HTML, in a notebook found or made, with attachments.

Everything that can be refused is checked before the first write: the notebook (an unknown
``notebook_id`` is an error and nothing is written), the title and tags, and every attachment
(base64, size, declared image type). Then ``noted.ops.notes.create_note`` writes the notebook
(when ``notebook_title`` names none, or none is given and there is no "Inbox"), the attachments
and the note, in that order, so the note's first revision already links its attachments.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from noted.models import NoteDraft
from noted.ops.attachments import PickedFile, link_for
from noted.ops.notes import DEFAULT_NOTEBOOK, create_note, top_level_notebook
from noted.tools import files
from noted.tools import schema as s
from noted.tools.attachment_writes import decoded_file
from noted.tools.attachments import CONTENT, MIME, check_links
from noted.tools.base import Annotations, Payload, Tool, ToolContext, ToolError, Undo, note_made
from noted.tools.clipping import html_to_markdown
from noted.tools.payloads import view, visible_folder, write_result
from noted.tools.pinning import pinned
from noted.tools.scope import ScopeView

MAX_ATTACHMENTS = 10


def _target_notebook(ctx: ToolContext, scope: ScopeView, args: Mapping[str, Any]) -> tuple[str, str]:
    """The notebook a new note goes in: its id, or "" and the title of the top-level notebook to
    find or make (``noted.ops.notes.create_note``)."""
    if "notebook_id" in args and "notebook_title" in args:
        raise ToolError('give "notebook_id" or "notebook_title", not both', field="notebook_title")
    if "notebook_id" in args:
        return visible_folder(ctx, scope, args["notebook_id"]).id, ""
    live = scope.visible_folders(ctx.store.list_folders())
    if "notebook_title" not in args:
        inbox, _ = top_level_notebook(ctx.store, DEFAULT_NOTEBOOK)  # (the rule ``create_note`` follows)
        inbox = inbox if any(f.id == inbox for f in live) else ""
        if inbox or scope.unrestricted:
            return inbox, DEFAULT_NOTEBOOK
        raise ToolError(
            "say which notebook the note goes in: notebook_id (list_notebooks lists them) or "
            "notebook_title (the title of one of them)",
            field="notebook_id",
            person="no notebook was named for the note",
        )
    title = str(args["notebook_title"]).strip()
    if not title or "\n" in title or "\r" in title:
        raise ToolError("a notebook title must be one line and not empty", field="notebook_title")
    same = [f for f in live if f.title == title]
    if len(same) > 1:
        listed = ", ".join(f.id for f in same)
        raise ToolError(
            f'{len(same)} notebooks are titled "{title}" (ids {listed})',
            field="notebook_title",
            advice="pass notebook_id instead",
        )
    if same:
        return same[0].id, ""
    if not scope.unrestricted:
        raise ToolError(
            f'no notebook titled "{title}" among those you can see, and a new top-level notebook would '
            "be outside them: create it with create_notebook(parent_id=...) or pick one from list_notebooks",
            field="notebook_title",
            person=f'no notebook titled "{title}" among those the assistant can see, and a new top-level '
            "notebook would be outside them",
        )
    return "", title


def _body(args: Mapping[str, Any]) -> str:
    if "body" in args and "body_html" in args:
        raise ToolError('give "body" (Markdown) or "body_html", not both', field="body_html")
    if "base_url" in args and "body_html" not in args:
        raise ToolError(
            '"base_url" resolves the links of body_html; give body_html with it', field="base_url"
        )
    if "body_html" in args:
        return html_to_markdown(args["body_html"], str(args.get("base_url", "")))
    return str(args.get("body", ""))


def _one_line(value: str, field: str) -> None:
    if "\n" in value or "\r" in value:
        raise ToolError(f'field "{field}" must be one line', field=field)


def _attachments(args: Mapping[str, Any]) -> list[PickedFile]:
    """Every attachment checked and decoded; the first fault is an error naming it."""
    checked: list[PickedFile] = []
    for index, item in enumerate(args.get("attachments", ())):
        try:
            filename = files.clean_filename(item["filename"])
            _one_line(str(item.get("title", "")), "title")
            data, mime = decoded_file(item)
        except ToolError as exc:
            field = f"attachments.{index}.{exc.field}" if exc.field else f"attachments.{index}"
            raise ToolError(f"attachment {index + 1}: {exc.message}", field=field) from None
        checked.append(PickedFile(data, filename, mime, str(item.get("title") or "").strip()))
    return checked


def _create_note(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    _one_line(args["title"], "title")
    for tag in args.get("tags", ()):
        _one_line(tag, "tags")
    body = _body(args)
    checked = _attachments(args)
    scope = view(ctx)
    folder_id, title = _target_notebook(ctx, scope, args)
    check_links(ctx, scope, body, field="body_html" if "body_html" in args else "body", folder_id=folder_id)
    draft = NoteDraft(
        title=args["title"],
        body=body,
        parent_id=folder_id,
        is_todo=bool(args.get("is_todo", False)),
        tags=tuple(args.get("tags", ())),
        id=ctx.new_id,
    )
    target = [ctx.store.get_folder(folder_id)] if folder_id else []  # its place: checked again
    with pinned(ctx, scope, *target, field="notebook_id"):
        made = create_note(ctx.store, draft, actor=ctx.actor, notebook=title, files=checked)
    attached = [
        {
            "id": r.id,
            "title": r.title,
            "filename": r.filename,
            "mime": r.mime,
            "size": r.size,
            "link": link_for(r),
        }
        for r in made.attachments
    ]
    return {
        **write_result(ctx, made.note),
        "notebook_created": made.notebook_created,
        "attachments": attached,
    }


ATTACHED: dict[str, Payload] = {
    "id": s.string(),
    "title": s.string(),
    "filename": s.string(),
    "mime": s.string(),
    "size": s.integer(),
    "link": s.string(),
}

CREATE_NOTE = Tool(
    name="create_note",
    title="Create a note",
    description=(
        "Create a note (or a to-do with is_todo=true) with a Markdown body, or from HTML with "
        "body_html (converted to Markdown; base_url makes its relative links absolute). Put it in a "
        "notebook by notebook_id, or by notebook_title: a notebook with exactly that title is used, "
        "and one is created at the top level when none has it (notebook_created says so). With "
        'neither, the note goes in the top-level notebook "Inbox", created when missing. tags are tag titles; '
        "missing tags are created. attachments (up to 10 files, each up to 10 MiB, as base64) are "
        "stored and linked at the end of the body. Returns the new note's id and updated_time."
    ),
    input_schema=s.obj(
        {
            "title": s.string("The note's title (one line).", maxLength=s.MAX_TITLE),
            "body": s.text("The note's Markdown text."),
            "body_html": s.text("The note's text as HTML, converted to Markdown (instead of body)."),
            "base_url": s.string(
                "The address body_html came from, to make its relative links absolute.", maxLength=2_000
            ),
            "notebook_id": s.notebook_id("The notebook to put it in."),
            "notebook_title": s.string(
                "The title of the notebook to put it in; created when no notebook has it.",
                minLength=1,
                maxLength=s.MAX_TITLE,
            ),
            "is_todo": s.boolean("True for a to-do (a note with a checkbox).", default=False),
            "tags": s.tag_list("Tag titles to put on it; missing tags are created."),
            "attachments": s.array(
                s.obj(
                    {
                        "filename": s.string("The file name.", minLength=1, maxLength=files.MAX_FILENAME),
                        "mime": MIME,
                        "content_base64": CONTENT,
                        "title": s.string(
                            "What the link shows (default: the file name).", maxLength=s.MAX_TITLE
                        ),
                    },
                    ("filename", "mime", "content_base64"),
                ),
                "Files to store with the note and link at the end of its body.",
                maxItems=MAX_ATTACHMENTS,
            ),
        },
        ("title",),
    ),
    output_schema=s.obj(
        {
            **s.WRITE_RESULT,
            "notebook_created": s.boolean(),
            "attachments": s.array(s.obj(ATTACHED, tuple(ATTACHED)), "The files stored, with their links."),
        },
        (*s.WRITE_REQUIRED, "notebook_created", "attachments"),
    ),
    annotations=Annotations(read_only=False, destructive=False, idempotent=False),
    handler=_create_note,
    makes=note_made,
    examples=(
        {"title": "Groceries", "body": "- eggs\n- milk", "notebook_title": "Home", "tags": ["shopping"]},
        {"title": "Call the plumber", "notebook_id": s.EXAMPLE_ID, "is_todo": True},
        {
            "title": "Clipped article",
            "body_html": "<h1>Title</h1><p>See <a href='/more'>more</a>.</p>",
            "base_url": "https://example.org/post",
            "notebook_title": "Reading",
        },
        {
            "title": "Screenshot",
            "notebook_title": "Inbox",
            "attachments": [
                {
                    "filename": "dot.png",
                    "mime": "image/png",
                    "content_base64": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
                }
            ],
        },
    ),
    undo=Undo(),
)

TOOLS = (CREATE_NOTE,)

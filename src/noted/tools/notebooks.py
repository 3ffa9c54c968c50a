"""Listing tools (``list_notebooks``, ``list_tags``, ``list_notebook_notes``) and ``create_notebook``.

In a scope, a notebook whose parent is out of scope shows ``parent_id: ""`` (the parent's id
would itself be a leak), and tags are counted from the visible notes alone (read notebook by
notebook): a tag none of them carries is not listed, and no tag's notes elsewhere are read.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from noted.models import Folder
from noted.ops.notebooks import create_notebook
from noted.tools import schema as s
from noted.tools.base import READ, Annotations, Payload, Tool, ToolContext, ToolError, Undo, notebook_made
from noted.tools.payloads import body_lengths, iso, offset_page, scoped_notes, tag_title, view, visible_folder
from noted.tools.pinning import pinned
from noted.tools.scope import BESIDE_HIDDEN, BESIDE_HIDDEN_SAID, names_beside_hidden

LIST_MAX = 200
_BATCH = 500
"""Notes asked about at once (one SQL variable each)."""

# list_notebooks ------------------------------------------------------------------------------------


def _list_notebooks(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    scope = view(ctx)
    counts = ctx.store.folder_note_counts()
    folders = ctx.store.list_folders(include_trashed=bool(args.get("include_trashed", False)))
    notebooks = [
        {
            "id": f.id,
            "title": f.title,
            "parent_id": scope.parent_of(f),
            "note_count": counts.get(f.id, 0),
            "in_trash": f.is_trashed,
        }
        for f in scope.visible_folders(folders)
    ]
    return {"notebooks": notebooks}


LIST_NOTEBOOKS = Tool(
    name="list_notebooks",
    title="List notebooks",
    description=(
        'List every notebook as a flat list: id, title, parent_id ("" for a top-level notebook; '
        "rebuild the tree from it), note_count (notes directly inside, not in sub-notebooks, not in "
        "the trash) and in_trash. Notebooks in the trash are left out unless include_trashed is true "
        "(restore_notebook brings one back). Use the ids with list_notes, create_note, update_note, "
        "update_notebook or semantic_search_notes."
    ),
    input_schema=s.obj(
        {"include_trashed": s.boolean("Also list notebooks in the trash.", default=False)},
    ),
    output_schema=s.obj(
        {
            "notebooks": s.array(
                s.obj(
                    {
                        "id": s.string(),
                        "title": s.string(),
                        "parent_id": s.string(),
                        "note_count": s.integer(),
                        "in_trash": s.boolean(),
                    },
                    ("id", "title", "parent_id", "note_count", "in_trash"),
                )
            )
        },
        ("notebooks",),
    ),
    annotations=READ,
    handler=_list_notebooks,
    examples=({}, {"include_trashed": True}),
)


# list_tags -------------------------------------------------------------------------------------------


def _list_tags(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    scope = view(ctx)
    if scope.unrestricted:
        tags = ctx.store.list_tags(with_notes_only=True)
        return {"tags": [{"id": t.id, "title": t.title, "note_count": t.note_count} for t in tags]}
    # Counted from the visible notes alone, so neither the list nor the work depends on notes elsewhere.
    notes = [n.id for n in scoped_notes(ctx, scope)]
    # Counted by the title as stored, which names one tag: looked up folded, "ſecret" found the
    # tag "SECRET" of notes elsewhere (the store folds ASCII letters only).
    counts: Counter[str] = Counter()
    for start in range(0, len(notes), _BATCH):
        for titles in ctx.store.note_tag_titles(notes[start : start + _BATCH]).values():
            counts.update(titles)
    found = [t for t in ctx.store.list_tags(counted=False) if t.title in counts]
    return {
        "tags": [
            {"id": t.id, "title": tag_title(ctx, t.title), "note_count": counts[t.title]}
            for t in sorted(found, key=lambda t: (tag_title(ctx, t.title), t.id))
        ]
    }


LIST_TAGS = Tool(
    name="list_tags",
    title="List tags",
    description=(
        "List the tags that are on at least one note, A to Z, with how many notes carry each. "
        'Search a tag\'s notes with search_notes(query="tag:NAME") or semantic_search_notes(tag_id=...).'
    ),
    input_schema=s.obj({}),
    output_schema=s.obj(
        {
            "tags": s.array(
                s.obj(
                    {"id": s.string(), "title": s.string(), "note_count": s.integer()},
                    ("id", "title", "note_count"),
                )
            )
        },
        ("tags",),
    ),
    annotations=READ,
    handler=_list_tags,
    examples=({},),
)


# list_notebook_notes -------------------------------------------------------------------------------


def _list_notebook_notes(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    folder = visible_folder(ctx, view(ctx), args["notebook_id"])
    limit = int(args.get("limit", s.LIST_DEFAULT))
    offset = int(args.get("offset", 0))
    metas = ctx.store.list_notes(folder_id=folder.id, limit=limit, offset=offset)
    total = ctx.store.folder_note_counts().get(folder.id, 0)
    lengths = body_lengths(ctx, metas)
    notes = [
        {
            "id": m.id,
            "title": m.listed_title,
            "updated_time": iso(m.user_updated_time or m.updated_time),
            "is_todo": m.is_todo,
            "todo_completed": bool(m.todo_completed),
            "body_length": lengths.get(m.id, m.body_length),
        }
        for m in metas
    ]
    return offset_page(offset, total, "notes", notes, notebook_id=folder.id, notebook=folder.title)


LIST_NOTEBOOK_NOTES = Tool(
    name="list_notebook_notes",
    title="List a notebook's notes",
    description=(
        "List the notes directly inside one notebook (not its sub-notebooks), most recently "
        "updated first: id, title, updated_time, to-do state and body_length. total counts them "
        "all; page with offset (next_offset) when has_more is true. Read a note with read_note."
    ),
    input_schema=s.obj(
        {
            "notebook_id": s.notebook_id(),
            "limit": s.integer(
                f"The most notes to list (default {s.LIST_DEFAULT}).",
                minimum=1,
                maximum=LIST_MAX,
                default=s.LIST_DEFAULT,
            ),
            "offset": s.offset("Notes to skip, for the next page."),
        },
        ("notebook_id",),
    ),
    output_schema=s.obj(
        {
            "notebook_id": s.string(),
            "notebook": s.string(),
            **s.OFFSET_PAGE,
            "notes": s.array(
                s.obj(
                    {
                        "id": s.string(),
                        "title": s.string(),
                        "updated_time": s.TIME,
                        "is_todo": s.boolean(),
                        "todo_completed": s.boolean(),
                        "body_length": s.integer(),
                    },
                    ("id", "title", "updated_time", "is_todo", "todo_completed", "body_length"),
                )
            ),
        },
        ("notebook_id", "notebook", *s.OFFSET_PAGE_REQUIRED, "notes"),
    ),
    annotations=READ,
    handler=_list_notebook_notes,
    examples=(
        {"notebook_id": s.EXAMPLE_ID},
        {"notebook_id": s.EXAMPLE_ID, "limit": 100, "offset": 100},
    ),
)


# create_notebook -----------------------------------------------------------------------------------


def _create_notebook(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    scope = view(ctx)
    parent_id = args.get("parent_id") or ""
    parents: list[Folder] = []
    if parent_id:
        parent = visible_folder(ctx, scope, parent_id, field="parent_id")
        if names_beside_hidden(ctx.store, scope, parent.id):
            raise ToolError(
                f'a notebook cannot be made inside "{parent.title}" from here: {BESIDE_HIDDEN}',
                field="parent_id",
                person=f'the assistant cannot make a notebook inside "{parent.title}": {BESIDE_HIDDEN_SAID}',
            )
        parents.append(parent)
    elif not scope.unrestricted:
        raise ToolError(
            "you can only create notebooks inside the notebooks you can see: give parent_id "
            "(list_notebooks lists them)",
            field="parent_id",
            person="the assistant can only make notebooks inside the notebooks it can see, and named none",
        )
    with pinned(ctx, scope, *parents, field="parent_id"):
        folder = create_notebook(
            ctx.store,
            args["title"],
            parent_id=parent_id,
            actor=ctx.actor,
            made_id=ctx.new_id,
            visible=scope.folder_ids,  # a name taken outside the scope is not told (refuse_taken)
        )
    return {"id": folder.id, "title": folder.title, "parent_id": folder.parent_id}


CREATE_NOTEBOOK = Tool(
    name="create_notebook",
    title="Create a notebook",
    description=(
        "Create a notebook, at the top level or inside parent_id. Returns its id, for create_note "
        "or update_note(notebook_id=...). A notebook beside it with the same title (case aside) is "
        "refused: check list_notebooks first and use that one."
    ),
    input_schema=s.obj(
        {
            "title": s.string("The notebook's title (one line).", minLength=1, maxLength=s.MAX_TITLE),
            "parent_id": s.notebook_id("The notebook to create it in; omit for the top level."),
        },
        ("title",),
    ),
    output_schema=s.obj(
        {"id": s.string(), "title": s.string(), "parent_id": s.string()}, ("id", "title", "parent_id")
    ),
    annotations=Annotations(read_only=False, destructive=False, idempotent=False),
    handler=_create_notebook,
    makes=notebook_made,
    examples=({"title": "Recipes"}, {"title": "2025", "parent_id": s.EXAMPLE_ID}),
    undo=Undo(),
)

TOOLS = (LIST_NOTEBOOKS, LIST_TAGS, LIST_NOTEBOOK_NOTES, CREATE_NOTEBOOK)

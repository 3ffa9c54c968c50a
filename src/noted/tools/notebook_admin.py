"""Notebook management: ``get_notebook``, ``update_notebook``, ``delete_notebook``, ``restore_notebook``.

Deleting moves a notebook with its sub-notebooks and notes to the trash; nothing here erases. In a
scope, a move that would take the notebook out of the notebooks the caller can see is refused
before anything is written (the scope is resolved again on the notebooks as they would be), so no
app can hide a notebook from itself or carry it off to a place it cannot see. A top of the scope
(a notebook the scope names, whose parent the caller cannot see) may be renamed, but not moved or
trashed: that would change the notebook around it, which is the person's. A refusal names the
limit that applies (``mcp.allowedNotebooks`` or the client's token). In a Markdown folder, where a
notebook's name is its folder's and a name taken beside it becomes ``Name 2``, a top of the scope is
not renamed (nor a notebook made or moved to the top of the folder): the name it got would tell
which names the folders the caller cannot see have (``names_beside_hidden``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from noted.models import Folder, descendants
from noted.ops import notebooks as ops
from noted.tools import schema as s
from noted.tools.base import READ, Annotations, Payload, Tool, ToolContext, ToolError, Undo
from noted.tools.payloads import iso, notebook_title, opt_iso, view, visible_folder
from noted.tools.pinning import pinned
from noted.tools.scope import (
    BESIDE_HIDDEN,
    BESIDE_HIDDEN_SAID,
    TRASHED_ABOVE,
    TRASHED_ABOVE_SAID,
    ScopeView,
    names_beside_hidden,
    trashed_above,
)


def _summary(ctx: ToolContext, scope: ScopeView, folder: Folder) -> Payload:
    """The fields every notebook tool returns about one notebook."""
    parent = scope.parent_of(folder)
    return {
        "id": folder.id,
        "title": folder.title,
        "parent_id": parent,
        "parent": notebook_title(ctx, parent) if parent else "",  # parent_of: "" when out of scope
        "in_trash": folder.is_trashed,
    }


SUMMARY: dict[str, Payload] = {
    "id": s.string(),
    "title": s.string(),
    "parent_id": s.string('The parent notebook\'s id; "" at the top level.'),
    "parent": s.string("The parent notebook's title."),
    "in_trash": s.boolean(),
}


# get_notebook --------------------------------------------------------------------------------------


def _get_notebook(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    scope = view(ctx)
    folder = visible_folder(ctx, scope, args["id"], field="id", trashed_ok=True)
    every = ctx.store.list_folders(include_trashed=True)
    counts = ctx.store.folder_note_counts()
    below = set(descendants(every, folder.id))
    children = [f for f in every if f.parent_id == folder.id and not f.is_trashed]
    return {
        **_summary(ctx, scope, folder),
        "note_count": counts.get(folder.id, 0),
        "notebook_count": len(children),
        "total_note_count": sum(counts.get(i, 0) for i in below),
        "trashed_note_count": len(ctx.store.list_notes(folder_id=folder.id, trashed=True)),
        "created_time": iso(folder.created_time),
        "updated_time": iso(folder.updated_time),
        "deleted_time": opt_iso(folder.deleted_time),
    }


GET_NOTEBOOK = Tool(
    name="get_notebook",
    title="Get a notebook",
    description=(
        "One notebook by id: its title, parent (id and title), whether it is in the trash, and "
        "counts: note_count (notes directly inside), notebook_count (sub-notebooks directly inside), "
        "total_note_count (notes in it and all its sub-notebooks) and trashed_note_count (its notes "
        "in the trash). Works for a notebook in the trash too, so you can check before restore_notebook."
    ),
    input_schema=s.obj({"id": s.notebook_id()}, ("id",)),
    output_schema=s.obj(
        {
            **SUMMARY,
            "note_count": s.integer(),
            "notebook_count": s.integer(),
            "total_note_count": s.integer(),
            "trashed_note_count": s.integer(),
            "created_time": s.TIME,
            "updated_time": s.TIME,
            "deleted_time": s.OPT_TIME,
        },
        (*SUMMARY, "note_count", "notebook_count", "total_note_count", "trashed_note_count"),
    ),
    annotations=READ,
    handler=_get_notebook,
    examples=({"id": s.EXAMPLE_ID},),
)


# update_notebook ---------------------------------------------------------------------------------


def _check_move(
    ctx: ToolContext, scope: ScopeView, folder: Folder, parent_id: str, every: list[Folder]
) -> None:
    if parent_id and parent_id in set(descendants(every, folder.id)):
        raise ToolError(
            f'cannot move notebook "{folder.title}" into itself or one of its own sub-notebooks; '
            "nothing was changed",
            field="parent_id",
        )
    if parent_id:
        visible_folder(ctx, scope, parent_id, field="parent_id")


def _leaving_limit(ctx: ToolContext, folder: Folder, parent_id: str, every: list[Folder]) -> str | None:
    """The limit the notebook would leave if moved under ``parent_id``, or None if it stays in scope."""
    if ctx.scope.unrestricted:
        return None
    after = [
        Folder(f.id, f.title, parent_id, f.created_time, f.updated_time, f.deleted_time)
        if f.id == folder.id
        else f
        for f in every
    ]
    return ctx.scope.excluding(after, folder.id)


def _refuse_root(ctx: ToolContext, scope: ScopeView, folder: Folder, every: list[Folder], what: str) -> None:
    if scope.is_root(folder):
        limit = ctx.scope.excluding(every, folder.parent_id) if folder.parent_id else None
        named = (lm.source for lm in reversed(ctx.scope.limits) if folder.id in lm.notebooks)  # narrowest
        source = limit or next(named, ctx.scope.limits[-1].source)
        raise ToolError(
            f'notebook "{folder.title}" is a top of the notebooks you can see ({source}), so it cannot '
            f"be {what} from here; nothing was changed. Only the person can do that, in noted.",
            field="id" if what == "moved to the trash" else "parent_id",
            person=f'notebook "{folder.title}" is a top of the notebooks the assistant can see ({source}), '
            f"so the assistant cannot have it {what}; nothing was changed",
        )


def _update_notebook(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    scope = view(ctx)
    folder = visible_folder(ctx, scope, args["id"], field="id")
    if "title" not in args and "parent_id" not in args:
        raise ToolError('nothing to change: give "title" to rename the notebook or "parent_id" to move it')
    title = str(args.get("title", folder.title)).strip()
    if not title or "\n" in title or "\r" in title:
        raise ToolError("a notebook title must be one line and not empty", field="title")
    parent_id = str(args.get("parent_id", folder.parent_id))
    every = ctx.store.list_folders(include_trashed=True)
    if title != folder.title and names_beside_hidden(ctx.store, scope, folder.parent_id):
        raise ToolError(
            f'notebook "{folder.title}" cannot be renamed from here: {BESIDE_HIDDEN}',
            field="title",
            person=f'notebook "{folder.title}" cannot be renamed by the assistant: {BESIDE_HIDDEN_SAID}',
        )
    if parent_id != folder.parent_id:
        _refuse_root(ctx, scope, folder, every, "moved")
        _check_move(ctx, scope, folder, parent_id, every)
        leaving = _leaving_limit(ctx, folder, parent_id, every)
        if leaving is not None:
            raise ToolError(
                f'this move would take notebook "{folder.title}" out of the notebooks you can see '
                f"({leaving}); nothing was changed. Only the person can do that, in noted.",
                field="parent_id",
                person=f'this move would take notebook "{folder.title}" out of the notebooks the assistant '
                f"can see ({leaving}); nothing was changed",
            )
        if names_beside_hidden(ctx.store, scope, parent_id):
            raise ToolError(
                f'notebook "{folder.title}" cannot be moved there from here: {BESIDE_HIDDEN}',
                field="parent_id",
                person=f'notebook "{folder.title}" cannot be moved there by the assistant: {BESIDE_HIDDEN_SAID}',
            )
    # The notebook it goes into was checked too: a move made into one the person moved out meanwhile
    # is refused as one out of the scope is.
    target = [f for f in every if f.id == parent_id and parent_id != folder.parent_id]
    with pinned(ctx, scope, folder, *target):
        updated = ops.update_notebook(
            ctx.store,
            folder.id,
            title=title if "title" in args else None,
            parent_id=parent_id if "parent_id" in args else None,
            actor=ctx.actor,
            visible=scope.folder_ids,  # a name taken outside the scope is not told (refuse_taken)
        ).folder
    differs = {"title": updated.title != folder.title, "parent_id": updated.parent_id != folder.parent_id}
    return {**_summary(ctx, scope, updated), "changed": [k for k in differs if k in args and differs[k]]}


def _notebook_label(ctx: ToolContext, args: Mapping[str, Any]) -> str:
    """What names a proposal of a notebook tool: the notebook's title, and a rename's new one."""
    folder = visible_folder(ctx, view(ctx), args["id"], field="id", trashed_ok=True)
    new = str(args.get("title", "")).strip()
    return f"{folder.title} → {new}" if new and new != folder.title else folder.title


UPDATE_NOTEBOOK = Tool(
    name="update_notebook",
    title="Rename or move a notebook",
    description=(
        'Rename a notebook (title) and/or move it (parent_id: another notebook\'s id, or "" for the '
        "top level). Its notes and sub-notebooks go with it. Moving a notebook into itself or one of "
        "its own sub-notebooks is refused, as is a notebook in the trash (restore_notebook first), "
        "and a title another notebook where it would be has (case aside). "
        "Returns the notebook as it is now and the fields that were given."
    ),
    input_schema=s.obj(
        {
            "id": s.notebook_id(),
            "title": s.string("The new title (one line).", minLength=1, maxLength=s.MAX_TITLE),
            "parent_id": s.string(
                'The notebook to move it into; "" moves it to the top level.', maxLength=64
            ),
        },
        ("id",),
    ),
    output_schema=s.obj(
        {
            **SUMMARY,
            "changed": s.array(s.string(), "The fields given that changed it; [] when it already was so."),
        },
        (*SUMMARY, "changed"),
    ),
    annotations=Annotations(read_only=False, destructive=True, idempotent=True),
    handler=_update_notebook,
    label=_notebook_label,
    examples=(
        {"id": s.EXAMPLE_ID, "title": "Recipes 2025"},
        {"id": s.EXAMPLE_ID, "parent_id": "fedcba9876543210fedcba9876543210"},
        {"id": s.EXAMPLE_ID, "parent_id": ""},
    ),
    undo=Undo(notebooks=("id",)),
)


# delete_notebook, restore_notebook ---------------------------------------------------------------


def _delete_notebook(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    scope = view(ctx)
    folder = visible_folder(ctx, scope, args["id"], field="id", trashed_ok=True)
    every = ctx.store.list_folders(include_trashed=True)
    _refuse_root(ctx, scope, folder, every, "moved to the trash")
    with pinned(ctx, scope, folder):
        trashed = ops.trash_notebook(ctx.store, folder.id, actor=ctx.actor)
    return {
        **_summary(ctx, scope, trashed.folder),
        "notebooks_trashed": trashed.notebooks,
        "notes_trashed": trashed.notes,
    }


DELETE_NOTEBOOK = Tool(
    name="delete_notebook",
    title="Delete a notebook",
    description=(
        "Move a notebook to the trash with its sub-notebooks and all their notes. Nothing is erased: "
        "restore_notebook(id) brings back the notebook with everything that went with it, until "
        "the person empties the trash. Returns how many notebooks and notes went to the trash. "
        "Deleting a notebook already in the trash changes nothing."
    ),
    input_schema=s.obj({"id": s.notebook_id()}, ("id",)),
    output_schema=s.obj(
        {**SUMMARY, "notebooks_trashed": s.integer(), "notes_trashed": s.integer()},
        (*SUMMARY, "notebooks_trashed", "notes_trashed"),
    ),
    annotations=Annotations(read_only=False, destructive=True, idempotent=True),
    handler=_delete_notebook,
    label=_notebook_label,
    examples=({"id": s.EXAMPLE_ID},),
    undo=Undo(notebooks=("id",)),
)


def _restore_notebook(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    scope = view(ctx)
    folder = visible_folder(ctx, scope, args["id"], field="id", trashed_ok=True)
    if folder.is_trashed and trashed_above(scope, ctx.store.list_folders(include_trashed=True), folder.id):
        raise ToolError(
            f"this notebook {TRASHED_ABOVE}", field="id", person=f"this notebook {TRASHED_ABOVE_SAID}"
        )
    with pinned(ctx, scope, folder):
        restored = ops.restore_notebook(ctx.store, folder.id, actor=ctx.actor)
    return {
        **_summary(ctx, scope, restored.folder),
        "notebooks_restored": restored.notebooks,
        "notes_restored": restored.notes,
    }


RESTORE_NOTEBOOK = Tool(
    name="restore_notebook",
    title="Restore a notebook from the trash",
    description=(
        "Bring a notebook back from the trash with the sub-notebooks and notes that went to the "
        "trash with it (its parent notebooks come back too if they were in the trash). Find trashed "
        "notebooks with list_notebooks(include_trashed=true). A notebook not in the trash is left as it is."
    ),
    input_schema=s.obj({"id": s.notebook_id()}, ("id",)),
    output_schema=s.obj(
        {**SUMMARY, "notebooks_restored": s.integer(), "notes_restored": s.integer()},
        (*SUMMARY, "notebooks_restored", "notes_restored"),
    ),
    annotations=Annotations(read_only=False, destructive=False, idempotent=True),
    handler=_restore_notebook,
    label=_notebook_label,
    examples=({"id": s.EXAMPLE_ID},),
    undo=Undo(notebooks=("id",)),
)

TOOLS = (GET_NOTEBOOK, UPDATE_NOTEBOOK, DELETE_NOTEBOOK, RESTORE_NOTEBOOK)

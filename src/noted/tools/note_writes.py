"""The tools that change notes: ``update_note``, ``delete_note``, ``restore_note`` and ``manage_tags``
(``create_note`` is in ``note_create``). All are off until the person switches them on.

Every change is an operation of ``noted.ops.notes``, shared with the app and the CLI, made with
``ctx.actor``, so the change feed and the revisions show who did it. In a scope, a note can only be created in, moved to or found in a visible notebook,
and a write adds no link to a note or attachment the caller cannot see (``tools.attachments.check_links``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from noted.errors import ConflictError
from noted.models import Note, NotePatch, now_ms
from noted.ops import notes as ops
from noted.ops.erased import last_notebook
from noted.tools import schema as s
from noted.tools.attachments import check_links
from noted.tools.base import Annotations, Payload, Tool, ToolContext, ToolError, Undo
from noted.tools.payloads import (
    iso,
    match_positions,
    note_tag_titles,
    parse_time,
    tag_title,
    times,
    view,
    visible_erased,
    visible_folder,
    visible_note,
    write_result,
)
from noted.tools.pinning import READ_AGAIN, pinned
from noted.tools.scope import TRASHED_ABOVE, TRASHED_ABOVE_SAID, ScopeView, trashed_above

BODY_MODES = ("body", "append", "prepend", "replace_text")

# update_note ----------------------------------------------------------------------------------------


def _stale(title: str, base: int, current: int) -> ToolError:
    versions = f"of {iso(base)}, it is now {iso(current)}); nothing was written."
    return ToolError(
        f'note "{title}" has changed since you read it (you read the version {versions} {READ_AGAIN[1]}',
        field="base_updated_time",
        person=f'note "{title}" has changed since the assistant read it (the assistant read the version {versions}',
    )


def _patch(ctx: ToolContext, scope: ScopeView, args: Mapping[str, Any], note: Note) -> NotePatch:
    """The store patch for ``args``, with ``replace_text`` resolved against the note's body."""
    body, new_body = note.body, args.get("body")
    if "replace_text" in args:
        find, replace = args["replace_text"]["find"], args["replace_text"]["replace"]
        found = match_positions(body, find)
        if len(found) != 1:
            advice = (
                "Copy the exact text from read_note (spaces and line breaks count)."
                if not found
                else "Include more of the surrounding text so that it matches once."
            )
            why = f"matches {times(len(found))} in the note; it must match exactly once."
            raise ToolError(
                f"replace_text.find {why} {advice}",
                field="replace_text.find",
                person=f"the text to replace {why}",
            )
        new_body = body[: found[0]] + replace + body[found[0] + len(find) :]
    parent = visible_folder(ctx, scope, args["notebook_id"]).id if "notebook_id" in args else None
    completed = None
    if "todo_completed" in args:
        if not note.is_todo:
            raise ToolError("this note is not a to-do, so it cannot be completed", field="todo_completed")
        if bool(args["todo_completed"]) != bool(note.todo_completed):  # a done to-do keeps its time
            completed = now_ms() if args["todo_completed"] else 0
    return NotePatch(
        title=args.get("title"),
        body=new_body,
        append=args.get("append"),
        prepend=args.get("prepend"),
        parent_id=parent,
        todo_completed=completed,
        keep_file_name=not scope.unrestricted,  # a rename's outcome never tells of links outside
    )


def _update_note(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    scope = view(ctx)
    note = visible_note(ctx, scope, args["id"])
    modes = [m for m in BODY_MODES if m in args]
    if len(modes) > 1:
        raise ToolError(
            f'"{modes[0]}" and "{modes[1]}" cannot be used together: give one of body, append, prepend '
            "or replace_text per call",
            field=modes[1],
            person=f'"{modes[0]}" and "{modes[1]}" cannot be used together',
        )
    changes = [k for k in ("title", *BODY_MODES, "notebook_id", "todo_completed", "tags") if k in args]
    if not changes:
        raise ToolError(
            "nothing to change: give title, body, append, prepend, replace_text, notebook_id, "
            "todo_completed or tags"
        )
    tags = _tag_set(args["tags"]) if "tags" in args else None
    if note.is_trashed:
        raise ToolError(
            f'note "{note.title}" is in the trash', field="id", advice="restore_note brings it back first"
        )
    base = parse_time(args["base_updated_time"], "base_updated_time") if "base_updated_time" in args else None
    if base is not None and base != note.updated_time:
        raise _stale(note.title, base, note.updated_time)
    patch = _patch(ctx, scope, args, note)
    if modes:
        field = "replace_text.replace" if modes[0] == "replace_text" else modes[0]
        check_links(
            ctx,
            scope,
            patch.body_after(note.body),
            before=note.body,
            field=field,
            note_id=note.id,
            folder_id=note.parent_id,
        )
    if base is None and ("replace_text" in args or not scope.unrestricted):
        # The replacement was computed, and the scope checked, on this version: never write another
        # (in a scope, one the person moved out of it meanwhile).
        base = note.updated_time
    before = _folded(note_tag_titles(ctx, note.id)) if tags is not None else set()
    moving = patch.parent_id is not None and patch.parent_id != note.parent_id
    target = [ctx.store.get_folder(patch.parent_id)] if moving and patch.parent_id else []
    try:
        with pinned(ctx, scope, note, *target):
            updated = ops.update_note(
                ctx.store, note.id, patch, actor=ctx.actor, tags=tags, base_updated_time=base
            )
    except ConflictError as exc:
        raise _stale(note.title, base or note.updated_time, exc.current_updated_time or 0) from exc
    result = write_result(ctx, updated)
    differs = {
        "title": updated.title != note.title,
        "notebook_id": updated.parent_id != note.parent_id,
        "todo_completed": updated.todo_completed != note.todo_completed,
        "tags": before != _folded(result["tags"]),
    }
    return {**result, "changed": [k for k in changes if differs.get(k, updated.body != note.body)]}


def _folded(titles: object) -> set[str]:
    return {str(t).casefold() for t in titles} if isinstance(titles, list | tuple) else set()


def _tag_set(given: list[str]) -> list[str]:
    """The tag titles of ``update_note(tags=…)``, checked before anything is written."""
    titles = list(dict.fromkeys(t.strip() for t in given))
    bad = [t for t in titles if not t or "\n" in t or "\r" in t]
    if bad:
        raise ToolError("each tag title must be one line and not empty", field="tags")
    return titles


UPDATE_NOTE = Tool(
    name="update_note",
    title="Update a note",
    description=(
        "Change a note. Give only what changes: title; the body in one of four ways (one per call): "
        "body (replaces all of it), append (adds at the end, on a new line), prepend (adds at the "
        "start), or replace_text {find, replace} (find must occur exactly once, else nothing changes "
        "and the error says how many times it matched); notebook_id to move it; todo_completed "
        "for a to-do; tags to replace its whole tag set. Pass base_updated_time = the updated_time read_note gave you: if the note "
        "changed since, nothing is written and you are told to read it again. Prefer append or "
        "replace_text over rewriting a whole body."
    ),
    input_schema=s.obj(
        {
            "id": s.note_id(),
            "title": s.string("A new title (one line).", maxLength=s.MAX_TITLE),
            "body": s.text("The whole new Markdown body."),
            "append": s.text("Text to add at the end.", min_length=1),
            "prepend": s.text("Text to add at the start.", min_length=1),
            "replace_text": s.obj(
                {
                    "find": s.text("Exact text now in the body; must occur exactly once.", min_length=1),
                    "replace": s.text("What to put in its place (empty to delete it)."),
                },
                ("find", "replace"),
            ),
            "notebook_id": s.notebook_id("Move the note to this notebook."),
            "todo_completed": s.boolean("For a to-do: true marks it done, false not done."),
            "tags": s.tag_list(
                "The note's tags afterwards: these titles replace its whole tag set ([] removes "
                "every tag); missing tags are created. manage_tags adds or removes a few."
            ),
            "base_updated_time": s.time_arg(
                "The note's updated_time as read_note returned it; the update is refused if the note changed since."
            ),
        },
        ("id",),
    ),
    output_schema=s.obj(
        {
            **s.WRITE_RESULT,
            "changed": s.array(
                s.string(), "The fields given that changed the note; [] when it already was as asked."
            ),
        },
        (*s.WRITE_REQUIRED, "changed"),
    ),
    annotations=Annotations(read_only=False, destructive=True, idempotent=False),
    handler=_update_note,
    examples=(
        {"id": s.EXAMPLE_ID, "append": "- call Ana about the budget"},
        {
            "id": s.EXAMPLE_ID,
            "replace_text": {"find": "due Friday", "replace": "due Monday"},
            "base_updated_time": "2025-03-01T09:30:00.000Z",
        },
        {"id": s.EXAMPLE_ID, "title": "Trip to Lisbon", "notebook_id": "fedcba9876543210fedcba9876543210"},
        {"id": s.EXAMPLE_ID, "todo_completed": True},
        {"id": s.EXAMPLE_ID, "tags": ["work", "2025"]},
    ),
    undo=Undo(notes=("id",)),
)


# delete_note, restore_note --------------------------------------------------------------------------


def _delete_note(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    scope = view(ctx)
    note = visible_note(ctx, scope, args["id"])
    with pinned(ctx, scope, note):
        return write_result(ctx, ops.trash_note(ctx.store, note.id, actor=ctx.actor).note)


DELETE_NOTE = Tool(
    name="delete_note",
    title="Delete a note",
    description=(
        "Move a note to the trash. It disappears from searches and listings; restore_note(id) "
        "brings it back until the person empties the trash. Deleting a note already in the trash "
        "changes nothing."
    ),
    input_schema=s.obj({"id": s.note_id()}, ("id",)),
    output_schema=s.obj(s.WRITE_RESULT, s.WRITE_REQUIRED),
    annotations=Annotations(read_only=False, destructive=True, idempotent=True),
    handler=_delete_note,
    examples=({"id": s.EXAMPLE_ID},),
    undo=Undo(notes=("id",)),
)


def _restore_note(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    scope = view(ctx)
    try:
        note = visible_note(ctx, scope, args["id"])
    except ToolError:  # erased outside noted, its revisions kept: written again as the newest
        erased = visible_erased(ctx, scope, args["id"])
        if not scope.unrestricted and last_notebook(ctx.store, erased.id) != erased.notebook:
            raise ToolError(
                f'note "{erased.title}" was last in a notebook in the trash',
                field="id",
                advice="restore_notebook brings that back first",
            ) from None
        newest = ctx.store.note_history(erased.id, bodies=False)[0]
        return write_result(ctx, ops.restore_revision(ctx.store, erased.id, newest.id, actor=ctx.actor))
    if note.is_trashed and trashed_above(scope, ctx.store.list_folders(include_trashed=True), note.parent_id):
        raise ToolError(
            f"this note's notebook {TRASHED_ABOVE}",
            field="id",
            person=f"this note's notebook {TRASHED_ABOVE_SAID}",
        )
    with pinned(ctx, scope, note):
        return write_result(ctx, ops.restore_note(ctx.store, note.id, actor=ctx.actor).note)


RESTORE_NOTE = Tool(
    name="restore_note",
    title="Restore a note from the trash",
    description=(
        "Bring a note back from the trash into its notebook (the notebook is restored too if it "
        "was trashed). A note that is not in the trash is left as it is. A note erased outside "
        "noted whose history is kept (note_history says erased) is written again, with its id, as "
        "its newest revision."
    ),
    input_schema=s.obj({"id": s.note_id()}, ("id",)),
    output_schema=s.obj(s.WRITE_RESULT, s.WRITE_REQUIRED),
    annotations=Annotations(read_only=False, destructive=False, idempotent=True),
    handler=_restore_note,
    examples=({"id": s.EXAMPLE_ID},),
    undo=Undo(notes=("id",)),
)


# manage_tags ----------------------------------------------------------------------------------------


def _manage_tags(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    scope = view(ctx)
    note = visible_note(ctx, scope, args["note_id"], field="note_id")
    add: list[str] = [t.strip() for t in args.get("add", ())]
    remove: list[str] = [t.strip() for t in args.get("remove", ())]
    if not add and not remove:
        raise ToolError('give tag titles to "add", to "remove", or both', field="add")
    both = {t.casefold() for t in add} & {t.casefold() for t in remove}
    if both:
        raise ToolError(f"a tag cannot be both added and removed: {', '.join(sorted(both))}", field="remove")
    if note.is_trashed:
        raise ToolError(
            f'note "{note.title}" is in the trash',
            field="note_id",
            advice="restore_note brings it back first",
        )
    with pinned(ctx, scope, note, field="note_id"):
        change = ops.edit_tags(ctx.store, note.id, add, remove, actor=ctx.actor)
    return {
        "note_id": note.id,
        "title": note.title,
        "tags": [tag_title(ctx, t) for t in change.tags],
        "added": [tag_title(ctx, t) for t in change.added],
        "removed": list(change.removed),
        "not_on_note": list(change.not_on_note),
    }


MANAGE_TAGS = Tool(
    name="manage_tags",
    title="Add or remove tags",
    description=(
        "Add tags to a note and/or remove tags from it, by tag title (case does not matter). Tags "
        "that do not exist yet are created on add. Returns the note's tags afterwards, what was "
        "added and removed, and the titles to remove that were not on the note."
    ),
    input_schema=s.obj(
        {
            "note_id": s.note_id(),
            "add": s.tag_list("Tag titles to add."),
            "remove": s.tag_list("Tag titles to remove."),
        },
        ("note_id",),
    ),
    output_schema=s.obj(
        {
            "note_id": s.string(),
            "title": s.string(),
            "tags": s.array(s.string()),
            "added": s.array(s.string()),
            "removed": s.array(s.string()),
            "not_on_note": s.array(s.string()),
        },
        ("note_id", "title", "tags", "added", "removed", "not_on_note"),
    ),
    annotations=Annotations(read_only=False, destructive=True, idempotent=True),
    handler=_manage_tags,
    examples=(
        {"note_id": s.EXAMPLE_ID, "add": ["urgent", "work"]},
        {"note_id": s.EXAMPLE_ID, "add": ["done"], "remove": ["in progress"]},
    ),
    undo=Undo(notes=("note_id",)),
)

TOOLS = (UPDATE_NOTE, DELETE_NOTE, RESTORE_NOTE, MANAGE_TAGS)

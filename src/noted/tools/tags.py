"""Tag management: ``get_tag``, ``create_tag``, ``rename_tag`` and ``delete_tag`` (adding and
removing a note's tags is ``manage_tags``).

A tag is shared by every notebook. Without a scope these act on the tag itself. In a scope (an AI
app limited to some notebooks) every answer is built from the notes the caller can see, read
notebook by notebook, so nothing in it, not even the work done, depends on notes elsewhere:

- a tag is there, by id, while a visible note (in the trash or not) carries it; any other id
  answers as one that names no tag, so a tag used only elsewhere cannot be told from none (a tag
  the caller made stays so until it puts it on a note). ``create_tag`` answers a title used only
  elsewhere as it answers a new one: created, with that tag's id, on no visible note;
  ``note_count`` counts visible notes, the title is case-folded and the times are left out;
- ``rename_tag`` moves the visible notes that carry the tag to the tag with the new title (made
  when none has it), and ``delete_tag`` takes the tag off the visible notes; neither touches the
  tag itself, which notes elsewhere may carry. A new title is refused only when a visible note
  carries a tag of that title, as without a scope; one used only elsewhere is as free as a new one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from noted.errors import NotFoundError
from noted.models import Tag
from noted.ops import notebooks as ops
from noted.tools import schema as s
from noted.tools.base import READ, Annotations, Payload, Tool, ToolContext, ToolError, Undo
from noted.tools.payloads import iso, scoped_notes, tag_title, view
from noted.tools.scope import ScopeView


def visible_tag(ctx: ToolContext, scope: ScopeView, tag_id: str, field: str = "id") -> Tag:
    """The tag, or "not found" when no tag has that id *or*, in a scope, no visible note carries
    it (see the module docstring): its title would tell of notes elsewhere."""
    try:
        tag = ctx.store.get_tag(tag_id)
    except NotFoundError:
        tag = None
    if tag is None or not (
        scope.unrestricted or _carried(ctx, scope, tag) or _carried(ctx, scope, tag, trashed=True)
    ):
        raise ToolError(f'no tag with id "{tag_id}"', field=field, advice="list_tags lists them")
    return tag


def _carried(ctx: ToolContext, scope: ScopeView, tag: Tag, *, trashed: bool = False) -> list[str]:
    """The ids of the visible notes that carry the tag (of those in the trash with ``trashed``)."""
    return [n.id for n in scoped_notes(ctx, scope, tag_id=tag.id, trashed=trashed)]


def _title(args: Mapping[str, Any]) -> str:
    title = str(args["title"]).strip()
    if not title or "\n" in title or "\r" in title:
        raise ToolError("a tag title must be one line and not empty", field="title")
    return title


def _tag_payload(ctx: ToolContext, scope: ScopeView, tag: Tag) -> Payload:
    if scope.unrestricted:
        count, created, updated = tag.note_count, iso(tag.created_time), iso(tag.updated_time)
    else:  # when the tag was made or renamed may have happened outside the caller's notebooks
        count, created, updated = len(_carried(ctx, scope, tag)), None, None
    return {
        "id": tag.id,
        "title": tag_title(ctx, tag.title),
        "note_count": count,
        "created_time": created,
        "updated_time": updated,
    }


TAG_FIELDS: dict[str, Payload] = {
    "id": s.string(),
    "title": s.string(),
    "note_count": s.integer("Notes (not in the trash) that carry it."),
    "created_time": s.OPT_TIME,
    "updated_time": s.OPT_TIME,
}
TAG_ID = s.string("The tag's id (list_tags lists them).", minLength=1, maxLength=64)


def _get_tag(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    scope = view(ctx)
    return _tag_payload(ctx, scope, visible_tag(ctx, scope, args["id"]))


GET_TAG = Tool(
    name="get_tag",
    title="Get a tag",
    description=(
        "One tag by id: its title, how many notes carry it, and when it was created and last "
        "renamed. list_tag_notes lists its notes; list_tags lists every tag in use."
    ),
    input_schema=s.obj({"id": TAG_ID}, ("id",)),
    output_schema=s.obj(TAG_FIELDS, tuple(TAG_FIELDS)),
    annotations=READ,
    handler=_get_tag,
    examples=({"id": s.EXAMPLE_ID},),
)


def _rename_tag(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    scope = view(ctx)
    tag = visible_tag(ctx, scope, args["id"])
    title = _title(args)
    clash = ctx.store.find_tag(title)
    if clash is not None and clash.id != tag.id and (scope.unrestricted or _carried(ctx, scope, clash)):
        raise ToolError(
            f'a tag titled "{tag_title(ctx, clash.title)}" exists already',
            field="title",
            advice=f'to merge the two, add it to the notes with manage_tags and then delete "{tag_title(ctx, tag.title)}"',
        )
    if scope.unrestricted:
        renamed = ops.rename_tag(ctx.store, tag.id, title, actor=ctx.actor).tag
    elif title.casefold() == tag.title.casefold():
        renamed = tag  # only the case would change, and a scope shows titles case-folded
    else:
        notes = _carried(ctx, scope, tag) + _carried(ctx, scope, tag, trashed=True)
        renamed = ops.move_tag_on(ctx.store, tag.id, title, notes, actor=ctx.actor).tag
    return {**_tag_payload(ctx, scope, renamed), "previous_title": tag_title(ctx, tag.title)}


RENAME_TAG = Tool(
    name="rename_tag",
    title="Rename a tag",
    description=(
        "Give a tag a new title; every note that carries it shows the new title. Titles are unique "
        "regardless of case: renaming to the title of another tag is refused (merge them with "
        "manage_tags, then delete_tag). Changing only the case (todo → TODO) is allowed. When you "
        "see only some notebooks, the notes you see move to a tag with the new title (its id may "
        "differ) and notes elsewhere keep the old one."
    ),
    input_schema=s.obj(
        {"id": TAG_ID, "title": s.string("The new title.", minLength=1, maxLength=s.MAX_TAG)},
        ("id", "title"),
    ),
    output_schema=s.obj({**TAG_FIELDS, "previous_title": s.string()}, (*TAG_FIELDS, "previous_title")),
    annotations=Annotations(read_only=False, destructive=True, idempotent=True),
    handler=_rename_tag,
    label=lambda ctx, args: f"{_tag_label(ctx, args)} → {str(args['title']).strip()}",
    examples=({"id": s.EXAMPLE_ID, "title": "project-x"},),
    undo=Undo(tags=("id",)),
)


def _delete_tag(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    scope = view(ctx)
    tag = visible_tag(ctx, scope, args["id"])
    if scope.unrestricted:
        removed = ops.delete_tag(ctx.store, tag.id, actor=ctx.actor).notes
    else:
        notes = _carried(ctx, scope, tag) + _carried(ctx, scope, tag, trashed=True)
        removed = ops.take_tag_off(ctx.store, tag.id, notes, actor=ctx.actor).notes
    return {"id": tag.id, "title": tag_title(ctx, tag.title), "deleted": True, "removed_from_notes": removed}


def _tag_label(ctx: ToolContext, args: Mapping[str, Any]) -> str:
    return tag_title(ctx, visible_tag(ctx, view(ctx), args["id"]).title)


DELETE_TAG = Tool(
    name="delete_tag",
    title="Delete a tag",
    description=(
        "Delete a tag for good: it is removed from every note that carries it (the notes stay). "
        "There is no trash for tags and no undo. To take a tag off one note, use manage_tags instead. "
        "When you see only some notebooks, the tag comes off the notes you see, and notes elsewhere "
        "keep it."
    ),
    input_schema=s.obj({"id": TAG_ID}, ("id",)),
    output_schema=s.obj(
        {
            "id": s.string(),
            "title": s.string(),
            "deleted": s.boolean(),
            "removed_from_notes": s.integer("How many notes carried it."),
        },
        ("id", "title", "deleted", "removed_from_notes"),
    ),
    annotations=Annotations(read_only=False, destructive=True, idempotent=False),
    handler=_delete_tag,
    examples=({"id": s.EXAMPLE_ID},),
    label=_tag_label,
    undo=Undo(tags=("id",)),
)


def _create_tag(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    scope = view(ctx)
    title = _title(args)
    if scope.unrestricted:
        existing = ctx.store.find_tag(title)
        tag = existing if existing is not None else ops.create_tag(ctx.store, title, actor=ctx.actor)
        return {**_tag_payload(ctx, scope, tag), "created": existing is None}
    # In a scope the one path (the store makes the tag unless one has the title) serves both: a tag
    # used only elsewhere answers exactly as a new one, created, with no visible note and no times.
    tag = ops.create_tag(ctx.store, title, actor=ctx.actor)
    payload = _tag_payload(ctx, scope, tag)
    return {**payload, "created": payload["note_count"] == 0}


CREATE_TAG = Tool(
    name="create_tag",
    title="Create a tag",
    description=(
        "Create a tag with this title, not yet on any note (manage_tags puts it on notes, and also "
        "creates missing tags itself). Titles are unique regardless of case: when the tag exists, "
        "it is returned with created false and nothing changes. When you see only some notebooks, "
        "a tag is found by its id once one of your notes carries it."
    ),
    input_schema=s.obj(
        {"title": s.string("The tag's title (one line).", minLength=1, maxLength=s.MAX_TAG)}, ("title",)
    ),
    output_schema=s.obj({**TAG_FIELDS, "created": s.boolean()}, (*TAG_FIELDS, "created")),
    annotations=Annotations(read_only=False, destructive=False, idempotent=True),
    handler=_create_tag,
    examples=({"title": "project-x"},),
    undo=Undo(),
)

TOOLS = (GET_TAG, CREATE_TAG, RENAME_TAG, DELETE_TAG)

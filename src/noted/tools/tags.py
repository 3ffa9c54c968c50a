"""Tag management: ``get_tag``, ``create_tag``, ``rename_tag`` and ``delete_tag`` (adding and
removing a note's tags is ``manage_tags``).

A tag is shared by every notebook. In a scope a tag is visible when at least one visible note
carries it (as in ``list_tags``), and it can be renamed or deleted only when every note carrying it
is visible: otherwise the change would reach notes the caller may not see, so it is refused without
saying where or how often the tag is used.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from noted.errors import NotFoundError
from noted.models import NoteMeta, Tag
from noted.ops import notebooks as ops
from noted.tools import schema as s
from noted.tools.base import READ, Annotations, Payload, Tool, ToolContext, ToolError
from noted.tools.payloads import iso, tag_title, view
from noted.tools.scope import ScopeView

_EXAMPLE_ID = "0123456789abcdef0123456789abcdef"


def _tagged(ctx: ToolContext, tag_id: str, *, trashed: bool = False) -> list[NoteMeta]:
    return ctx.store.list_notes(tag_id=tag_id, trashed=trashed)


def _visible(ctx: ToolContext, scope: ScopeView, tag: Tag) -> bool:
    return scope.unrestricted or any(scope.allows_note(n) for n in _tagged(ctx, tag.id))


def visible_tag(ctx: ToolContext, scope: ScopeView, tag_id: str, field: str = "id") -> Tag:
    """The tag, or "not found" when it does not exist or (in a scope) no visible note carries it."""
    try:
        tag: Tag | None = ctx.store.get_tag(tag_id)
    except NotFoundError:
        tag = None
    if tag is not None and not _visible(ctx, scope, tag):
        tag = None
    if tag is None:
        raise ToolError(f'no tag with id "{tag_id}"; list_tags lists them', field=field)
    return tag


def only_visible(
    scope: ScopeView, notes: Iterable[NoteMeta | str], visible_ids: set[str] | None = None
) -> bool:
    """Whether every one of ``notes`` is visible (for ids, ``visible_ids`` says which are)."""
    if scope.unrestricted:
        return True
    for note in notes:
        if isinstance(note, str):
            if visible_ids is None or note not in visible_ids:
                return False
        elif not scope.allows_note(note):
            return False
    return True


def _title(args: Mapping[str, Any]) -> str:
    title = str(args["title"]).strip()
    if not title or "\n" in title or "\r" in title:
        raise ToolError("a tag title must be one line and not empty", field="title")
    return title


def _refuse_if_shared(ctx: ToolContext, scope: ScopeView, tag: Tag, what: str) -> None:
    notes = [*_tagged(ctx, tag.id), *_tagged(ctx, tag.id, trashed=True)]
    if not only_visible(scope, notes):
        raise ToolError(
            f'tag "{tag.title}" is also used outside the notebooks you can see, so it cannot be {what} '
            "from here; nothing was changed. Use manage_tags to change the tags of the notes you can "
            "see, or ask the person to do it in noted.",
            field="id",
        )


def _tag_payload(ctx: ToolContext, scope: ScopeView, tag: Tag) -> Payload:
    if scope.unrestricted:
        count, created, updated = tag.note_count, iso(tag.created_time), iso(tag.updated_time)
    else:  # when the tag was made or renamed may have happened outside the caller's notebooks
        count, created, updated = sum(1 for n in _tagged(ctx, tag.id) if scope.allows_note(n)), None, None
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
    examples=({"id": _EXAMPLE_ID},),
)


def _rename_tag(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    scope = view(ctx)
    tag = visible_tag(ctx, scope, args["id"])
    title = _title(args)
    _refuse_if_shared(ctx, scope, tag, "renamed")
    clash = ctx.store.find_tag(title)
    if clash is not None and clash.id != tag.id and not _visible(ctx, scope, clash):
        # titles are unique, so the rename cannot happen; the answer names nothing of the other tag
        raise ToolError("that title cannot be used for this tag; choose another", field="title")
    if clash is not None and clash.id != tag.id:
        raise ToolError(
            f'a tag titled "{clash.title}" exists already; to merge the two, add it to the notes with '
            f'manage_tags and then delete "{tag.title}"',
            field="title",
        )
    renamed = ops.rename_tag(ctx.store, tag.id, title, actor=ctx.actor).tag
    return {**_tag_payload(ctx, scope, renamed), "previous_title": tag_title(ctx, tag.title)}


RENAME_TAG = Tool(
    name="rename_tag",
    title="Rename a tag",
    description=(
        "Give a tag a new title; every note that carries it shows the new title. Titles are unique "
        "regardless of case: renaming to the title of another tag is refused (merge them with "
        "manage_tags, then delete_tag). Changing only the case (todo → TODO) is allowed."
    ),
    input_schema=s.obj(
        {"id": TAG_ID, "title": s.string("The new title.", minLength=1, maxLength=s.MAX_TAG)},
        ("id", "title"),
    ),
    output_schema=s.obj({**TAG_FIELDS, "previous_title": s.string()}, (*TAG_FIELDS, "previous_title")),
    annotations=Annotations(read_only=False, destructive=True, idempotent=True),
    handler=_rename_tag,
    examples=({"id": _EXAMPLE_ID, "title": "project-x"},),
)


def _delete_tag(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    scope = view(ctx)
    tag = visible_tag(ctx, scope, args["id"])
    _refuse_if_shared(ctx, scope, tag, "deleted")
    deleted = ops.delete_tag(ctx.store, tag.id, actor=ctx.actor)
    return {
        "id": tag.id,
        "title": tag_title(ctx, tag.title),
        "deleted": True,
        "removed_from_notes": deleted.notes,
    }


DELETE_TAG = Tool(
    name="delete_tag",
    title="Delete a tag",
    description=(
        "Delete a tag for good: it is removed from every note that carries it (the notes stay). "
        "There is no trash for tags and no undo. To take a tag off one note, use manage_tags instead."
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
    examples=({"id": _EXAMPLE_ID},),
)


def _create_tag(ctx: ToolContext, args: Mapping[str, Any]) -> Payload:
    scope = view(ctx)
    title = _title(args)
    existing = ctx.store.find_tag(title)
    if existing is not None and _visible(ctx, scope, existing):
        return {**_tag_payload(ctx, scope, existing), "created": False}
    # A tag the caller cannot see answers exactly as a new one would: in a scope, an existing
    # tag used only elsewhere must not show through (its title is case-folded, its times null).
    tag = existing if existing is not None else ctx.store.create_tag(title, actor=ctx.actor)
    return {**_tag_payload(ctx, scope, tag), "created": True}


CREATE_TAG = Tool(
    name="create_tag",
    title="Create a tag",
    description=(
        "Create a tag with this title, not yet on any note (manage_tags puts it on notes, and also "
        "creates missing tags itself). Titles are unique regardless of case: when the tag exists, "
        "it is returned with created false and nothing changes."
    ),
    input_schema=s.obj(
        {"title": s.string("The tag's title (one line).", minLength=1, maxLength=s.MAX_TAG)}, ("title",)
    ),
    output_schema=s.obj({**TAG_FIELDS, "created": s.boolean()}, (*TAG_FIELDS, "created")),
    annotations=Annotations(read_only=False, destructive=False, idempotent=True),
    handler=_create_tag,
    examples=({"title": "project-x"},),
)

TOOLS = (GET_TAG, CREATE_TAG, RENAME_TAG, DELETE_TAG)

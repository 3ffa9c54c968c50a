"""What the tools share: scope-checked lookups, times, note payloads, body paging and sections.

Every lookup by id goes through ``visible_note`` / ``visible_folder``, which answer "not found"
in the very words the store uses for an id that names nothing, so a caller in a scope cannot tell
an out-of-scope note from one that does not exist.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta

from noted.errors import EncryptedError, NotFoundError
from noted.markdown import Outline, Section
from noted.models import Folder, Note, NoteMeta
from noted.ops.erased import ErasedNote, erased_note
from noted.tools.base import Payload, ToolContext, ToolError
from noted.tools.schema import FIRST_MS, LAST_MS
from noted.tools.scope import ScopeView

DEFAULT_MAX_CHARS = 8_000
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)


# Times ----------------------------------------------------------------------------------------


def iso(ms: int) -> str:
    """``1740821400000`` → ``2025-03-01T09:30:00.000Z`` (exact to the millisecond; the year in four
    digits, which ``strftime("%Y")`` does not write on Linux, so ``parse_time`` reads it back)."""
    return (_EPOCH + ms * _MS).isoformat(timespec="milliseconds").removesuffix("+00:00") + "Z"


def opt_iso(ms: int) -> str | None:
    """``iso(ms)``, or None for 0 (a time that is not set)."""
    return iso(ms) if ms else None


def parse_time(value: object, field: str) -> int:
    """A time given as an ISO 8601 string (as the tools return them) or as milliseconds."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        try:
            when = datetime.fromisoformat(value.strip())
        except ValueError:
            pass
        else:
            if when.tzinfo is None:
                when = when.replace(tzinfo=UTC)
            ms = (when - _EPOCH) // _MS
            if FIRST_MS <= ms <= LAST_MS:  # an offset can move a time past year 9999, which iso cannot write
                return ms
    raise ToolError(
        f'field "{field}" must be a time as read_note returned it, e.g. "2025-03-01T09:30:00.000Z"',
        field=field,
        person=f'"{field}" is not a time such as "2025-03-01T09:30:00.000Z"',
    )


# Scope-checked lookups --------------------------------------------------------------------------


def view(ctx: ToolContext) -> ScopeView:
    """The caller's scope resolved now."""
    return ctx.scope.view(ctx.store)


def visible_note(ctx: ToolContext, scope: ScopeView, note_id: str, field: str = "id") -> Note:
    """The note, or "not found" when it does not exist *or* lies outside the scope."""
    try:
        note = ctx.store.get_note(note_id)
    except NotFoundError:
        note = None
    except EncryptedError as exc:  # one Joplin has not decrypted: said only where it may be seen
        if scope.allows_folder(exc.parent_id):
            raise
        note = None
    if note is None or not scope.allows_note(note):
        raise ToolError(f'no note with id "{note_id}"', field=field)
    return note


def visible_erased(ctx: ToolContext, scope: ScopeView, note_id: str, field: str = "id") -> ErasedNote:
    """A note erased outside noted whose revisions noted keeps (``noted.ops.erased``), or the
    "not found" of ``visible_note`` when there is none or the notebook the feed last saw it in
    lies outside the scope."""
    erased = erased_note(ctx.store, note_id)
    if erased is None or not scope.allows_folder(erased.notebook):
        raise ToolError(f'no note with id "{note_id}"', field=field)
    return erased


def visible_folder(
    ctx: ToolContext,
    scope: ScopeView,
    folder_id: str,
    field: str = "notebook_id",
    *,
    trashed_ok: bool = False,
) -> Folder:
    """The notebook, or "not found" when it does not exist, is out of scope or (unless
    ``trashed_ok``) is in the trash."""
    try:
        folder = ctx.store.get_folder(folder_id)
    except NotFoundError:
        folder = None
    if folder is None or (folder.is_trashed and not trashed_ok) or not scope.allows_folder(folder.id):
        raise ToolError(f'no notebook with id "{folder_id}"', field=field, advice="list_notebooks lists them")
    return folder


def scoped_notes(
    ctx: ToolContext,
    scope: ScopeView,
    *,
    folder_id: str | None = None,
    tag_id: str | None = None,
    trashed: bool = False,
) -> list[NoteMeta]:
    """The notes the caller may see, of one notebook (already checked) or tag when given.

    In a scope the store is asked notebook by notebook, the visible ones only (newest first, ties
    by id): what lies outside is never read, so neither the answer nor the work done to find it
    depends on it.
    """
    if scope.folder_ids is None:
        return ctx.store.list_notes(folder_id=folder_id, tag_id=tag_id, trashed=trashed)
    folders = [folder_id] if folder_id is not None else sorted(scope.folder_ids)
    metas = [
        meta
        for folder in folders
        if scope.allows_folder(folder)
        for meta in ctx.store.list_notes(folder_id=folder, tag_id=tag_id, trashed=trashed)
    ]
    metas.sort(key=lambda m: (-m.updated_time, m.id))
    return metas


def body_lengths(ctx: ToolContext, metas: Sequence[NoteMeta]) -> dict[str, int]:
    """Each listed note's body length: the listing's own where the store gives it, else measured
    on the notes read in one go (``Capabilities.listed_lengths``: Joplin's listings know the
    lengths of the notes noted read since their last save, and leave the others at 0)."""
    lengths = {m.id: m.body_length for m in metas}
    if ctx.store.capabilities.listed_lengths:
        return lengths
    unknown = [m.id for m in metas if not m.body_length]
    return lengths | {n.id: len(n.body) for n in ctx.store.get_notes(unknown)}


def notebook_title(ctx: ToolContext, folder_id: str) -> str:
    try:
        return ctx.store.get_folder(folder_id).title
    except NotFoundError:
        return ""


# Tags ---------------------------------------------------------------------------------------------


def tag_title(ctx: ToolContext, title: str) -> str:
    """A tag's title as this caller sees it: in a scope, case-folded.

    Tags are shared by every notebook and matched regardless of case, so adding ``SECRET-TAG`` in
    a scope attaches a ``secret-tag`` used elsewhere. Shown as stored, its case would tell the
    scoped caller that the tag exists outside its notebooks; folded, an existing tag and a new one
    look the same.
    """
    return title if ctx.scope.unrestricted else title.casefold()


def note_tag_titles(ctx: ToolContext, note_id: str) -> list[str]:
    """The titles of a note's tags, as this caller sees them (``tag_title``)."""
    return [tag_title(ctx, t.title) for t in ctx.store.note_tags(note_id)]


# Note payloads -----------------------------------------------------------------------------------


def note_fields(ctx: ToolContext, note: Note) -> Payload:
    """The metadata of a note (everything but its body), as ``schema.NOTE_FIELDS`` describes."""
    return {
        "id": note.id,
        "title": note.title,
        "notebook_id": note.parent_id,
        "notebook": notebook_title(ctx, note.parent_id),
        "updated_time": iso(note.updated_time),
        "created_time": iso(note.user_created_time or note.created_time),
        "tags": note_tag_titles(ctx, note.id),
        "is_todo": note.is_todo,
        "todo_completed": bool(note.todo_completed),
        "todo_completed_time": opt_iso(note.todo_completed),
        "todo_due": opt_iso(note.todo_due),
        "source_url": note.source_url,
        "in_trash": note.is_trashed,
        "is_conflict": note.is_conflict,
    }


def write_result(ctx: ToolContext, note: Note) -> Payload:
    """What a write tool returns about the note it wrote (``schema.WRITE_RESULT``)."""
    return {
        "id": note.id,
        "title": note.title,
        "notebook_id": note.parent_id,
        "notebook": notebook_title(ctx, note.parent_id),
        "updated_time": iso(note.updated_time),
        "body_length": len(note.body),
        "tags": note_tag_titles(ctx, note.id),
        "is_todo": note.is_todo,
        "todo_completed": bool(note.todo_completed),
        "in_trash": note.is_trashed,
    }


# Paging and sections -------------------------------------------------------------------------------


def offset_page(offset: int, total: int, key: str, rows: list[Payload], **head: object) -> Payload:
    """One page of a listing paged by ``offset``: ``head``, the fields of ``schema.OFFSET_PAGE``
    and the page's ``rows`` under ``key``."""
    more = offset + len(rows) < total
    out: Payload = {**head, "total": total, "offset": offset, "has_more": more, key: rows}
    if more:
        out["next_offset"] = offset + len(rows)
    return out


def page(text: str, offset: int, max_chars: int, *, how_to_continue: Callable[[int], str]) -> Payload:
    """A window of ``text`` with the paging fields of ``schema.PAGE_FIELDS``.

    Args:
        text: The whole text (a body or a section).
        offset: Where the window starts.
        max_chars: The most characters to return; 0 for no limit.
        how_to_continue: Says which call reads on from a given offset.
    """
    length = len(text)
    if offset > length:
        raise ToolError(
            f'field "offset" is {offset}, past the end of the text ({length} characters)', field="offset"
        )
    end = length if max_chars == 0 else min(length, offset + max_chars)
    payload: Payload = {
        "body": text[offset:end],
        "body_length": length,
        "body_offset": offset,
        "body_returned_chars": end - offset,
        "has_more": end < length,
    }
    if end < length:
        payload["truncated"] = (
            f"Showing characters {offset:,}–{end:,} of {length:,}. To read on, "
            + how_to_continue(end)
            + "; or ask for outline=true to list the headings and read one part with section "
            '(a path such as "1.2" or a heading); or pass max_chars=0 for all of it.'
        )
    return payload


def pick_section(tree: Outline, key: str) -> Section:
    """The section ``key`` names (a path like ``1.2.1`` or an exact heading), or an error saying why not."""
    found = tree.find(key)
    if len(found) == 1:
        return found[0]
    if found:
        listed = "; ".join(f'{s.path} "{s.heading}"' for s in found)
        raise ToolError(
            f'section "{key}" matches {len(found)} sections: {listed}. Pass the path of the one you want.',
            field="section",
            person=f'section "{key}" matches {len(found)} sections: {listed}',
        )
    headings = "; ".join(f'{s.path} "{s.heading}"' for s in tree.headings[:30])
    more = (
        "" if len(tree.headings) <= 30 else f" (and {len(tree.headings) - 30} more; outline=true lists all)"
    )
    known = f"The sections are: {headings}{more}." if headings else "This note has no headings."
    partial = f" {tree.partial}" if tree.partial else ""
    raise ToolError(f'no section "{key}" in this note. {known}{partial}', field="section")


def match_positions(text: str, find: str) -> list[int]:
    """Every offset where ``find`` occurs in ``text``, overlapping occurrences included."""
    positions: list[int] = []
    start = text.find(find)
    while start != -1:
        positions.append(start)
        start = text.find(find, start + 1)
    return positions


def times(count: int) -> str:
    return {1: "once", 2: "twice"}.get(count, f"{count} times")

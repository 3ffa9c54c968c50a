"""How the command line shows items: short lines for people and stable JSON shapes for scripts.

JSON carries the model's own field names and times in milliseconds since the epoch (as the store
and Joplin do), so a script can feed them back unchanged.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from noted.errors import InvalidInputError
from noted.models import Folder, Note, NoteMeta, Revision, Tag
from noted.ops.folder_tree import FolderNode, folder_nodes
from noted.ops.resolve import folder_paths
from noted.store.protocol import Store
from noted.store.transfer.common import kept_time
from noted.wording import EARLIEST_MS, local_time

if TYPE_CHECKING:
    from noted.cli.context import CliContext

JsonDict = dict[str, Any]


def notebook_of(store: Store, folder_id: str) -> str:
    """The ``Parent/Child`` path of a notebook, for display."""
    return folder_paths(store.list_folders(include_trashed=True)).get(folder_id, "")


def emit_note(ctx: CliContext, note: Note, message: str) -> int:
    """Report a note a command changed: as JSON with ``--json``, else as ``message``; exit code 0."""
    store = ctx.services.store
    if ctx.json:
        ctx.emit(note_json(note, notebook_of(store, note.parent_id), store.note_tags(note.id)))
    else:
        ctx.line(message)
    return 0


def parse_local_time(text: str, *, what: str) -> int:
    """``YYYY-MM-DD`` or ``YYYY-MM-DDTHH:MM`` in local time, as epoch milliseconds.

    Raises:
        InvalidInputError: the text is not one of those shapes, not a real date, or out of the
            range noted keeps (``0001-01-01`` crashed in ``timestamp()``, or broke every display).
    """
    for fmt in ("%Y-%m-%d", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"):
        try:
            moment = dt.datetime.strptime(text.strip(), fmt)
        except ValueError:
            continue
        try:
            ms = int(moment.timestamp() * 1000)
        except (ValueError, OverflowError):  # before the year 1 in UTC
            ms = EARLIEST_MS - 1
        try:
            return kept_time(ms, f'"{text.strip()}"')
        except ValueError as exc:
            raise InvalidInputError(f"bad {what}: {exc}") from None
    raise InvalidInputError(f'bad {what} "{text}": use YYYY-MM-DD or YYYY-MM-DDTHH:MM')


def todo_state(item: Note | NoteMeta) -> str:
    """``[ ]``/``[x]`` for to-dos, empty for notes."""
    if not item.is_todo:
        return ""
    return "[x]" if item.todo_completed else "[ ]"


def tree(folders: Sequence[Folder], counts: dict[str, int]) -> list[tuple[FolderNode, int]]:
    """Folders in display order (titles A→Z under each parent) with their depth and note counts."""
    out: list[tuple[FolderNode, int]] = []

    def walk(nodes: Sequence[FolderNode], depth: int) -> None:
        for node in nodes:
            out.append((node, depth))
            walk(node.children, depth + 1)

    walk(folder_nodes(sorted(folders, key=lambda f: (f.title.casefold(), f.id)), counts), 0)
    return out


def folder_json(folder: Folder, *, path: str, depth: int, note_count: int, total: int) -> JsonDict:
    return {
        "id": folder.id,
        "title": folder.title,
        "parent_id": folder.parent_id,
        "path": path,
        "depth": depth,
        "note_count": note_count,
        "total_note_count": total,
        "created_time": folder.created_time,
        "updated_time": folder.updated_time,
        "deleted_time": folder.deleted_time,
    }


def folder_lines(folders: Sequence[Folder], counts: dict[str, int]) -> list[str]:
    """The notebook tree for people: short id, indented title, own count (and total when different)."""
    lines = []
    for node, depth in tree(folders, counts):
        count = f"{node.own}" if node.own == node.total else f"{node.own}, {node.total} with sub-notebooks"
        lines.append(f"{node.folder.id[:8]}  {'  ' * depth}{node.folder.title} ({count})")
    return lines


def folders_json(folders: Sequence[Folder], counts: dict[str, int]) -> list[JsonDict]:
    paths = folder_paths(folders)
    return [
        folder_json(n.folder, path=paths[n.folder.id], depth=d, note_count=n.own, total=n.total)
        for n, d in tree(folders, counts)
    ]


def meta_json(meta: Note | NoteMeta, notebook: str) -> JsonDict:
    """The fields of a note listing (no body); ``encrypted`` only for a note Joplin has not decrypted."""
    payload: JsonDict = {
        "id": meta.id,
        "title": meta.title,
        "parent_id": meta.parent_id,
        "notebook": notebook,
        "created_time": meta.user_created_time,
        "updated_time": meta.user_updated_time,
        "is_todo": meta.is_todo,
        "todo_due": meta.todo_due,
        "todo_completed": meta.todo_completed,
        "source_url": meta.source_url,
        "deleted_time": meta.deleted_time,
    }
    if isinstance(meta, NoteMeta) and meta.encrypted:
        payload["encrypted"] = True
    return payload


def note_json(note: Note, notebook: str, tags: Sequence[Tag]) -> JsonDict:
    """A whole note: listing fields, tags, body and the ``updated_time`` to base an edit on."""
    payload = meta_json(note, notebook)
    payload["tags"] = [t.title for t in tags]
    payload["base_updated_time"] = note.updated_time
    payload["body"] = note.body
    return payload


def meta_line(meta: NoteMeta, notebook: str) -> str:
    """One note in a listing: short id, updated time, to-do box, title, notebook."""
    state = todo_state(meta)
    title = f"{state} {meta.listed_title}" if state else meta.listed_title
    return f"{meta.id[:8]}  {local_time(meta.user_updated_time)}  {title}  · {notebook}"


def tag_json(tag: Tag) -> JsonDict:
    return {"id": tag.id, "title": tag.title, "note_count": tag.note_count}


def revision_json(rev: Revision, *, with_body: bool = False) -> JsonDict:
    payload: JsonDict = {
        "id": rev.id,
        "note_id": rev.note_id,
        "time": rev.time,
        "actor": rev.actor,
        "edits": rev.edits,
        "title": rev.title,
        "label": rev.label,
    }
    if with_body:
        payload["body"] = rev.body
    return payload


def note_header(note: Note, notebook: str, tags: Sequence[Tag]) -> list[str]:
    """The lines ``show`` prints above a note's body."""
    lines = [f"# {note.title}", f"id:       {note.id}", f"notebook: {notebook}"]
    if tags:
        lines.append(f"tags:     {', '.join(t.title for t in tags)}")
    lines.append(f"created:  {local_time(note.user_created_time)}")
    lines.append(f"updated:  {local_time(note.user_updated_time)}")
    if note.is_todo:
        done = f"done {local_time(note.todo_completed)}" if note.todo_completed else "open"
        due = f", due {local_time(note.todo_due)}" if note.todo_due else ""
        lines.append(f"to-do:    {done}{due}")
    if note.source_url:
        lines.append(f"source:   {note.source_url}")
    if note.is_trashed:
        lines.append(f"trashed:  {local_time(note.deleted_time)}")
    return lines

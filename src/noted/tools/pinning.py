"""A scoped caller's write made on the note or notebook its scope was checked on.

A tool reads the note (or notebook), checks it lies in the caller's notebooks, then writes. In
between, the person may move it out of them (or move its notebook): written anyway, the note
would be trashed, tagged or given a file there, and the answer would name it. ``pinned`` wraps
the write: in one store batch it reads the item and the scope again, and refuses, with nothing
written, an item that is no longer the version checked or no longer in the scope. Where the
store has transactions (the embedded store, a Markdown folder's mirror) the batch holds the write
lock from that read to the write, so nothing can come between; Joplin's Data API has none, so
there the window shrinks to the write itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from noted.errors import EncryptedError, NotFoundError
from noted.models import Folder, Note, NoteMeta, Resource
from noted.tools.attachments import visible_attachment
from noted.tools.base import ToolContext, ToolError
from noted.tools.scope import ScopeView


@contextmanager
def pinned(ctx: ToolContext, scope: ScopeView, *checked: Note | Folder, field: str = "id") -> Iterator[None]:
    """Make the writes inside on the items ``checked`` as the caller's ``scope`` was checked on
    them (a note, the notebook it goes to…), or refuse.

    A caller with no scope writes as before: nothing it could be shown depends on where the item is.

    Raises:
        ToolError: The item changed, moved or went since it was checked (the same words whether
            it is now inside the scope or not); nothing was written.
    """
    if scope.unrestricted:
        yield
        return
    with ctx.store.batch():
        for item in checked:
            if not _unchanged(ctx, item):
                raise changed("note" if isinstance(item, Note) else "notebook", item.title, field)
        yield


@contextmanager
def pinned_attachment(
    ctx: ToolContext, scope: ScopeView, resource: Resource, notes: list[Note]
) -> Iterator[None]:
    """``pinned`` for an attachment the caller's scope was checked on, with the ``notes`` that
    linked it then: one a note elsewhere links since (the person linked it from a hidden note),
    or that changed, answers as it would now, and nothing is written."""
    if scope.unrestricted:
        yield
        return
    with ctx.store.batch():
        now, linking = visible_attachment(ctx, ctx.scope.view(ctx.store), resource.id)
        if now.updated_time != resource.updated_time or [n.id for n in linking] != [n.id for n in notes]:
            raise changed("attachment", resource.title or resource.filename, "id")
        yield


READ_AGAIN = (
    "Read it again and redo your change on what it is now.",
    "Call read_note again and redo your change on what it says now.",
)
"""What a refusal of a write on something that changed since it was read tells the model to do:
the person is not told (``noted.tools.base.ToolError``'s ``person``)."""


def changed(kind: str, name: str, field: str) -> ToolError:
    """The refusal of a write on the ``kind`` (note, notebook, attachment) ``name``, which changed,
    moved or went since the caller read it."""
    return ToolError(
        f'{kind} "{name}" has changed since you read it; nothing was written. {READ_AGAIN[0]}',
        field=field,
        person=f'{kind} "{name}" has changed since the assistant read it; nothing was written.',
    )


def _unchanged(ctx: ToolContext, checked: Note | Folder) -> bool:
    """Whether ``checked`` is still the version read, where it was, and in the caller's scope now."""
    now: NoteMeta | Folder
    if isinstance(checked, Note):
        # Its times and place only: the body is not compared (a 1 MB note read whole again over
        # Joplin's API took 65-80 ms of a scoped update_note; its times alone take 27-47 ms).
        found = ctx.store.note_metas([checked.id])
        if not found or found[0].encrypted:
            return False
        now = found[0]
    else:
        try:
            now = ctx.store.get_folder(checked.id)
        except (NotFoundError, EncryptedError):
            return False
    if (now.updated_time, now.parent_id) != (checked.updated_time, checked.parent_id):
        return False
    # Its notebook may have moved out of the scope with it inside: the scope is read again too.
    return ctx.scope.view(ctx.store).allows_folder(now.id if isinstance(now, Folder) else now.parent_id)

"""``AttachmentFlows``: the reader's "open", "save attachment as…", "add attachment…" and "remove attachment".

Each flow is a short conversation run as one async worker on the reader: a dialog, then the
blocking part (``ui.attachment_files``, ``ops.attachments``) in a thread worker, then one line saying what happened.
A thread worker that fails is reported by the reader (``ReportsWorkerFailures``) as one message,
and the flow stops there. Adding and removing change the note, so both are refused while it is
being edited: the editor holds its own copy of the text, and a write under it would only turn
into a conflict when it saves.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from functools import partial
from typing import Any, TypeVar

from textual.widget import Widget
from textual.worker import WorkerCancelled, WorkerFailed

from noted.errors import Interruption
from noted.models import ACTOR_USER, Resource
from noted.ops.attachments import add_from_path, other_notes, remove_attachment, shown
from noted.store.protocol import Store
from noted.ui.attachment_files import default_destination, file_name, resolve_destination, save_resource
from noted.ui.data import NoteView, human_size
from noted.ui.dialogs.confirm import Confirm
from noted.ui.dialogs.prompt import TextPrompt
from noted.ui.opener import open_with_system
from noted.ui.workers import in_task, in_thread

T = TypeVar("T")

EDITING = "Stop editing first (Esc saves the note), then {what}."


class _Stop(Interruption):
    """A step failed (and said so) or the person cancelled: end the flow quietly."""


def _label(resource: Resource) -> str:
    return resource.title or resource.filename or resource.id


class AttachmentFlows:
    """The attachment flows of one reader.

    Args:
        host: The widget whose workers run the flows (the reader; it reports their failures).
        store: Where the attachments and the note are.
        current: The open note, or None.
        reading: False while the note is being edited (adding and removing are refused then).
        changed: Called after the note changed, to show it again.
    """

    def __init__(
        self,
        host: Widget,
        store: Store,
        *,
        current: Callable[[], NoteView | None],
        reading: Callable[[], bool],
        changed: Callable[[], None],
    ) -> None:
        self._host = host
        self._store = store
        self._current = current
        self._reading = reading
        self._changed = changed

    # Entry points (keys and the command palette) ---------------------------------------------------
    def save_as(self, resource_id: str | None = None) -> None:
        """Ask where, then write a copy of the attachment (the one chosen when ``resource_id`` is None)."""
        self._with_resource(
            resource_id, "Save", lambda r: self._start(self._save_as(r), f"saving {_label(r)}")
        )

    def remove(self, resource_id: str | None = None) -> None:
        """Confirm, then unlink the attachment from the open note and delete it unless others link it."""
        if not self._reading():
            self._host.notify(EDITING.format(what="remove the attachment"), severity="warning")
            return
        view = self._current()
        note_id = view.note.id if view is not None else ""
        self._with_resource(
            resource_id, "Remove", lambda r: self._start(self._remove(note_id, r), f"removing {_label(r)}")
        )

    def add(self) -> None:
        """Ask for a file's path, then attach it at the end of the open note."""
        view = self._current()
        if view is None:
            self._host.notify("Open a note first, then attach a file to it.", severity="warning")
        elif not self._reading():
            self._host.notify(EDITING.format(what="add the attachment"), severity="warning")
        else:
            self._start(self._add(view), "adding an attachment")

    def open(self, resource_id: str, name: str) -> None:
        """Open the attachment with the system's viewer for its kind of file."""
        store = self._store

        def run() -> None:
            open_with_system(str(store.resource_path(resource_id)))

        self._host.notify(f"Opening {name}…")
        in_thread(self._host, run, "opener", f"opening {name}")

    def _with_resource(self, resource_id: str | None, verb: str, then: Callable[[Resource], None]) -> None:
        view = self._current()
        resources = view.resources if view is not None else ()
        if resource_id is not None:
            resources = tuple(r for r in resources if r.id == resource_id)
        if not resources:
            self._host.notify("This note has no attachments.", severity="warning")
        elif len(resources) == 1:
            then(resources[0])
        else:  # several: let the person pick one in a palette of them
            self._host.app.search_commands(
                [
                    (f"{verb} attachment: {_label(r)}", partial(then, r), human_size(r.size))
                    for r in resources
                ],
                placeholder=f"{verb} which attachment?",
            )

    # The flows -----------------------------------------------------------------------------------
    def _start(self, flow: Coroutine[Any, Any, None], description: str) -> None:
        async def guarded() -> None:
            try:
                await flow
            except _Stop:
                pass

        in_task(self._host, guarded, "attachments", description)

    async def _thread(self, work: Callable[[], T], description: str) -> T:
        worker = in_thread(self._host, work, "attachment-io", description)
        try:
            return await worker.wait()
        except (WorkerFailed, WorkerCancelled):  # the host has reported the failure already
            raise _Stop from None

    async def _save_as(self, resource: Resource) -> None:
        name, label = file_name(resource), _label(resource)
        default = await self._thread(partial(default_destination, name), "finding a folder")
        answer = await self._host.app.push_screen_wait(
            TextPrompt(
                f'Save "{label}" as', value=default, path=True,
                hint="A folder saves the file inside it · ~ is your home · Tab completes · Enter to save · "
                "Esc to cancel",
            )
        )  # fmt: skip
        if not answer:
            return
        where = await self._thread(partial(resolve_destination, answer, name), f"saving {label}")
        if where.exists:
            question = (
                f'{shown(where.path)} already exists ({human_size(where.size)}). Replace it with "{label}" '
                f"({human_size(resource.size)})? The file there now is lost."
            )
            if not await self._host.app.push_screen_wait(Confirm(question, yes="Replace", no="Keep it")):
                return
        save = partial(save_resource, self._store, resource.id, where.path, overwrite=where.exists)
        size = await self._thread(save, f"saving {label}")
        self._host.notify(f'Saved "{label}" ({human_size(size)}) to {shown(where.path)}')

    async def _add(self, view: NoteView) -> None:
        answer = await self._host.app.push_screen_wait(
            TextPrompt(
                f'Attach a file to "{view.note.title or "(untitled)"}"', placeholder="~/path/to/file",
                path=True,
                hint="~ is your home · Tab completes · the file is kept with the note and linked at its end · "
                "Enter to attach · Esc to cancel",
            )
        )  # fmt: skip
        if not answer:
            return
        add = partial(add_from_path, self._store, view.note.id, answer, actor=ACTOR_USER)
        resource = await self._thread(add, "adding an attachment")
        self._host.notify(
            f'Attached "{_label(resource)}" ({human_size(resource.size)}) at the end of the note'
        )
        self._changed()

    async def _remove(self, note_id: str, resource: Resource) -> None:
        label = _label(resource)
        others = await self._thread(
            partial(other_notes, self._store, resource.id, note_id), f"removing {label}"
        )
        if others:
            notes = f"{others} other note{'' if others == 1 else 's'}"
            question = (
                f'"{label}" is also linked from {notes}, so it is kept. Remove its link from this note?'
            )
            yes = "Remove link"
        else:
            question = (
                f'Delete attachment "{label}" ({human_size(resource.size)})? Its link is removed from '
                f"this note; the file is kept as a version (noted history {resource.id} brings it back)."
            )
            yes = "Delete"
        if not await self._host.app.push_screen_wait(Confirm(question, yes=yes, no="Keep it")):
            return
        remove = partial(
            remove_attachment, self._store, note_id, resource.id, delete=not others, actor=ACTOR_USER
        )
        removal = await self._thread(remove, f"removing {label}")
        if removal.kept is not None:
            self._host.notify(
                f'Took "{label}" out of noted with its link; {removal.kept.line}. '
                f"noted history {resource.id} brings it back"
            )
        elif removal.deleted:
            self._host.notify(f'Deleted "{label}" and its link; noted history {resource.id} brings it back')
        else:
            kept = f"{removal.others} other note{'' if removal.others == 1 else 's'}"
            self._host.notify(f'Removed the link to "{label}"; the file stays for the {kept} that link it')
        self._changed()

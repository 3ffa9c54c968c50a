"""The notebook tree's writes: create, rename, move, trash and restore a notebook, rename or delete
a tag. Each asks what it needs (a name, a place, a yes), then runs its operation of
``noted.ops.notebooks`` in a worker of the tree, which redraws on ``Written`` (the change feed would
too, later).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual.message import Message
from textual.widget import Widget

from noted.models import ACTOR_USER, Folder
from noted.ops import notebooks as ops
from noted.store.protocol import Store
from noted.ui.data import SourceKind
from noted.ui.dialogs.confirm import Confirm
from noted.ui.dialogs.picker import TOP_LEVEL, NotebookPicker
from noted.ui.dialogs.prompt import TextPrompt
from noted.ui.widgets.tree_items import TreeItem
from noted.ui.workers import in_thread
from noted.wording import plural


@dataclass
class Written(Message, bubble=False):
    """A write is done: the tree reads the notebooks again, its cursor then on ``select`` if given."""

    select: str | None


class NotebookWrites:
    """The writes the tree's keys start, on the highlighted line's ``TreeItem``."""

    def __init__(self, tree: Widget, store: Store) -> None:
        self._tree = tree
        self._store = store

    def _write(
        self, description: str, job: Callable[[], object], *, select: Callable[[object], str] | None = None
    ) -> None:
        def run() -> None:
            result = job()
            self._tree.post_message(Written(select(result) if select is not None else None))

        in_thread(self._tree, run, "tree-write", description)

    def _named(self, asked: str, folder: Folder) -> Folder:
        """In the writer's thread: tell the person when the notebook got another name than asked."""
        if said := ops.named_otherwise(asked, folder):
            self._tree.app.call_from_thread(
                self._tree.notify, said[0].upper() + said[1:] + ".", severity="warning"
            )
        return folder

    def new_notebook(self, item: TreeItem | None) -> None:
        parent = item.folder.id if item and item.folder and not item.trashed else TOP_LEVEL
        where = f' inside "{item.folder.title}"' if item and item.folder and not item.trashed else ""

        def create(title: str | None) -> None:
            if title:
                self._write(
                    f"creating notebook {title!r}",
                    lambda: self._named(
                        title, ops.create_notebook(self._store, title, parent_id=parent, actor=ACTOR_USER)
                    ),
                    select=lambda folder: f"{SourceKind.FOLDER}:{folder.id}",  # type: ignore[attr-defined]
                )

        self._tree.app.push_screen(TextPrompt(f"New notebook{where}", placeholder="notebook name"), create)

    def rename(self, item: TreeItem | None) -> None:
        if item is None:
            return
        if item.folder is not None and not item.trashed:
            folder = item.folder

            def rename(title: str | None) -> None:
                if title and title != folder.title:
                    self._write(
                        f"renaming notebook {folder.title!r}",
                        lambda: self._named(
                            title,
                            ops.update_notebook(self._store, folder.id, title=title, actor=ACTOR_USER).folder,
                        ),
                    )

            self._tree.app.push_screen(TextPrompt("Rename notebook", value=folder.title), rename)
        elif item.tag is not None:
            tag = item.tag

            def rename_tag(title: str | None) -> None:
                if title and title != tag.title:
                    self._write(
                        f"renaming tag {tag.title!r}",
                        lambda: ops.rename_tag(self._store, tag.id, title, actor=ACTOR_USER),
                    )

            self._tree.app.push_screen(TextPrompt("Rename tag", value=tag.title), rename_tag)
        else:
            self._tree.notify("Only notebooks and tags can be renamed.", severity="warning")

    def move(self, item: TreeItem | None) -> None:
        if item is None or item.folder is None or item.trashed:
            self._tree.notify("Highlight a notebook to move it.", severity="warning")
            return
        folder = item.folder

        def move(parent: str | None) -> None:
            if parent is not None and parent != folder.parent_id:
                self._write(
                    f"moving notebook {folder.title!r}",
                    lambda: ops.update_notebook(self._store, folder.id, parent_id=parent, actor=ACTOR_USER),
                )

        picker = NotebookPicker(
            self._store, title=f'Move "{folder.title}" to…', exclude_branches={folder.id}, allow_top=True
        )
        self._tree.app.push_screen(picker, move)

    def trash(self, item: TreeItem | None, then: str | None = None) -> None:
        """Trash the notebook of ``item``, or delete its tag (asked first: no undo); the cursor then
        goes to the line whose key is ``then``."""
        after = (lambda _: then) if then is not None else None
        if item is not None and item.folder is not None and not item.trashed:
            folder = item.folder
            # Not asked first: it can be undone (README, "Confirmations"), and the message says how.
            self._write(
                f"moving notebook {folder.title!r} to the trash",
                lambda: self._trashed(ops.trash_notebook(self._store, folder.id, actor=ACTOR_USER)),
                select=after,
            )
        elif item is not None and item.tag is not None:
            tag = item.tag

            def delete(yes: bool | None) -> None:
                if yes:
                    self._write(
                        f"deleting tag {tag.title!r}",
                        lambda: ops.delete_tag(self._store, tag.id, actor=ACTOR_USER),
                        select=after,
                    )

            self._tree.app.push_screen(
                Confirm(
                    f'Delete the tag "#{tag.title}"? It comes off {plural(tag.note_count, "note")}; '
                    "the notes stay.",
                    yes="Delete tag",
                    no="Keep it",
                ),
                delete,
            )
        else:
            self._tree.notify("Highlight a notebook or a tag first.", severity="warning")

    def _trashed(self, change: ops.FolderChange) -> ops.FolderChange:
        """In the writer's thread: say what went to the trash with the notebook, and how to undo it."""
        if change.changed:
            self._tree.app.call_from_thread(self._tree.notify, trashed_message(change))
        return change

    def restore(self, item: TreeItem | None) -> None:
        if item is None or not item.trashed or item.folder is None:
            self._tree.notify("Highlight a notebook under Trash to restore it.", severity="warning")
            return
        folder = item.folder
        self._write(
            f"restoring notebook {folder.title!r}",
            lambda: self._restored(ops.restore_notebook(self._store, folder.id, actor=ACTOR_USER)),
            select=lambda _: f"{SourceKind.FOLDER}:{folder.id}",
        )

    def _restored(self, change: ops.FolderChange) -> ops.FolderChange:
        """In the writer's thread: say what came back with the notebook, as trashing said what went."""
        if change.changed:
            self._tree.app.call_from_thread(
                self._tree.notify, f"Restored the notebook {_with_contents(change)}."
            )
        return change


def trashed_message(change: ops.FolderChange) -> str:
    """``Moved "src" and its 49 notes to the trash (u on it under Trash restores it).``"""
    return f"Moved {_with_contents(change)} to the trash (u on it under Trash restores it)."


def _with_contents(change: ops.FolderChange) -> str:
    """``"src" and its 49 notes``, ``"Work" with 1 notebook inside and 2 notes``: what went to the
    trash or came back with the notebook."""
    inside = change.notebooks - 1
    what = f'"{change.folder.title}"'
    if inside:
        what += f" with {plural(inside, 'notebook')} inside" + (
            f" and {plural(change.notes, 'note')}" if change.notes else ""
        )
    elif change.notes:
        what += f" and its {plural(change.notes, 'note')}"
    return what

"""The notebook tree's lines: what each stands for (``TreeItem``) and how they are built.

Functions of the loaded ``TreeData`` and the keys of the branches left open; ``NotebookTree``
keeps the cursor, the loads and the writes, and calls these to draw.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.widgets.tree import TreeNode

from noted.models import Folder, Tag
from noted.ops.folder_tree import FolderNode
from noted.ui.data import NoteSource, SourceKind, TreeData
from noted.wording import one_line

TAGS_KEY = "heading:tags"
"""The key of the Tags heading (it lists no notes itself)."""


@dataclass(frozen=True, slots=True)
class TreeItem:
    """What a line of the tree stands for."""

    key: str
    source: NoteSource | None = None
    folder: Folder | None = None
    tag: Tag | None = None
    trashed: bool = False


def label(title: str, count: int | None) -> Text:
    """A line's text: the name, then its note count dimmed (none for a trashed notebook)."""
    text = Text(one_line(title), overflow="ellipsis", no_wrap=True)  # a Joplin title may break
    if count is not None:
        text.append(f" {count:,}", style="dim")
    return text


def titles(data: TreeData) -> dict[str, str]:
    """The name of every notebook and tag, by id (to notice a rename between two loads)."""
    found = {f"#{tag.id}": tag.title for tag in data.tags}
    stack = list(data.roots)
    while stack:
        node = stack.pop()
        found[node.folder.id] = node.folder.title
        stack.extend(node.children)
    return found


def add_folder(parent: TreeNode[TreeItem], node: FolderNode, expanded: set[str]) -> None:
    """Add a notebook and, below it, its notebooks (a branch open if its key is in ``expanded``)."""
    source = NoteSource(SourceKind.FOLDER, node.folder.id, node.folder.title)
    item = TreeItem(source.key, source, folder=node.folder)
    text = label(node.folder.title, node.total)
    if not node.children:
        parent.add_leaf(text, item)
        return
    branch = parent.add(text, item, expand=source.key in expanded)
    for child in node.children:
        add_folder(branch, child, expanded)


def add_tags(heading: TreeNode[TreeItem], data: TreeData) -> None:
    """Put a line for each tag under the Tags heading."""
    for tag in data.tags:
        source = NoteSource(SourceKind.TAG, tag.id, f"#{tag.title}")
        heading.add_leaf(label(f"#{tag.title}", tag.note_count), TreeItem(source.key, source, tag=tag))


def add_lists(root: TreeNode[TreeItem], data: TreeData, expanded: set[str]) -> None:
    """The lines after the tags: To-dos, Conflicts (only when there are some), and the Trash with
    its trashed notebooks."""
    todos = NoteSource(SourceKind.TODOS, title="To-dos")
    root.add_leaf(label("To-dos", data.todo_count), TreeItem(todos.key, todos))
    if data.conflict_count:  # as Joplin shows its "Conflicts" folder: only when there are some
        conflicts = NoteSource(SourceKind.CONFLICTS, title="Conflicts")
        root.add_leaf(label("Conflicts", data.conflict_count), TreeItem(conflicts.key, conflicts))
    trash = NoteSource(SourceKind.TRASH, title="Trash")
    trash_node = root.add(
        label("Trash", data.trashed_note_count),
        TreeItem(trash.key, trash),
        expand=trash.key in expanded,
    )
    for folder in data.trashed_folders:
        trash_node.add_leaf(
            label(folder.title, None), TreeItem(f"trashed:{folder.id}", folder=folder, trashed=True)
        )


def find(node: TreeNode[TreeItem], key: str) -> TreeNode[TreeItem] | None:
    """The line below ``node`` whose item has ``key``, at any depth."""
    for child in node.children:
        if child.data is not None and child.data.key == key:
            return child
        found = find(child, key)
        if found is not None:
            return found
    return None


def after_removal(node: TreeNode[TreeItem]) -> str | None:
    """The key of the line the cursor takes when ``node``'s line goes (a notebook trashed, a tag
    deleted), so triage keeps its place: the next line of its kind beside it (a notebook's next
    notebook, a tag's next tag), else the nearest one before it that lists notes (the previous
    notebook or tag; All notes before the first notebook), else the notebook it is in, else the line
    after its heading (To-dos after the last tag). None when there is no such line."""
    parent = node.parent
    if parent is None or node.data is None or node.data.source is None:
        return None
    kind = node.data.source.kind
    siblings = list(parent.children)
    here = siblings.index(node)
    after = (n for n in siblings[here + 1 :] if n.data and n.data.source and n.data.source.kind is kind)
    before = (n for n in reversed(siblings[:here]) if n.data and n.data.source)
    found = next(after, None) or next(before, None)
    if found is None and parent.data is not None:
        found = parent if parent.data.source is not None else _line_after(parent)
    return found.data.key if found is not None and found.data is not None else None


def _line_after(node: TreeNode[TreeItem]) -> TreeNode[TreeItem] | None:
    """The first line after ``node`` beside it that lists notes."""
    if node.parent is None:
        return None
    siblings = list(node.parent.children)
    later = siblings[siblings.index(node) + 1 :]
    return next((n for n in later if n.data is not None and n.data.source is not None), None)

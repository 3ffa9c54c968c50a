"""The notebooks as a tree, with their note counts, for the app's notebook tree and ``noted notebooks``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from noted.models import Folder


@dataclass(frozen=True, slots=True)
class FolderNode:
    """A notebook with its total note count (its own notes plus those of its sub-notebooks)."""

    folder: Folder
    own: int
    total: int
    children: tuple[FolderNode, ...]


def folder_nodes(folders: Sequence[Folder], counts: dict[str, int]) -> tuple[FolderNode, ...]:
    """The notebooks as a tree, in the order given under each parent (the app's notebook tree and
    ``noted notebooks`` show it), each notebook once.

    Joplin accepts a notebook moved under its own sub-notebook: that loop hangs from no top-level
    notebook, so its first notebook by title is shown at the top, the others below it, until
    ``noted notebook move X --top`` mends it (``noted.ops.resolve.folder_paths`` agrees).
    """
    by_id = {f.id: f for f in folders}
    by_parent: dict[str, list[Folder]] = {}
    for folder in folders:
        parent = folder.parent_id if folder.parent_id in by_id else ""
        by_parent.setdefault(parent, []).append(folder)
    placed: set[str] = set()

    def node(folder: Folder) -> FolderNode:
        placed.add(folder.id)
        children = tuple(node(c) for c in by_parent.get(folder.id, []) if c.id not in placed)
        own = counts.get(folder.id, 0)
        return FolderNode(folder, own, own + sum(c.total for c in children), children)

    roots = [node(f) for f in by_parent.get("", [])]
    for folder in folders:
        if folder.id in placed:
            continue
        walked: list[str] = []  # its parents up to the first met twice: the loop it hangs from
        current = folder.id
        while current not in walked:
            walked.append(current)
            current = by_id[current].parent_id
        loop = walked[walked.index(current) :]
        roots.append(node(by_id[min(loop, key=lambda i: (by_id[i].title.casefold(), i))]))
    return tuple(roots)

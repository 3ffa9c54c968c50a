"""The notebook tree (``noted.ops.folder_tree.folder_nodes``) and its paths (``noted.ops.resolve.folder_paths``)
over notebooks whose parents loop, as Joplin lets them (a notebook moved under its sub-notebook)."""

from __future__ import annotations

from noted.models import Folder
from noted.ops.folder_tree import FolderNode, folder_nodes
from noted.ops.resolve import folder_paths


def _folder(title: str, parent: str = "") -> Folder:
    return Folder(title.lower(), title, parent.lower(), 0, 0)


def _shown(nodes: tuple[FolderNode, ...], depth: int = 0) -> list[str]:
    out: list[str] = []
    for node in nodes:
        out.append(f"{'  ' * depth}{node.folder.title} {node.total}")
        out += _shown(node.children, depth + 1)
    return out


def test_notebooks_in_a_loop_show_once_each_from_the_first_by_title() -> None:
    """The loop B → C → D → B hung from no top-level notebook and vanished, E below it too."""
    folders = [
        _folder("Top"),
        _folder("C", "B"),
        _folder("D", "C"),
        _folder("B", "D"),
        _folder("E", "C"),
        _folder("Y", "Z"),  # a second loop, of two
        _folder("Z", "Y"),
    ]
    counts = {"top": 1, "e": 2, "d": 3, "y": 4}
    assert _shown(folder_nodes(folders, counts)) == [
        "Top 1",
        "B 5",
        "  C 5",
        "    D 3",
        "    E 2",
        "Y 4",
        "  Z 0",
    ]
    # The order given does not choose where a loop starts; the paths agree with the tree.
    assert _shown(folder_nodes(folders[::-1], counts))[1] == "Y 4"
    paths = folder_paths(folders[::-1])
    assert (paths["b"], paths["e"], paths["z"]) == ("B", "B/C/E", "Y/Z")

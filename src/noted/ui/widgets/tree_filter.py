"""Filtering the notebook tree in place (``/``, as the note list filters): the notebooks whose titles
hold every word typed, with the notebooks they are in, opened so that the path shows.

The notebooks are in memory (the tree's ``TreeData``), so each key prunes them afresh, with no I/O.
The fixed lines (All notes, Tags, To-dos, Conflicts, Trash) stay as they are: they are not
notebooks, and each is a place the person may want to go from the filter.
``TreeFilter`` holds the state and decides; ``NotebookTree`` draws what ``narrow`` hands back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from noted.ops.folder_tree import FolderNode
from noted.ui.data import NoteSource, SourceKind
from noted.ui.widgets.list_filter import fitting, title_words


@dataclass(frozen=True, slots=True)
class Narrowed:
    """The notebooks a filter leaves, and what the tree needs to show them."""

    roots: tuple[FolderNode, ...]
    opened: frozenset[str]
    """The keys of the notebooks kept for a match below them: opened, so the match shows."""
    matches: tuple[str, ...]
    """The keys of the notebooks that match, in the tree's order."""
    total: int
    """How many notebooks there are (the title says ``3 of 12``)."""


def folder_key(node: FolderNode) -> str:
    return NoteSource(SourceKind.FOLDER, node.folder.id).key


def narrow(roots: Sequence[FolderNode], text: str) -> Narrowed:
    """The notebooks whose titles hold every word of ``text`` (case does not count), with their
    ancestors; a matching notebook's notebooks that do not match are left out."""
    words = title_words(text)
    opened: set[str] = set()
    matches: list[str] = []
    total = 0

    def keep(node: FolderNode) -> FolderNode | None:
        nonlocal total
        total += 1
        title = node.folder.title.casefold()
        hit = all(word in title for word in words)
        if hit:
            matches.append(folder_key(node))
        children = tuple(kept for child in node.children if (kept := keep(child)) is not None)
        if children:
            opened.add(folder_key(node))
        return replace(node, children=children) if hit or children else None

    kept = tuple(shown for node in roots if (shown := keep(node)) is not None)
    return Narrowed(kept, frozenset(opened), tuple(matches), total)


class TreeFilter:
    """The tree's filter: its text, and the line the cursor was on when ``/`` was pressed."""

    def __init__(self) -> None:
        self.text = ""
        self.before: str | None = None
        """The cursor's line when ``/`` was pressed; set while a filter is open or kept (``active``)."""
        self.kept = False
        """``Enter`` kept the filter: clearing it then leaves the cursor on the line it is on."""
        self.shown: Narrowed | None = None
        """What the filter left, as last drawn (None while it has no words)."""

    @property
    def active(self) -> bool:
        return self.before is not None

    @property
    def narrowing(self) -> bool:
        """A filter is active and has words: the tree shows only the matches and their ancestors."""
        return self.before is not None and bool(title_words(self.text))

    def begin(self, cursor: str) -> None:
        """``/`` was pressed (again, if a filter is kept: the first cursor stays the one to go back to)."""
        if self.before is None:
            self.before, self.text, self.kept = cursor, "", False

    def apply(self, roots: Sequence[FolderNode]) -> Narrowed | None:
        """What the tree shows of ``roots`` now (None: every notebook, as without a filter)."""
        self.shown = narrow(roots, self.text) if self.narrowing else None
        return self.shown

    def cursor(self, current: str | None) -> str | None:
        """Where the cursor goes as the text changes: it stays on a notebook that matches, or else
        goes to the first match (so that ``Enter`` then leads there)."""
        if self.shown is None or current in self.shown.matches:
            return current
        return self.shown.matches[0] if self.shown.matches else current

    def title(self, name: str, room: int) -> str:
        """The tree's title, ``name`` (``Notebooks``), then while filtering ``3 of 12 · filter: proj``:
        in ``room`` cells (none: no limit) the count goes first, then the name, so the words typed
        stay in sight."""
        if self.shown is None:
            return name
        words = f"filter: {self.text.strip()}"
        count = f"{len(self.shown.matches):,} of {self.shown.total:,}"
        return fitting((f"{name} · {count} · {words}", f"{name} · {words}", words), room)

    def end(self, current: str | None) -> str | None:
        """Clear the filter; the line for the cursor: the one it was on before (or, once the filter
        was kept, ``current``)."""
        line = current if self.kept and current is not None else self.before
        self.text, self.before, self.kept, self.shown = "", None, False, None
        return line

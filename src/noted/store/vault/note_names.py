"""Which note of the folder a link by path or by wiki name leads to, as Obsidian reads it.

A Markdown link (``[x](../b/other.md)``) names a file from the linking note's folder, else from the
folder's root; a wiki link (``[[other]]``, ``[[b/other]]``) too, and else names the note whose file
has that name anywhere, the shortest path when names repeat. Notes in ``.trash/`` are none.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from noted.markdown import NOTE_SUFFIXES
from noted.store.vault.trash import in_trash

if TYPE_CHECKING:
    from noted.store.vault.base import VaultCore


class NoteNames:
    """The folder's notes by path and by file name, read again when the change feed moved."""

    def __init__(self, store: VaultCore) -> None:
        self.store = store
        self._known: tuple[int, dict[str, str], dict[str, list[str]]] | None = None

    def find(self, note_rel: str, target: str, *, wiki: bool) -> str | None:
        """The id of the note a link ``target`` of the note ``note_rel`` leads to, or None."""
        by_path, by_name = self._notes()
        name = target if posixpath.splitext(target)[1].lower() in NOTE_SUFFIXES else f"{target}.md"
        folder = note_rel.rpartition("/")[0]
        for rel in (posixpath.join(folder, name), name.lstrip("/")):
            if (found := by_path.get(posixpath.normpath(rel).casefold())) is not None:
                return found
        if not wiki:
            return None
        ending = "/" + name.casefold()
        named = [p for p in by_name.get(posixpath.basename(name).casefold(), []) if f"/{p}".endswith(ending)]
        return by_path[min(named, key=lambda p: (p.count("/"), p))] if named else None

    def at(self, rel: str) -> str | None:
        """The id of the note whose file is ``rel`` (any case), or None."""
        return self._notes()[0].get(posixpath.normpath(rel).casefold())

    def _notes(self) -> tuple[dict[str, str], dict[str, list[str]]]:
        cursor = self.store.mirror.latest_cursor()
        if self._known is None or self._known[0] != cursor:
            by_path: dict[str, str] = {}
            by_name: dict[str, list[str]] = {}
            for row in self.store.ledger.all_notes():
                if row.present and not in_trash(row.path):
                    by_path[row.path.casefold()] = row.note_id
                    by_name.setdefault(posixpath.basename(row.path).casefold(), []).append(
                        row.path.casefold()
                    )
            self._known = (cursor, by_path, by_name)
        return self._known[1], self._known[2]

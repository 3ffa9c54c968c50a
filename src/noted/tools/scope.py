"""Which notebooks a caller may see: ``mcp.allowedNotebooks`` or a per-token scope.

A ``Scope`` names notebooks by id or exact title; each names that notebook and every notebook
below it, at any depth. It is resolved against the store at each tool call (``Scope.view``), so a
notebook created, moved or renamed since the scope was made is seen as it is now, and a
sub-notebook the assistant creates under an allowed notebook is in scope at once.

A scope that names notebooks none of which exist shows nothing: it fails closed, never open.
A scope can be narrowed by further lists (``Scope.narrowed``: a named client's own notebooks,
inside ``mcp.allowedNotebooks``); it then shows only what every list allows.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from noted.models import Folder, Note, NoteMeta
from noted.settings import Settings
from noted.settings.handles import MCP_ALLOWED_NOTEBOOKS
from noted.store.protocol import Store


@dataclass(frozen=True, slots=True)
class ScopeView:
    """A scope resolved against the notebooks as they are now. ``folder_ids`` None: everything."""

    folder_ids: frozenset[str] | None = None

    @property
    def unrestricted(self) -> bool:
        return self.folder_ids is None

    def allows_folder(self, folder_id: str) -> bool:
        return self.folder_ids is None or folder_id in self.folder_ids

    def allows_note(self, note: Note | NoteMeta) -> bool:
        return self.allows_folder(note.parent_id)

    def visible_folders(self, folders: Iterable[Folder]) -> list[Folder]:
        return [f for f in folders if self.allows_folder(f.id)]

    def parent_of(self, folder: Folder) -> str:
        """The folder's parent id as the caller may see it: ``""`` when the parent is out of scope."""
        return folder.parent_id if folder.parent_id and self.allows_folder(folder.parent_id) else ""


@dataclass(frozen=True, slots=True)
class Scope:
    """The notebooks a caller may see, by id or exact title; ``notebooks`` None means all of them."""

    notebooks: tuple[str, ...] | None = None
    within: tuple[tuple[str, ...], ...] = ()
    """Further lists, each of which narrows the scope (see ``narrowed``)."""

    @classmethod
    def of(cls, notebooks: Iterable[str]) -> Scope:
        """A scope of these notebook ids or titles (blank entries ignored); empty means everything."""
        return cls(_entries(notebooks))

    def narrowed(self, notebooks: Iterable[str]) -> Scope:
        """This scope, further limited to ``notebooks`` (no entries: unchanged)."""
        entries = _entries(notebooks)
        if entries is None:
            return self
        if self.notebooks is None:
            return Scope(entries, self.within)
        return Scope(self.notebooks, (*self.within, entries))

    @property
    def unrestricted(self) -> bool:
        return self.notebooks is None and not self.within

    def resolve(self, folders: Iterable[Folder]) -> ScopeView:
        """The ids of the named notebooks and of every notebook below them, among ``folders``
        (with ``within``, only those every list reaches)."""
        every = list(folders)
        if self.notebooks is None:
            return ScopeView(None)
        views = [_subtrees(names, every) for names in (self.notebooks, *self.within)]
        return ScopeView(frozenset.intersection(*views))

    def view(self, store: Store) -> ScopeView:
        """Resolve against the store's notebooks now (trashed ones included, so their notes can
        be restored)."""
        if self.unrestricted:
            return ScopeView(None)
        return self.resolve(store.list_folders(include_trashed=True))

    def unknown(self, store: Store) -> tuple[str, ...]:
        """Entries that name no notebook now: likely typos worth a warning at start-up."""
        if self.unrestricted:
            return ()
        folders = store.list_folders(include_trashed=True)
        known = {f.id for f in folders} | {f.title.strip() for f in folders}
        named = [*(self.notebooks or ()), *(n for names in self.within for n in names)]
        return tuple(dict.fromkeys(n for n in named if n not in known))


def _entries(notebooks: Iterable[str]) -> tuple[str, ...] | None:
    entries = tuple(dict.fromkeys(n.strip() for n in notebooks if n.strip()))
    return entries or None


def _subtrees(names: tuple[str, ...], every: list[Folder]) -> frozenset[str]:
    """The named notebooks (by id or exact title) and every notebook below them."""
    wanted = set(names)
    roots = [f.id for f in every if f.id in wanted or f.title.strip() in wanted]
    children: dict[str, list[str]] = {}
    for folder in every:
        children.setdefault(folder.parent_id, []).append(folder.id)
    seen: set[str] = set()
    stack = roots
    while stack:
        folder_id = stack.pop()
        if folder_id not in seen:
            seen.add(folder_id)
            stack.extend(children.get(folder_id, ()))
    return frozenset(seen)


def scope_from_settings(settings: Settings) -> Scope:
    """The scope ``mcp.allowedNotebooks`` sets for outside AI apps (everything when empty)."""
    return Scope.of(settings.get(MCP_ALLOWED_NOTEBOOKS))

"""Which notebooks a caller may see: ``mcp.allowedNotebooks`` and a client token's own notebooks.

A ``Scope`` is a set of notebooks fixed by id, each with every notebook below it at any depth. The
names a person types (titles, ``Parent/Child`` paths, id prefixes) are turned into ids once, when
the scope is set (``noted.mcp.scopes``); here an entry is an id and nothing else, so a notebook
that gets the same title elsewhere never joins, while a sub-notebook made later inside a scoped
one does: the ids are resolved against the store at each tool call (``Scope.view``).

A scope is the intersection of its ``Limit`` s (``mcp.allowedNotebooks``, then a client token's
list). Each limit says where it comes from, so a refusal can name the one that applies. A limit
naming no notebook that exists shows nothing: a scope fails closed, never open.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from noted.models import Folder, Note, NoteMeta, descendants
from noted.settings.handles import MCP_ALLOWED_NOTEBOOKS
from noted.store.protocol import HasFolderNames, Store

SETTING_SOURCE = MCP_ALLOWED_NOTEBOOKS.key
"""The source of the limit ``mcp.allowedNotebooks`` sets."""


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

    def is_root(self, folder: Folder) -> bool:
        """Whether ``folder`` is a top of a restricted scope: visible, its parent not (or none)."""
        return self.folder_ids is not None and folder.id in self.folder_ids and not self.parent_of(folder)


@dataclass(frozen=True, slots=True)
class Limit:
    """Notebooks (by id, each with everything below it) that one list allows, and whose list it is."""

    notebooks: frozenset[str]
    source: str
    """Who set it, as a refusal names it: ``mcp.allowedNotebooks`` or ``the client token "claude"``."""


@dataclass(frozen=True, slots=True)
class Scope:
    """The notebooks a caller may see: what every limit allows; no limits means everything."""

    limits: tuple[Limit, ...] = ()

    @classmethod
    def of(cls, notebook_ids: Iterable[str], source: str = SETTING_SOURCE) -> Scope:
        """A scope of these notebook ids; no entry at all means everything. Blank entries name no
        notebook, so a list of nothing but blanks shares nothing: a limit never fails open."""
        entries = tuple(notebook_ids)
        return cls((Limit(_ids(entries), source),)) if entries else cls()

    def narrowed(self, notebook_ids: Iterable[str] | None, source: str) -> Scope:
        """This scope, further limited to ``notebook_ids``; None leaves it as it is, and an empty
        list (which nothing the CLI writes holds) leaves nothing visible."""
        if notebook_ids is None:
            return self
        return Scope((*self.limits, Limit(_ids(notebook_ids), source)))

    @property
    def unrestricted(self) -> bool:
        return not self.limits

    def resolve(self, folders: Iterable[Folder]) -> ScopeView:
        """The named notebooks and every notebook below them, among ``folders``, that every limit
        reaches."""
        if not self.limits:
            return ScopeView(None)
        every = list(folders)
        return ScopeView(
            frozenset.intersection(*(_subtrees(limit.notebooks, every) for limit in self.limits))
        )

    def view(self, store: Store) -> ScopeView:
        """Resolve against the store's notebooks now (trashed ones included, so their notes can
        be restored)."""
        if self.unrestricted:
            return ScopeView(None)
        return self.resolve(store.list_folders(include_trashed=True))

    def excluding(self, folders: Iterable[Folder], folder_id: str) -> str | None:
        """The source of the first limit that does not reach ``folder_id`` among ``folders``."""
        every = list(folders)
        return next(
            (lm.source for lm in self.limits if folder_id not in _subtrees(lm.notebooks, every)), None
        )

    def named(self) -> frozenset[str]:
        """Every notebook id a limit names (to tell which no longer exist)."""
        return frozenset(i for limit in self.limits for i in limit.notebooks)


BESIDE_HIDDEN = (
    "in a Markdown folder a notebook's name is its folder's, which must differ from every name beside "
    "it, and those are not all yours to see; nothing was changed. Only the person can do that, in noted."
)
"""Why ``names_beside_hidden`` refuses: the same words whatever the name, taken or free."""
BESIDE_HIDDEN_SAID = (
    "in a Markdown folder a notebook's name is its folder's, which must differ from every name beside "
    "it, and not all of those are the assistant's to see; nothing was changed"
)
"""``BESIDE_HIDDEN`` as the person is told it."""


def names_beside_hidden(store: Store, scope: ScopeView, parent_id: str) -> bool:
    """Whether the folder of a notebook inside ``parent_id`` sits among names the caller may not
    see, on a store whose notebooks are folders (``HasFolderNames``): a name taken there is
    changed (``Name 2``), so the name a notebook gets would tell what is there. That is so above a
    top of the scope, and at the top of the folder, unless the scope is everything."""
    if scope.unrestricted or not isinstance(store, HasFolderNames):
        return False
    beside = store.folder_parent(parent_id)
    return not beside or not scope.allows_folder(beside)


TRASHED_ABOVE = (
    "is in the trash inside one outside the notebooks you can see; the person can restore it in noted"
)
"""Why a restore ``trashed_above`` finds is refused (after "this note's notebook " or "this notebook ")."""
TRASHED_ABOVE_SAID = (
    "is in the trash inside one outside the notebooks the assistant can see; it can be restored in noted"
)
"""``TRASHED_ABOVE`` as the person is told it."""


def trashed_above(scope: ScopeView, folders: Iterable[Folder], folder_id: str) -> bool:
    """Whether bringing ``folder_id`` (or a note in it) back from the trash would bring back a
    notebook outside ``scope`` too: the store restores every notebook in the trash on the way up."""
    if scope.unrestricted:
        return False
    parents = {f.id: f for f in folders}
    seen: set[str] = set()
    while (folder := parents.get(folder_id)) is not None and folder_id not in seen:
        if folder.is_trashed and not scope.allows_folder(folder_id):
            return True
        seen.add(folder_id)
        folder_id = folder.parent_id
    return False


def _ids(entries: Iterable[str]) -> frozenset[str]:
    return frozenset(e.strip() for e in entries if e.strip())


def _subtrees(roots: frozenset[str], folders: list[Folder]) -> frozenset[str]:
    """The ``roots`` that exist and every notebook below them."""
    known = roots & {f.id for f in folders}
    return frozenset(i for root in known for i in descendants(folders, root))

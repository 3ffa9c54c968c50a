"""Scopes fixed by id: the notebook names a person gives, turned into ids once.

``noted mcp token add --notebooks`` resolves its names on the spot. ``mcp.allowedNotebooks`` takes
titles, ``Parent/Child`` paths or id prefixes too, and so may a clients file written by an older
noted: ``Settled`` resolves such names when a server starts (and again when the setting changes
while it serves), writes the ids back in place of the names (to the config file when the value
comes from it, to ``mcp-clients.json``), and keeps what it resolved, so each name is resolved once.
A name that matches several notebooks, or none, refuses the start with a message that lists the
matches by path and says how to fix it. An entry that is already an id (32 hex digits) is kept as
it is; one whose notebook is gone shows nothing (a scope fails closed).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Sequence

from noted.errors import ConfigError, InvalidInputError, NotedError, NotFoundError
from noted.mcp.client_tokens import ClientToken, ClientTokens
from noted.models import is_full_id
from noted.ops.resolve import folder_paths, resolve_folders
from noted.settings import Settings, Source
from noted.settings.handles import MCP_ALLOWED_NOTEBOOKS
from noted.store.protocol import Store
from noted.tools.scope import Scope

log = logging.getLogger(__name__)


def is_id(entry: str) -> bool:
    """Whether a scope entry is a notebook id (and so is never resolved again)."""
    return is_full_id(entry.strip())


def notebook_ids(store: Store, names: Sequence[str]) -> tuple[str, ...]:
    """The ids of the notebooks ``names`` give (titles, paths, ids or id prefixes), in order.

    Raises:
        NotFoundError: a name matches no notebook.
        InvalidInputError: a name matches several; the message lists them by path.
    """
    return tuple(dict.fromkeys(f.id for f in resolve_folders(store, names)))


def describe(store: Store, ids: Iterable[str]) -> list[str]:
    """The notebooks ``ids`` name, as paths (``Secret/Work``), for a person to read."""
    paths = folder_paths(store.list_folders(include_trashed=True))
    return [paths.get(i, f"{i} (no such notebook now)") for i in ids]


class Settled:
    """The names of ``mcp.allowedNotebooks`` resolved to ids, once, for one server.

    ``scope()`` is read at each tool call; ``settle()`` runs at start and after the setting changed.
    """

    def __init__(self, settings: Settings, store: Store) -> None:
        self.settings = settings
        self.store = store
        self._resolved: dict[str, str] = {}
        self._tried: tuple[str, ...] = ()  # the value settle last resolved, or failed to
        self._lock = threading.Lock()

    def scope(self) -> Scope:
        """The scope of ``mcp.allowedNotebooks`` now: ids as they are, names as resolved; a name
        not resolved (set since the last ``settle``, or refused by it) matches nothing."""
        entries = self.settings.get(MCP_ALLOWED_NOTEBOOKS)
        with self._lock:
            return Scope.of(e if is_id(e) else self._resolved.get(e.strip(), e) for e in entries)

    def pending(self) -> bool:
        """Whether ``mcp.allowedNotebooks`` names a notebook that ``settle`` has not tried yet (set
        since it last ran): a call should wait for it rather than see nothing."""
        entries = tuple(self.settings.get(MCP_ALLOWED_NOTEBOOKS))
        with self._lock:
            unresolved = [
                e for e in entries if e.strip() and not is_id(e) and e.strip() not in self._resolved
            ]
            return bool(unresolved) and entries != self._tried

    def settle(self) -> None:
        """Resolve the names in ``mcp.allowedNotebooks`` and write their ids in their place.

        Raises:
            ConfigError: a name matches several notebooks or none; the message says how to fix it.
        """
        resolved = self.settings.resolve(MCP_ALLOWED_NOTEBOOKS)
        entries = tuple(str(e) for e in resolved.value) if isinstance(resolved.value, tuple) else ()
        with self._lock:
            self._tried = entries
        names = [e.strip() for e in entries if e.strip() and not is_id(e)]
        if not names:
            return
        hint = (
            f"set it to paths or ids, e.g. `noted config set {MCP_ALLOWED_NOTEBOOKS.key} "
            "'Secret/Work, Projects'` (`noted notebooks` lists them)"
        )
        ids = _resolve(self.store, names, MCP_ALLOWED_NOTEBOOKS.key, hint)
        with self._lock:
            self._resolved = ids
        if resolved.source is Source.FILE:
            settled = tuple(dict.fromkeys(e if is_id(e) else ids[e.strip()] for e in entries if e.strip()))
            self.settings.set(MCP_ALLOWED_NOTEBOOKS, settled)
        log.info("%s: resolved %s to notebook ids", MCP_ALLOWED_NOTEBOOKS.key, ", ".join(names))

    def settle_quietly(self) -> None:
        """``settle`` while serving: a name it cannot resolve is logged and matches nothing."""
        try:
            self.settle()
        except NotedError as exc:
            log.error("%s", exc)


def settle_clients(clients: ClientTokens, store: Store) -> None:
    """Resolve the notebook names of a clients file written by an older noted, and write the ids.

    Raises:
        ConfigError: the file cannot be used, or a name matches several notebooks or none.
    """
    if not any(_named(e) for e in clients.entries()):
        return
    clients.replace(lambda entries: tuple(_settled_client(e, store) for e in entries))
    log.info("resolved the notebook names of the client tokens in %s to ids", clients.path)


def _named(entry: ClientToken) -> bool:
    """Whether the client's notebooks hold a name still to be resolved to an id."""
    return entry.notebooks is not None and not all(is_id(n) for n in entry.notebooks)


def _settled_client(entry: ClientToken, store: Store) -> ClientToken:
    if entry.notebooks is None or not _named(entry):
        return entry
    hint = (
        f"revoke it (`noted mcp token revoke {entry.name}`) and add it again with notebook paths or "
        "ids (`noted notebooks` lists them)"
    )
    names = [n for n in entry.notebooks if not is_id(n)]
    ids = _resolve(store, names, f'the client token "{entry.name}"', hint)
    return entry.with_notebooks(tuple(dict.fromkeys(n if is_id(n) else ids[n] for n in entry.notebooks)))


def _resolve(store: Store, names: Sequence[str], what: str, hint: str) -> dict[str, str]:
    """Each name's notebook id, or a ConfigError saying which name of ``what`` is the problem."""
    ids: dict[str, str] = {}
    for name in names:
        try:
            ids[name] = resolve_folders(store, [name])[0].id
        except NotFoundError:
            raise ConfigError(
                f'{what} names "{name}", and no notebook has that title, path or id', hint=hint
            ) from None
        except InvalidInputError as exc:
            raise ConfigError(f"{what}: {exc.message}", hint=hint) from None
    return ids

"""Which notebook each folder is after changes made outside noted: a notebook follows its files.

A new folder holding mostly the files of a folder that went (renamed or moved) is that notebook,
keeping its id; folders that swapped names (``mv a t; mv b a; mv t b``) each keep theirs
(``folders_swapped``), so a client limited to a notebook keeps seeing the same notes. The rule is
``noted.store.vault.renames.pair_sets``'. A folder that went with no notes left is trashed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

from noted.errors import NotFoundError
from noted.store.vault.renames import MARGIN, pair_sets, share
from noted.store.vault.swaps import closed, set_aside
from noted.store.vault.trash import in_trash

if TYPE_CHECKING:
    from noted.store.vault.base import VaultCore


def follow_folders(
    store: VaultCore, paths: Iterable[str], actor: str, whole: Iterable[str] = (), seen: Iterable[str] = ()
) -> set[str]:
    """The notebooks of these folders, made when new; a new folder holding mostly the files of
    a folder that went (renamed or moved outside noted) is that notebook, keeping its id, and
    so are folders that swapped names (``folders_swapped``: of the folders ``whole``, whose files
    ``seen`` lists in full). Returns the notebooks another took the folder of (``swap_folders``)."""
    paths = list(paths)
    left = swap_folders(store, folders_swapped(store, whole, seen), actor)
    fresh = sorted({p for p in paths if store.ledger.folder_at(p) is None}, key=lambda p: p.count("/"))
    vanished = {}
    if fresh:
        vanished = {
            path: folder_id
            for path, folder_id in store.ledger.all_folders().items()
            if path and not in_trash(path) and not (store.vault.root / path).is_dir()
        }
    if vanished:
        had = {p: {r.path[len(p) + 1 :] for r in store.ledger.notes_under(p)} for p in vanished}
        has = {p: {n[len(p) + 1 :] for _, notes in store.vault.walk(p) for n in notes} for p in fresh}
        moves = pair_sets(has, had)
        for new in fresh:  # shallow first: a parent's move carries its sub-folders along
            old = moves.get(new)
            if old is not None and store.ledger.folder_at(old) == vanished[old]:
                _moved(store, old, new, vanished[old], actor)
    for path in fresh:
        store.folder_for(path, actor)
    return left


def _moved(store: VaultCore, old: str, new: str, folder_id: str, actor: str) -> None:
    with store.mirror.batch():
        with store.mirror.db.write() as conn:
            store.ledger.move_prefix(conn, old, new)
            store.ledger.put_folder(conn, folder_id, new)
        _settle(store, folder_id, new, actor)


def folders_swapped(store: VaultCore, dirs: Iterable[str], seen: Iterable[str]) -> dict[str, str]:
    """Each folder of ``dirs`` noted knows that holds mostly another known folder's files (by path
    inside it) and not its own → that folder's id, when its own folder is another's in turn
    (``mv a t; mv b a; mv t b``) or the other folder went (``rm -r a; mv b a``): a notebook follows
    its files, as a note does. ``seen`` lists every note file in ``dirs`` (a partial list would
    make a folder look emptied: a batch passes only the folders it walked)."""
    known = store.ledger.all_folders()
    paths = {d for d in dirs if d and d in known and not in_trash(d)}  # (one gone: nothing, unlike)
    if not paths:
        return {}
    has: dict[str, set[str]] = {p: set() for p in paths}
    for rel in seen:
        for folder in _above(rel, has):
            has[folder].add(rel[len(folder) + 1 :])
    had: dict[str, set[str]] = {p: set() for p in paths}
    rows = store.ledger.all_notes()
    for row in rows:
        for folder in _above(row.path, had):
            had[folder].add(row.path[len(folder) + 1 :])
    # (only a folder holding at most 1 - MARGIN of its own files can hold another's by MARGIN more:
    # one still holding half, beside a same-named file, may be another's: ``mv Work t; mv Home Work``)
    changed = [p for p in paths if share(has[p], had[p]) <= 1 - MARGIN]
    if not changed:
        return {}
    went = {p: set[str]() for p in known if p and not in_trash(p) and not (store.vault.root / p).is_dir()}
    for row in rows:
        for folder in _above(row.path, went):
            went[folder].add(row.path[len(folder) + 1 :])
    claims = pair_sets({p: has[p] for p in changed}, {**{p: had[p] for p in changed}, **went})
    kept = closed({new: old for new, old in claims.items() if new != old}, {p: p for p in changed}, went)
    return {new: known[old] for new, old in kept.items()}


def _above(rel: str, folders: Mapping[str, object]) -> Iterator[str]:
    """The folders of ``folders`` that hold the path ``rel``, at any depth."""
    parts = rel.split("/")[:-1]
    for depth in range(1, len(parts) + 1):
        folder = "/".join(parts[:depth])
        if folder in folders:
            yield folder


def swap_folders(store: VaultCore, claims: Mapping[str, str], actor: str) -> set[str]:
    """Give each folder path of ``claims`` its notebook (renamed, and moved under its new parent)
    with the notes and sub-folders it holds; their files are then followed (``Follower``). Returns
    the notebooks left without a folder (their folder went, another took its name), for
    ``trash_if_empty``."""
    known = store.ledger.all_folders()
    left = {known[path] for path in claims if path in known} - set(claims.values())
    was = {folder_id: path for path, folder_id in known.items()}
    top = [p for p in claims if not any(p.startswith(q + "/") for q in claims)]
    moving = [was[claims[p]] + "/" for p in top]
    with store.mirror.batch():
        for path in top:  # the notes of a folder that went, whose place this one took: deleted
            for row in store.ledger.notes_under(path):
                if not row.path.startswith(tuple(moving)) and not in_trash(row.path):
                    set_aside(store, row, actor=actor)
        with store.db.write() as conn:
            # Each folder's notes go with it, by path inside it, as a renamed folder's do: a file
            # whose text another folder holds too is told by its folder (aside first: names swap).
            for path in top:
                store.ledger.move_prefix(conn, was[claims[path]], f".noted-swap-{claims[path]}")
            for path in top:
                store.ledger.move_prefix(conn, f".noted-swap-{claims[path]}", path)
            for path, folder_id in claims.items():
                store.ledger.put_folder(conn, folder_id, path)
        for path, folder_id in sorted(claims.items(), key=lambda item: item[0].count("/")):
            _settle(store, folder_id, path, actor)
    return left


def _settle(store: VaultCore, folder_id: str, path: str, actor: str) -> None:
    """The notebook named and placed as its folder, now at ``path``, is (back from the trash)."""
    parent_dir, _, name = path.rpartition("/")
    parent = store.folder_for(parent_dir, actor) if parent_dir else ""
    folder = store.mirror.get_folder(folder_id)
    if folder.is_trashed:  # its deletion was seen in an earlier batch
        store.mirror.restore_folder(folder_id, actor=actor)
    if (folder.title, folder.parent_id) != (name, parent):
        store.mirror.update_folder(folder_id, title=name, parent_id=parent, actor=actor)


def folder_gone(store: VaultCore, rel: str, actor: str) -> None:
    """The folder ``rel`` went outside noted: its notebook goes to the trash once no note is left."""
    folder_id = store.ledger.folder_at(rel)
    if folder_id is None or folder_id == store.root_folder_id or store.vault.is_read_dir(rel):
        return
    try:
        store.mirror.get_folder(folder_id)
    except NotFoundError:  # erased for good by a noted from before the ledger forgot such folders
        with store.mirror.db.write() as conn:
            store.ledger.drop_folder(conn, folder_id)
        return
    trash_if_empty(store, folder_id, actor)


def trash_if_empty(store: VaultCore, folder_id: str, actor: str) -> None:
    """The notebook goes to the trash when no live note is left in it."""
    folder = store.mirror.get_folder(folder_id)
    if not folder.is_trashed and store.mirror.count_notes(folder_id=folder_id) == 0:
        store.mirror.trash_folder(folder_id, actor=actor)

"""Turn what a person types for a note or notebook into exactly one item, or a clear error.

A reference may be a full 32-hex id, a unique id prefix of at least four hex digits, or (for
notes) an exact title, or (for notebooks) an exact title or a ``Parent/Child`` path. An id prefix
wins over a title; a title matching several items is an error listing them, never a guess.
``resolve_folders`` (for the notebooks of an MCP scope) lets nothing win: a reference that is both
an id prefix and a title is ambiguous too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from noted.errors import InvalidInputError, NotedError, NotFoundError
from noted.models import Folder, Note, NoteMeta, is_full_id
from noted.ops.folder_tree import folder_nodes
from noted.store.protocol import Store

MIN_PREFIX = 4
_HEX = re.compile(r"[0-9a-f]+")
_SHOWN_CANDIDATES = 8

T = TypeVar("T")


def _given(ref: str, kind: str, forms: str) -> str:
    """``ref`` stripped; an empty one (``noted show "$ID"`` with ID unset) says nothing was named,
    rather than that no note has the title ""."""
    ref = ref.strip()
    if not ref:
        raise InvalidInputError(f"no {kind} given: the name is empty (name it by {forms})")
    return ref


def ambiguous(
    kind: str,
    ref: str,
    candidates: Sequence[T],
    describe: Callable[[T], str],
    hint: str = "give more of the id",
) -> InvalidInputError:
    """The refusal of a ``ref`` that names several ``candidates`` (the first few described)."""
    shown = ", ".join(describe(c) for c in candidates[:_SHOWN_CANDIDATES])
    more = f" and {len(candidates) - _SHOWN_CANDIDATES} more" if len(candidates) > _SHOWN_CANDIDATES else ""
    return InvalidInputError(f'"{ref}" matches {len(candidates)} {kind}s: {shown}{more}', hint=hint)


def _by_prefix(ref: str, ids: Sequence[str]) -> list[str]:
    key = ref.lower()
    if len(key) < MIN_PREFIX or not _HEX.fullmatch(key):
        return []
    return [i for i in ids if i.startswith(key)]


def _pick_title(matches: list[T], trashed: Callable[[T], bool], prefer_trashed: bool) -> list[T]:
    """Among several title matches, keep those on the side of the trash the command works on."""
    if len(matches) <= 1:
        return matches
    preferred = [m for m in matches if trashed(m) == prefer_trashed]
    return preferred or matches


def _describe_note(meta: NoteMeta) -> str:
    where = " (in the trash)" if meta.is_trashed else ""
    return f'{meta.id[:8]} "{meta.title}"{where}'


def _conflict_copies(store: Store, ref: str) -> dict[str, str]:
    """The conflict copies of Joplin's sync, described by id, where ``ref`` may be an id prefix:
    the person sees them (``noted conflicts``, the app), though the note listings leave them out.
    Not by title: a copy has its note's title, which names the note."""
    if store.conflicts is None or not _by_prefix(ref, [ref.lower()]):
        return {}
    copies = store.conflicts.sync_conflicts()
    return {c.copy_id: f'{c.copy_id[:8]} "{c.title}" (conflict copy)' for c in copies}


def live_note(store: Store, ref: str) -> Note:
    """The note ``ref`` names, refused (exit 1) when it is in the trash: it is restored before it
    is changed, as the MCP tools require."""
    return refuse_trashed(resolve_note(store, ref))


def refuse_trashed(note: Note) -> Note:
    """``note``, refused (exit 1) when it is in the trash: it is restored before it is changed."""
    if note.is_trashed:
        raise NotedError(
            f'"{note.title}" is in the trash; restore it first', hint=f"noted restore {note.id[:8]}"
        )
    return note


def resolve_note(store: Store, ref: str, *, prefer_trashed: bool = False) -> Note:
    """The note named by ``ref``: full id, unique id prefix (≥ 4 hex digits) or exact title.

    Args:
        store: where to look.
        ref: what the person typed.
        prefer_trashed: when a title matches notes both in and out of the trash, pick from the
            trash (for ``restore``) instead of from the live notes.

    Raises:
        NotFoundError: nothing matches.
        InvalidInputError: ``ref`` is empty, or several notes match; the message lists them.
    """
    ref = _given(ref, "note", "its id, the start of its id, or its exact title")
    if is_full_id(ref.lower()):
        try:
            return store.get_note(ref.lower())
        except NotFoundError:
            raise NotFoundError(f'no note with id or title "{ref}"') from None
    metas = store.list_notes() + store.list_notes(trashed=True)
    by_id = {m.id: _describe_note(m) for m in metas} | _conflict_copies(store, ref)
    prefixed = _by_prefix(ref, list(by_id))
    if len(prefixed) == 1:
        return store.get_note(prefixed[0])
    if prefixed:
        raise ambiguous("note", ref, [by_id[i] for i in sorted(prefixed)], str)
    titled = [m for m in metas if m.title == ref] or [
        m for m in metas if m.title.casefold() == ref.casefold()
    ]
    titled = _pick_title(titled, lambda m: m.is_trashed, prefer_trashed)
    if len(titled) == 1:
        return store.get_note(titled[0].id)
    if titled:
        raise ambiguous("note", ref, titled, _describe_note)
    raise NotFoundError(f'no note with id or title "{ref}"')


def folder_paths(folders: Sequence[Folder], sep: str = "/") -> dict[str, str]:
    """``Parent/Child`` paths of every folder by id, joined by ``sep``, as the tree shows them
    (``noted.ops.folder_tree.folder_nodes``: a missing parent ends them, a loop starts at its first notebook)."""
    paths: dict[str, str] = {}
    todo = [(node, "") for node in folder_nodes(folders, {})]
    while todo:
        node, above = todo.pop()
        path = paths[node.folder.id] = f"{above}{sep}{node.folder.title}" if above else node.folder.title
        todo.extend((child, path) for child in node.children)
    return paths


def paths_apart(paths: dict[str, str]) -> dict[str, str]:
    """``paths`` (from ``folder_paths``) with the start of the id after each one another notebook
    shares (``Work · 1a2b3c4d``), so a person choosing a notebook by name can tell them apart."""
    seen: dict[str, int] = {}
    for path in paths.values():
        seen[path.casefold()] = seen.get(path.casefold(), 0) + 1
    return {fid: f"{path} · {fid[:8]}" if seen[path.casefold()] > 1 else path for fid, path in paths.items()}


def resolve_folder(store: Store, ref: str, *, prefer_trashed: bool = False) -> Folder:
    """The notebook named by ``ref``: full id, unique id prefix, exact title or ``A/B`` path.

    Raises:
        NotFoundError: nothing matches.
        InvalidInputError: several notebooks match; the message lists them with their paths.
    """
    return _folder(store, ref, store.list_folders(include_trashed=True), prefer_trashed, id_wins=True)


def resolve_folders(store: Store, refs: Sequence[str]) -> tuple[Folder, ...]:
    """The notebooks ``refs`` name, one each, for a scope fixed by id.

    As ``resolve_folder``, except that a reference that is an id prefix of one notebook and the
    title or path of another is ambiguous rather than the id's: a scope is no place for a guess.

    Raises:
        NotFoundError: a reference names nothing.
        InvalidInputError: a reference names several notebooks; the message lists them by path.
    """
    folders = store.list_folders(include_trashed=True)
    return tuple(_folder(store, ref, folders, False, id_wins=False) for ref in refs)


def _folder(store: Store, ref: str, folders: list[Folder], prefer_trashed: bool, *, id_wins: bool) -> Folder:
    ref = _given(ref, "notebook", "its id, title or Parent/Child path")
    if is_full_id(ref.lower()):
        try:
            return store.get_folder(ref.lower())
        except NotFoundError:
            raise NotFoundError(f'no notebook with id or title "{ref}"') from None
    by_id = {f.id: f for f in folders}
    paths = folder_paths(folders)

    def describe(folder: Folder) -> str:
        where = " (in the trash)" if folder.is_trashed else ""
        return f'{folder.id[:8]} "{paths[folder.id]}"{where}'

    prefixed = [by_id[i] for i in sorted(_by_prefix(ref, list(by_id)))]
    if id_wins and len(prefixed) == 1:
        return prefixed[0]
    if id_wins and prefixed:
        raise ambiguous("notebook", ref, prefixed, describe)
    key = ref.strip("/")
    exact = [f for f in folders if f.title == key or paths[f.id] == key]
    folded = key.casefold()
    titled = exact or [f for f in folders if folded in (f.title.casefold(), paths[f.id].casefold())]
    titled = _pick_title(titled, lambda f: f.is_trashed, prefer_trashed)
    found = list({f.id: f for f in (*prefixed, *titled)}.values())
    if len(found) == 1:
        return found[0]
    if found:
        raise ambiguous("notebook", ref, found, describe, _how_to_pick(found, paths, folded))
    raise NotFoundError(f'no notebook with id or title "{ref}"', hint="`noted notebooks` lists them")


def _how_to_pick(found: list[Folder], paths: dict[str, str], folded: str) -> str:
    """How to name one of the notebooks ``found`` for a name: by path, except one whose whole path
    the name is (at the top level), which only its id picks out (the hint once sent it to the path
    it had just given)."""
    whole = [f.id[:8] for f in found if paths[f.id].casefold() == folded]
    if not whole:
        return "give its path as listed, or its id"
    if len(whole) == len(found):
        return "give its id"
    return f"give the path of one inside another notebook, or the id of {' or '.join(whole)}"


def attachment_by_prefix(store: Store, ref: str) -> str | None:
    """The id of the attachment whose id starts with ``ref`` (≥ 4 hex digits), as a note's id
    prefix names a note: a live one, or a deleted one its kept versions remember
    (``Store.kept_resource_ids``); None when none does, or when ``ref`` is no id prefix. A prefix
    that a note's id starts with too, or several attachments', is ambiguous (``InvalidInputError``)."""
    key = ref.strip().lower()
    if is_full_id(key) or not _by_prefix(key, [key]):
        return None
    live = [r.id for r in store.list_resources() if r.id.startswith(key)]
    found = sorted({*live, *store.kept_resource_ids(key)})
    if not found:
        return None
    notes = _by_prefix(key, [m.id for m in store.list_notes() + store.list_notes(trashed=True)])
    if len(found) > 1 or notes:
        kinds = (
            "attachments"
            if not notes
            else "a note and an attachment"
            if len(found) == 1
            else "notes and attachments"
        )
        ids = ", ".join(sorted([*notes, *found])[:_SHOWN_CANDIDATES])
        raise InvalidInputError(
            f'"{ref.strip()}" starts the ids of {kinds}: {ids}', hint="give more of the id"
        )
    return found[0]

"""Which attachment of the store a file of an import is: the id an export named it by
(``_resources/ID/name``), or the attachment its note links under its name with the same bytes."""

from __future__ import annotations

from pathlib import Path

from noted.errors import NotFoundError
from noted.models import FULL_ID, Note, is_full_id
from noted.store.protocol import Store
from noted.store.transfer.common import RESOURCES_DIR


def named_id(path: Path) -> str | None:
    """The id an export names a file by: its folder's (``_resources/ID/photo.png``) or, from an
    earlier export, its name's (``_resources/ID.png``)."""
    for name in (path.parent.name.lower(), path.stem.lower()):
        if is_full_id(name):
            return name
    return None


def known_id(store: Store, path: Path) -> str | None:
    """The id of the store's attachment an export's ``_resources/ID/name`` (or older ``_resources/ID.ext``)
    names, if it has one."""
    named = named_id(path)
    if named is None or RESOURCES_DIR not in (path.parent.name, path.parent.parent.name):
        return None
    try:
        store.get_resource(named)
    except NotFoundError:
        return None
    return named


def existing_resource(store: Store, path: Path, data: bytes, note: Note | None) -> str | None:
    """A resource with these bytes: named by the id in the file name (an export), or linked by
    ``note`` under this file name (another name with the same bytes is another attachment)."""
    candidates = [m.group(0) for m in FULL_ID.finditer(path.stem.lower())]
    candidates += [named] if (named := named_id(path)) else []
    if note is not None:
        linked = store.list_resources(note_id=note.id)
        candidates += [r.id for r in linked if r.size == len(data) and r.filename == path.name]
    for resource_id in candidates:
        try:
            if store.read_resource(resource_id) == data:
                return resource_id
        except NotFoundError:
            continue
    return None

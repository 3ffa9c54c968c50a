"""Which notebook and note each directory and file of an import is: the ones made before, or new.

A file names its note by its front-matter ``id`` (an export's files do). Else it is the note an
import of the same file made before: that note's id is ``import_id`` of the folder and the file's
path in it, the same at every import, so a re-import finds it whatever its title became meanwhile
(the Markdown folder reads the title from a first-line heading, say) and two files sharing a title
each find their own. Else (a note imported before noted kept that id, a file renamed since) it is
the note of that title in the file's notebook that no other file claims: one whose body is the
file's first, else the oldest, so each file finds the same note every time. A note found by title
alone is a guess (``ScanFile.by_title``): the import changes none of its fields; a file that differs
from it in any makes a new note (one naming an id: ``guesses.py``) or a conflict copy beside it.
Nothing here writes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from typing import TYPE_CHECKING

from noted.errors import NotFoundError
from noted.models import Note, new_id
from noted.store.transfer.common import safe_name

if TYPE_CHECKING:
    from pathlib import Path

    from noted.store.protocol import Store
    from noted.store.transfer.scan import Scan, ScanFile


def import_id(root: Path, rel: str) -> str:
    """The id of the note that importing the file ``rel`` of the folder ``root`` makes."""
    key = b"noted-import\0" + os.fsencode(root) + b"\0" + rel.encode("utf-8", "surrogateescape")
    return hashlib.sha256(key).hexdigest()[:32]


def copy_id(note_id: str, title: str, body: str) -> str:
    """The id of the conflict copy that a file of this ``title`` and ``body`` makes beside the note
    ``note_id``: the same at every import of the unchanged file, so the change feed, which keeps
    every id it saw, tells whether that copy was made before, even once deleted for good."""
    key = "\0".join(("noted-import-copy", note_id, title, body)).encode("utf-8", "surrogateescape")
    return hashlib.sha256(key).hexdigest()[:32]


def match_dirs(scan: Scan) -> None:
    """Match each directory to a notebook: by its marker's id, else by parent and title (else
    by the name a folder of that title has)."""
    live = [f for f in scan.store.list_folders() if not f.is_trashed]
    by_id = {f.id: f for f in live}
    for key in sorted(scan.dirs, key=lambda k: (k.count("/") if k else -1, k)):
        entry = scan.dirs[key]
        if entry.marker_id in by_id:
            entry.folder_id = entry.marker_id
            continue
        parent_id: str | None = ""
        if entry.parent_key is not None:
            parent_id = scan.dirs[entry.parent_key].folder_id
        if parent_id is None:
            continue  # under a notebook still to be created: nothing to match
        here = [f for f in live if f.parent_id == parent_id]
        same = [f for f in here if f.title == entry.title]
        # A Markdown folder titles a notebook by its folder's name, made safe ("A:B" is "A_B").
        same = same or [f for f in here if safe_name(f.title) == safe_name(entry.title)]
        entry.folder_id = same[0].id if same else None


def shared_ids(scan: Scan) -> list[str]:
    """A line for each file whose front-matter id an earlier file has too (``match_notes`` needs none)."""
    first: dict[str, str] = {}
    shared = []
    for file in scan.files:
        note_id = file.front.id
        if note_id is not None and first.setdefault(note_id, file.rel) != file.rel:
            shared.append(f'{file.rel} and {first[note_id]} both have the id "{note_id}"')
    return shared


def match_notes(scan: Scan) -> None:
    """Match each file to a note: by front-matter id, else the note its import made, else by title
    (no two files having one id: ``shared_ids``)."""
    claimed: dict[str, str] = {}
    _drop_ids_of_other_items(scan)
    for file in scan.files:
        note_id = file.front.id
        if note_id is not None:
            claimed[note_id] = file.rel
            file.existing = _get(scan, note_id)
    for file in scan.files:
        if file.front.id is None:
            own = import_id(scan.root, file.rel)
            if own not in claimed:  # (a file naming that id by hand keeps it)
                claimed[own] = file.rel
                file.note_id = own
                file.existing = _get(scan, own)
    by_folder: dict[str, list[Note]] = {}
    for same_body in (True, False):  # a note that still says what a file says is that file's
        for file in scan.files:
            if file.existing is None:
                file.existing = _by_title(scan, file, by_folder, claimed, same_body=same_body)
                file.by_title = file.existing is not None
    for file in scan.files:
        file.note_id = file.existing.id if file.existing else file.front.id or file.note_id or new_id()


def _drop_ids_of_other_items(scan: Scan) -> None:
    """Forget a front-matter id that is a notebook's, an attachment's or a tag's (in the store, or a
    notebook of the folder), with a warning: the note it made took that item's id, and an export
    then wrote links to the item as links to the note."""
    markers = {d.marker_id for d in scan.dirs.values() if d.marker_id is not None}
    others: dict[str, str] | None = None  # read once, when a file first names an id
    for file in scan.files:
        item_id = file.front.id
        if item_id is None:
            continue
        if others is None:
            others = _other_items(scan.store)
        what = "notebook" if item_id in markers else others.get(item_id)
        if what is None or _get(scan, item_id) is not None:
            continue
        article = "an" if what[0] in "aeiou" else "a"
        scan.warnings.append(
            f'{file.rel}: its id "{item_id}" is {article} {what}\'s; the note gets an id of its own'
        )
        file.front = dataclasses.replace(file.front, id=None)


def _other_items(store: Store) -> dict[str, str]:
    """The kind of every item other than a note in the store, by id: three reads for the whole
    import rather than three a file."""
    kinds = {f.id: "notebook" for f in store.list_folders(include_trashed=True)}
    kinds.update((r.id, "attachment") for r in store.list_resources())
    kinds.update((t.id, "tag") for t in store.list_tags(counted=False))
    return kinds


def _get(scan: Scan, note_id: str) -> Note | None:
    try:
        return scan.store.get_note(note_id)
    except NotFoundError:
        return None


def _by_title(
    scan: Scan,
    file: ScanFile,
    by_folder: dict[str, list[Note]],
    claimed: dict[str, str],
    *,
    same_body: bool,
) -> Note | None:
    """The note of the file's title in its notebook that no file claims (``same_body``: only one
    whose body is the file's). Of several, the oldest: an order no update changes, so a file finds
    the same note at every import (taken newest first, two files swapped notes at each)."""
    folder_id = scan.dirs[file.dir_key].folder_id
    if folder_id is None:
        return None
    if folder_id not in by_folder:
        metas = scan.store.list_notes(folder_id=folder_id)
        notes = scan.store.get_notes([m.id for m in metas])
        by_folder[folder_id] = sorted(notes, key=lambda n: (n.created_time, n.id))
    for note in by_folder[folder_id]:
        if note.title != file.title or note.id in claimed or (same_body and note.body != file.body):
            continue
        claimed[note.id] = file.rel  # two files never match one note
        return note
    return None

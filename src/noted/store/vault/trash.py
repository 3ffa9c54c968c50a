"""The folder's ``.trash/``: where a trashed note's file is, and what of it noted may delete.

A trashed note's file lies in ``.trash/`` at its path in the folder (``NAME 2.md``… when taken).
``.trash/`` is a dot folder, skipped as notes, but the files of trashed notes in it are followed as
any other (``noted.store.vault.follow.Follower``): an edit made there is a new version of the note
(actor ``outside``), so a write, an undo or a restore of that note meets it, never overwrites it.
Their ledger hash (``noted.store.vault.ledger.NoteFile.hash``) stays what noted put there (moved or
wrote), not what it followed: emptying the trash deletes only a file whose content is noted's.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from noted.errors import InvalidInputError
from noted.store.vault.files import TRASH, FileState, Vault
from noted.store.vault.ledger import NoteFile
from noted.tempfiles import sweep

if TYPE_CHECKING:
    from noted.store.vault.base import VaultCore


def in_trash(rel: str) -> bool:
    return rel == TRASH or rel.startswith(TRASH + "/")


def links_from(rel: str) -> str:
    """Where the relative links of the note file ``rel`` lead from: its folder, or for a trashed
    note's file its notebook's folder, the one it came from. Its file keeps the links as it had
    them there, and goes back with them on a restore (``VaultCore.place`` rebases them from its
    origin), so a link written or read while it is in ``.trash/`` is one from there too."""
    return rel.removeprefix(TRASH + "/") if in_trash(rel) else rel


def changed_in_trash(vault: Vault, rows: Iterable[NoteFile]) -> Iterator[str]:
    """The paths of the trashed notes' files in ``.trash/`` that changed or went since noted last
    read or wrote them (by size and mtime, as the scan compares every file)."""
    for row in rows:
        if row.present and in_trash(row.path):
            state = vault.state(row.path)
            if state is None or (state.size, state.mtime_ns) != (row.size, row.mtime_ns):
                yield row.path


def trashed_copy(store: VaultCore, row: NoteFile) -> tuple[str, FileState] | None:
    """The note's file found in ``.trash/`` at its path there (``NAME 2.md``… when that was taken),
    with the content noted last knew and no other note's: moved there by a noted that stopped half
    way through trashing it, or by another program. Its note is trashed, not deleted; its row has
    no hash (noted put no bytes there), so emptying the trash keeps the file."""
    folder, _, name = f"{TRASH}/{row.path}".rpartition("/")
    same = re.compile(re.escape(PurePosixPath(name).stem) + r"(?: ([0-9]+))?\.md")
    try:
        found = [m for m in map(same.fullmatch, os.listdir(store.vault.path(folder))) if m]
    except (OSError, InvalidInputError):
        return None
    for match in sorted(found, key=lambda m: int(m.group(1) or 1)):
        rel = f"{folder}/{match.group(0)}"
        if store.ledger.note_at(rel) is not None:
            continue
        try:
            read = store.vault.read(rel)
        except (OSError, InvalidInputError):
            continue
        if read.digest == row.hash:
            return rel, read.state
    return None


def sweep_trash_temps(vault: Vault) -> None:
    """``noted.tempfiles.sweep`` in ``.trash/`` (which ``Vault.walk`` leaves out)."""
    for dirpath, _, filenames in os.walk(vault.root / TRASH):
        sweep(dirpath, filenames)

"""The file work behind the reader's "save as" key: where a copy of an attachment goes, and writing it.

Nothing here touches a widget or imports Textual: each function blocks (disk, store) and is
called from a thread worker by ``ui.widgets.attachments``. Refusals are ``InvalidInputError``s
whose message says what happened and that nothing was written, so the app shows them as they are.
Adding and removing attachments are note operations, in ``noted.ops.attachments``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from noted.errors import InvalidInputError
from noted.models import Resource
from noted.ops.attachments import absolute, shown
from noted.store.protocol import Store
from noted.tempfiles import replace_with, write_new


def file_name(resource: Resource) -> str:
    """The name a saved copy gets: the attachment's file name, or its id with its extension."""
    if resource.filename:
        return resource.filename
    return resource.id + (f".{resource.file_extension}" if resource.file_extension else "")


# Save as -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Destination:
    """Where a copy of an attachment goes, and whether a file is already there."""

    path: Path
    exists: bool
    size: int = 0
    """The size of the file already there (0 when there is none)."""


def default_destination(filename: str) -> str:
    """``~/Downloads/<filename>`` when that folder exists, else ``<cwd>/<filename>``."""
    downloads = Path.home() / "Downloads"
    return shown((downloads if downloads.is_dir() else Path.cwd()) / filename)


def resolve_destination(text: str, filename: str) -> Destination:
    """The file ``text`` names (``~`` expanded, relative to the working folder; a folder means
    ``filename`` inside it).

    Raises:
        InvalidInputError: the folder it would go in does not exist, or the path is a folder.
    """
    path = absolute(text)
    if path.is_dir():
        path = path / filename
    elif text.strip().endswith(("/", os.sep)):
        raise InvalidInputError(f"the folder {shown(path)} does not exist; nothing was saved")
    if not path.parent.is_dir():
        raise InvalidInputError(f"the folder {shown(path.parent)} does not exist; nothing was saved")
    if path.is_dir():
        raise InvalidInputError(f"{shown(path)} is a folder; nothing was saved")
    exists = path.exists()
    return Destination(path, exists, path.stat().st_size if exists else 0)


def save_resource(store: Store, resource_id: str, path: Path, *, overwrite: bool) -> int:
    """Write the attachment's bytes to ``path`` and return how many, whole or not at all (a kill
    half way leaves nothing under its name: ``noted.tempfiles``); an existing file is replaced only
    with ``overwrite``.

    Raises:
        InvalidInputError: the file appeared meanwhile (without ``overwrite``) or cannot be written.
        NotFoundError: the attachment (or its file) is gone.
    """
    data = store.read_resource(resource_id)
    try:
        (replace_with if overwrite else write_new)(path, data)  # (new: never over one that appeared)
    except FileExistsError:
        raise InvalidInputError(f"{shown(path)} appeared meanwhile; nothing was saved") from None
    except OSError as exc:
        raise InvalidInputError(f"cannot write {shown(path)}: {exc.strerror or exc}") from None
    return len(data)


# Completion --------------------------------------------------------------------------------


def complete_path(typed: str) -> str | None:
    """``typed`` completed as far as the files there agree (Tab in *Attach a file* and *Save as*):
    ``~/Doc`` → ``~/Documents/`` (a folder ends in ``/``), or None when nothing more can be added.
    Hidden files are offered only once a ``.`` is typed."""
    folder, prefix = os.path.split(os.path.expanduser(typed))
    try:
        with os.scandir(folder or ".") as entries:
            names = [
                entry.name + ("/" if entry.is_dir() else "")
                for entry in entries
                if entry.name.startswith(prefix)
                and (prefix.startswith(".") or not entry.name.startswith("."))
            ]
    except OSError:  # no such folder, or not one to read: nothing to offer
        return None
    common = os.path.commonprefix(names)
    return typed + common[len(prefix) :] if len(common) > len(prefix) else None

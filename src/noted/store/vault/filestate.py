"""What noted knows of one file of the Markdown folder: its state, how it was read, why it is
skipped (its name, size, kind or bytes).

``noted.store.vault.files`` is the folder itself (which files are notes, reading and writing them).
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from noted.errors import ConflictError, InvalidInputError


@dataclass(frozen=True, slots=True)
class FileState:
    """What the start-up scan compares: size and modification time first, then the hash."""

    size: int
    mtime_ns: int


ABSENT = FileState(-1, 0)
"""The state of a file that is not there (as the ledger records a note's file gone)."""


def state_now(path: Path) -> FileState:
    """``path``'s state as it is (``ABSENT``; ``FileState(-2, 0)`` for what is not a plain file)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return ABSENT
    return FileState(st.st_size, st.st_mtime_ns) if stat.S_ISREG(st.st_mode) else FileState(-2, 0)


@dataclass(frozen=True, slots=True)
class ReadFile:
    """A note file's content as read."""

    data: bytes
    state: FileState

    @property
    def digest(self) -> str:
        return content_hash(self.data)


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class Skipped(InvalidInputError):
    """A file noted leaves alone: ``reason`` is what ``noted vault status`` gives beside its path;
    the message (when an operation meets it) names the file too."""

    def __init__(self, reason: str, rel: str = "", *, hint: str | None = None) -> None:
        super().__init__(f'the file "{rel}" in the Markdown folder is {reason}' if rel else reason, hint=hint)
        self.reason = reason


class FileChanged(ConflictError):
    """The file changed outside noted after noted read it, before noted's write replaced it:
    nothing was written (``Vault.write`` given ``unchanged``)."""


def has_bad_name(rel: str) -> bool:
    """``rel`` holds bytes that are not UTF-8 (Python gives them as lone surrogates)."""
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


LINK = "a symbolic link (noted reads and writes only plain files)"
"""Why a link is skipped (``noted vault status``); a link to a folder: ``DIR_LINK``."""
DIR_LINK = "a symbolic link to a folder (noted follows no links)"
IGNORE_LINK = LINK + "; its rules are not read"
"""A ``.gitignore`` that is a link: not read, as git (2.32 on) does not read one in a work tree."""


def link_skipped(rel: str) -> Skipped:
    return Skipped(
        LINK,
        rel,
        hint="put the file itself there instead of the link, or move the link out of the Markdown folder",
    )


def decode(data: bytes) -> str:
    """The file's text; ``Skipped`` when it is not UTF-8 (noted then never rewrites it)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Skipped(
            f"not UTF-8 (byte {exc.start}); noted reads and writes only UTF-8", hint="save it as UTF-8"
        ) from None


def file_at(path: Path) -> bool:
    """Something that may be a note's file is at ``path`` (a file, a link): a folder there is not
    (``x.md/`` is a notebook: the note's file went)."""
    return os.path.lexists(path) and not (path.is_dir() and not path.is_symlink())


def _same_file(a: Path, b: Path) -> bool:
    """``b`` is ``a`` under another case of its name (a case-insensitive file system)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False

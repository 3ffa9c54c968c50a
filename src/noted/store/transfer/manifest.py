"""The manifest of an export (``.noted-export.yml``): which files noted wrote there, with their hashes.

An export replaces a previous one only when every file in the folder is one that export wrote,
unchanged; anything else (a file added since, one edited, a folder that only looks like an
export) is listed and kept unless the person forces it. So an export never deletes what it did
not write.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import yaml

from noted.store.transfer.checks import shown
from noted.store.transfer.common import EXPORT_MARKER, FORMAT, TransferError, dump_yaml, load_yaml

VERSION = 2
"""Version 2 records ``files``; version 1 recorded none, so its files count as unknown."""
_LISTED = 8
"""Files named in a refusal; the rest are counted."""


def file_hash(path: Path) -> str:
    """The SHA-256 of a file's bytes, read in blocks."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def manifest_text(exported: str, files: dict[str, str], titles: dict[str, str]) -> str:
    """The manifest's YAML: format, version, time, ``files`` (path → SHA-256) and ``titles``
    (an attachment's path → its title, where that is not its file name: an import reads it back)."""
    data = {"format": FORMAT, "version": VERSION, "exported": exported, "files": dict(sorted(files.items()))}
    return dump_yaml(data | ({"titles": dict(sorted(titles.items()))} if titles else {}))


def recorded_files(root: Path, key: str = "files") -> dict[str, str]:
    """The files the manifest at ``root`` says noted wrote (``key`` "titles": the attachments'
    titles it records); none when it is empty or unreadable."""
    try:
        data = load_yaml((root / EXPORT_MARKER).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return {}
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get(key), dict):
        return {}
    return {str(k): str(v) for k, v in data[key].items()}


@dataclass(frozen=True, slots=True)
class Unknown:
    """A file in a previous export that noted did not write there, or that changed since."""

    path: str
    changed: bool

    def __str__(self) -> str:
        return f"{shown(self.path)} (changed)" if self.changed else shown(self.path)


def unknown_files(root: Path) -> list[Unknown]:
    """Every file under ``root`` that its manifest does not vouch for, in path order.

    Links count as unknown (noted never writes one), whatever they point to.
    """
    recorded = recorded_files(root)
    found: list[Unknown] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        here = Path(dirpath)
        for name in sorted(filenames) + [d for d in dirnames if (here / d).is_symlink()]:
            path = here / name
            rel = path.relative_to(root).as_posix()
            if rel == EXPORT_MARKER:
                continue
            expected = recorded.get(rel)
            if expected is None or path.is_symlink():
                found.append(Unknown(rel, changed=False))
                continue
            try:
                same = file_hash(path) == expected
            except OSError as exc:
                raise TransferError(f"cannot read {path}: {exc.strerror or exc}") from exc
            if not same:
                found.append(Unknown(rel, changed=True))
    return found


def refusal(
    target: Path, unknown: list[Unknown], *, when: str = "noted did not write there or that changed since"
) -> TransferError:
    """The one-line refusal that lists the files a replacement would delete; ``when`` says how they
    came to be there."""
    named = ", ".join(str(u) for u in unknown[:_LISTED])
    more = f" and {len(unknown) - _LISTED} more" if len(unknown) > _LISTED else ""
    count = f"{len(unknown)} file{'s' if len(unknown) != 1 else ''}"
    return TransferError(
        f"{target} holds {count} that {when}: {named}{more}",
        hint="move them out, export to a new folder, or pass --force to delete them",
    )

"""What import and export of Markdown folders share: names, times and front matter.

A note file is optional YAML front matter between ``---`` lines, then the body exactly as stored
(export writes one blank line after the front matter, import removes exactly one).
"""

from __future__ import annotations

import datetime as dt
import os
import re
import stat
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from noted.errors import InvalidInputError
from noted.models import is_full_id
from noted.store.protocol import Store
from noted.wording import EARLIEST_MS, LATEST_MS, shown_time

EXPORT_MARKER = ".noted-export.yml"
NOTEBOOK_MARKER = ".noted-notebook.yml"
RESOURCES_DIR = "_resources"
NOTE_SUFFIXES = (".md", ".markdown", ".txt")
FORMAT = "noted-markdown"

_UNSAFE = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|]+')
_RESERVED = {
    "con",
    "prn",
    "aux",
    "nul",
    *(f"com{i}" for i in range(1, 10)),
    *(f"lpt{i}" for i in range(1, 10)),
}
MAX_NAME = 100
MAX_NAME_BYTES = 200
"""File systems limit a name to 255 bytes (ext4, APFS) or 255 UTF-16 units (NTFS): a title of 100
emoji is 400 bytes. 200 leaves room for " (N)" and ".md"."""


# libyaml's safe loader and dumper when PyYAML was built with it: the same safe subset, many times faster.
_DUMPER: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """The safe loader, except that a date no calendar has keeps its text (see ``_timestamp``)."""


def _timestamp(loader: Any, node: yaml.Node) -> object:
    """A YAML date or time, or its text when it shapes one no calendar has (``2024-02-30``, hour 25,
    year 0): PyYAML raises ``ValueError`` there, not ``YAMLError``, and one bad value took the whole
    file down. As text it fails ``to_ms`` like any other bad time, which names the key and its line."""
    try:
        return loader.construct_yaml_timestamp(node)
    except (ValueError, OverflowError):
        return loader.construct_scalar(node)


_Loader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp)


def load_yaml(text: str) -> object:
    """``yaml.safe_load``, through libyaml when available; an impossible date is left as its text."""
    return yaml.load(text, Loader=_Loader)  # a safe loader, never the full one


def dump_yaml(data: object, *, flow: bool = False) -> str:
    """``yaml.safe_dump`` in block style (``flow``: on one line), keys in the given order, Unicode kept."""
    text: str = yaml.dump(
        data, Dumper=_DUMPER, sort_keys=False, allow_unicode=True, default_flow_style=flow, width=1000
    )
    return text


def tags_by_note(store: Store) -> dict[str, list[str]]:
    """Tag titles of every live note, with one query per tag rather than one per note."""
    tags: dict[str, list[str]] = {}
    for tag in store.list_tags():
        for meta in store.list_notes(tag_id=tag.id):
            tags.setdefault(meta.id, []).append(tag.title)
    return tags


class TransferError(InvalidInputError):
    """Bad input to an import or export; raised before anything is written."""


# Times ------------------------------------------------------------------------------------------
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def iso_utc(ms: int, timespec: str = "milliseconds") -> str:
    """``2024-05-01T12:00:00.123Z``: ISO 8601 in UTC, to the millisecond (or ``timespec``).

    The year has four digits: ``strftime("%Y")`` writes the year 5 as ``5`` on Linux, which no
    ISO 8601 reader (``to_ms`` included) takes back, so such an export could not be imported.
    """
    moment = _EPOCH + dt.timedelta(milliseconds=shown_time(ms))  # exact: no float on the way
    return moment.isoformat(timespec=timespec).removesuffix("+00:00") + "Z"


def to_ms(value: object) -> int:
    """A front-matter time (ISO string, YAML timestamp or date, epoch ms, empty) as epoch ms.

    Every reader of a time from a file (import, the Markdown folder) comes here, so a time noted
    could not show or store (``253402300800000``, the year 10000) is refused where it is read.

    Raises:
        ValueError: the value is none of those, or it is outside ``EARLIEST_MS``..``LATEST_MS``.
    """
    if isinstance(value, bool):
        raise ValueError("expected a date and time")
    if value is None or value == "" or value == 0:
        return 0
    if isinstance(value, str):
        text = value.strip()
        try:
            value = dt.datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text)
        except ValueError as exc:
            why = "" if str(exc).startswith("Invalid isoformat") else f" ({exc})"
            raise ValueError(f'"{text}" is not a date and time such as 2024-05-01T12:00:00Z{why}') from None
    if isinstance(value, int):
        ms = value
    elif isinstance(value, dt.datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=dt.UTC)
        ms = (moment - _EPOCH) // dt.timedelta(microseconds=1)
        ms = (ms + 500) // 1000  # to the nearest millisecond
    elif isinstance(value, dt.date):
        ms = (dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC) - _EPOCH) // dt.timedelta(
            milliseconds=1
        )
    else:
        raise ValueError("expected a date and time such as 2024-05-01T12:00:00Z")
    return kept_time(ms, value if isinstance(value, int) else f'"{value}"')


def kept_time(ms: int, shown: object) -> int:
    """``ms`` when noted keeps that time (``EARLIEST_MS``..``LATEST_MS``).

    Raises:
        ValueError: it does not; the message names ``shown`` (the time as it was given) and the range.
    """
    if not EARLIEST_MS <= ms <= LATEST_MS:
        raise ValueError(f"{shown} is out of range: noted keeps times from 0001-01-03 to 9999-12-30")
    return ms


# Names --------------------------------------------------------------------------------------------
def safe_name(title: str, fallback: str = "Untitled") -> str:
    """A file or folder name made from a title: no separators, control or reserved characters."""
    name = unicodedata.normalize("NFC", title)
    name = _UNSAFE.sub("_", name)
    name = " ".join(name.split()).strip(". ")
    name = name[:MAX_NAME].encode("utf-8")[:MAX_NAME_BYTES].decode("utf-8", "ignore").rstrip(". ")
    if not name:
        name = fallback
    if name.casefold() in _RESERVED:
        name += "_"
    return name


def unique_name(stem: str, suffix: str, taken: set[str]) -> str:
    """``stem + suffix``, or ``stem (2) + suffix``…, unused in ``taken`` (compared case-insensitively)."""
    candidate, n = f"{stem}{suffix}", 2
    while candidate.casefold() in taken:
        candidate, n = f"{stem} ({n}){suffix}", n + 1
    taken.add(candidate.casefold())
    return candidate


def inside(path: Path, root: Path) -> bool:
    """True when ``path``, links followed, is ``root`` or lies under it (``root`` already resolved)."""
    try:
        return path.resolve().is_relative_to(root)
    except (OSError, RuntimeError):  # a loop of symbolic links
        return False


def read_regular(path: Path, shown_as: str) -> bytes:
    """The bytes of ``path``, which must be a regular file: a named pipe, a device or a socket is
    refused at once, never waited on (opened without blocking, then checked on the open file)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        raise TransferError(f"cannot read {shown_as}: {exc.strerror or exc}") from exc
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise TransferError(f"{shown_as} is not a regular file (a named pipe, device or socket)")
        try:
            return handle.read()
        except OSError as exc:
            raise TransferError(f"cannot read {shown_as}: {exc.strerror or exc}") from exc


def lexically_inside(path: str, root: str) -> bool:
    """True when ``path`` stays under ``root`` without following links (no ``..`` escape)."""
    normal = os.path.normpath(path)
    return normal == root or normal.startswith(root.rstrip(os.sep) + os.sep)


# Front matter ----------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class FrontMatter:
    """The fields a note file may carry; ``None`` means "not given"."""

    id: str | None = None
    title: str | None = None
    tags: tuple[str, ...] | None = None
    created: int | None = None
    updated: int | None = None
    is_todo: bool | None = None
    todo_due: int | None = None
    todo_completed: int | None = None
    source_url: str | None = None
    others: tuple[tuple[str, object], ...] = ()
    """The keys noted does not read (``other_keys``), for a store that keeps them (``HasNoteProperties``)."""


def dump_front_matter(fields: dict[str, Any]) -> str:
    return f"---\n{dump_yaml(fields)}---\n\n"


def split_front_matter(text: str) -> tuple[str | None, str]:
    """``(yaml text or None, body)``; the YAML text starts on line 2 of the file."""
    if not text.startswith("---\n"):
        return None, text
    end = re.search(r"^(?:---|\.\.\.)[ \t]*$\n?", text[4:], re.MULTILINE)
    if end is None:
        return None, text
    body = text[4 + end.end() :]
    return text[4 : 4 + end.start()], body[1:] if body.startswith("\n") else body


def key_line(yaml_text: str, key: str) -> int:
    """The file line of ``key:`` in front matter starting on line 2 (2 when it cannot be found)."""
    for number, line in enumerate(yaml_text.splitlines(), start=2):
        if re.match(rf"\s*['\"]?{re.escape(key)}['\"]?\s*:", line):
            return number
    return 2


TODO_KEYS = {"todo": ("todo", "is_todo"), "due": ("due", "todo_due"), "done": ("done", "todo_completed")}
"""Each to-do field's front-matter keys, read by import and the Markdown folder alike: the
folder's own first (it writes the first when the file has none of them), then an export's."""
JOPLIN_DONE = "completed?"
"""Joplin's "Markdown + Front Matter" export marks a to-do ``completed?: no`` (or ``yes``)."""
_ALIASES = {
    "source": "source_url",
    **{key: keys[-1] for keys in TODO_KEYS.values() for key in keys[:-1]},
    JOPLIN_DONE: "todo_completed",
}
"""Front-matter keys that name a field by another name."""


def other_keys(data: dict[str, Any]) -> dict[str, Any]:
    """The front-matter keys of ``data`` that neither an import nor the Markdown folder reads
    (``aliases``, ``cssclass``, a person's own), in their order: an export carries them along."""
    known = {*FrontMatter.__dataclass_fields__, *_ALIASES} - {"others"}
    return {k: v for k, v in data.items() if isinstance(k, str) and k not in known}


def _field(key: str, value: object) -> object:
    """One front-matter value converted to its field's type; ``ValueError`` says what was expected."""
    if key == "id":
        if not isinstance(value, str) or not is_full_id(value.lower()):
            raise ValueError("expected 32 hexadecimal digits")
        return value.lower()
    if key in ("title", "source_url"):
        if value is None:
            return ""
        if isinstance(value, bool | dict | list):
            raise ValueError("expected text")
        text = str(value).strip()
        if key == "title" and ("\n" in text or "\r" in text):
            raise ValueError("a title must be one line")
        return text
    if key == "tags":
        items = value.split(",") if isinstance(value, str) else value if value is not None else []
        if not isinstance(items, list) or not all(isinstance(t, str | int | float) for t in items):
            raise ValueError("expected a list of tag names")
        return tuple(dict.fromkeys(str(t).strip() for t in items if str(t).strip()))
    if key == "is_todo":
        if value in (0, 1) or isinstance(value, bool):
            return bool(value)
        raise ValueError("expected true or false")
    if key == "todo_completed" and isinstance(value, bool):
        return 1 if value else 0  # done, when is not said (as the Markdown folder keeps it)
    return to_ms(value)


def parse_note_file(text: str, label: str) -> tuple[FrontMatter, str]:
    """Front matter and body of a note file's text.

    Raises:
        TransferError: the front matter is not valid YAML or a field has a bad value; the message
            names ``label`` (the file) and the line.
    """
    yaml_text, body = split_front_matter(text)
    if yaml_text is None:
        return FrontMatter(), body
    try:
        data = load_yaml(yaml_text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 2
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise TransferError(f"{label}: line {line}: invalid front matter: {problem}") from exc
    if data is None:
        return FrontMatter(), body
    if not isinstance(data, dict):
        raise TransferError(f"{label}: line 2: front matter must be keys with values (key: value)")
    fields: dict[str, object] = {}
    for raw_key, value in data.items():
        key = _ALIASES.get(str(raw_key), str(raw_key))
        if key not in FrontMatter.__dataclass_fields__:
            continue
        try:
            fields[key] = _field(key, value)
        except (ValueError, TypeError, OverflowError) as exc:
            line = key_line(yaml_text, str(raw_key))
            raise TransferError(f'{label}: line {line}: bad value for "{raw_key}": {exc}') from exc
    if JOPLIN_DONE in data:
        fields.setdefault("is_todo", True)  # only a to-do has the key
    return FrontMatter(**fields, others=tuple(other_keys(data).items())), body  # type: ignore[arg-type]

"""Reading and editing ``config.toml`` with tomlkit, so a person's comments and layout survive.

A change touches only its own key: the document is parsed fresh from disk, the one value is replaced,
added (as a dotted key inside the nearest existing table) or removed, and the text is written to a
temporary file in the same folder and moved over the old one, so a crash leaves the old file or the
new one, never half of either.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from pathlib import Path
from typing import Any

import tomlkit
from filelock import FileLock
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import Comment, Table

from noted.errors import ConfigError, write_fault
from noted.tempfiles import write_temp

Stamp = tuple[int, int, int]
"""What identifies one version of the file: modification time (ns), size and inode."""

HEADER = (
    "noted settings. `noted config list` shows every setting with where its value comes from;\n"
    "edit this file by hand or with `noted config set KEY VALUE`. Comments are kept."
)


def file_stamp(path: Path) -> Stamp | None:
    """The stamp of the file now, or ``None`` when there is no file."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from exc
    return (info.st_mtime_ns, info.st_size, info.st_ino)


def read_document(path: Path) -> tomlkit.TOMLDocument:
    """Parse the file (a document holding only a short header when it does not exist).

    Raises:
        ConfigError: the file cannot be read or is not valid TOML; the message gives the place.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        doc = tomlkit.document()
        for line in HEADER.splitlines():
            doc.add(tomlkit.comment(line))
        doc.add(tomlkit.nl())
        return doc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path} is not UTF-8 text ({exc.reason})") from exc
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        return tomlkit.parse(text)
    except TOMLKitError as exc:
        raise ConfigError(
            f"{path} is not valid TOML: {exc}", hint="fix the file by hand; noted changed nothing"
        ) from exc


def flatten(
    data: Mapping[str, Any], is_setting: Callable[[str], bool], prefix: str = ""
) -> tuple[dict[str, Any], list[str]]:
    """Turn nested tables into ``{dotted key: raw value}``, and list the keys that are no setting."""
    found: dict[str, Any] = {}
    unknown: list[str] = []
    for name, value in data.items():
        key = f"{prefix}{name}"
        if is_setting(key):
            found[key] = value
        elif isinstance(value, Mapping):
            more, strange = flatten(value, is_setting, key + ".")
            found.update(more)
            unknown.extend(strange)
        else:
            unknown.append(key)
    return found, unknown


def set_in_document(doc: tomlkit.TOMLDocument, parts: Sequence[str], value: object) -> None:
    """Set the value at ``parts``, keeping every other line of the document as it was."""
    container: MutableMapping[str, Any] = doc
    for depth, part in enumerate(parts[:-1]):
        child = container.get(part)
        if child is None:
            _add_new(doc, container, parts[depth:], value)
            return
        if not isinstance(child, MutableMapping):
            where = ".".join(parts[: depth + 1])
            raise ConfigError(f"{where} in the config file is a value, where a table of settings belongs")
        container = child
    container[parts[-1]] = value


def remove_in_document(doc: tomlkit.TOMLDocument, parts: Sequence[str]) -> bool:
    """Remove the value at ``parts``, and tables it leaves empty (unless they hold comments)."""
    chain: list[MutableMapping[str, Any]] = [doc]
    for part in parts[:-1]:
        child = chain[-1].get(part)
        if not isinstance(child, MutableMapping):
            return False
        chain.append(child)
    if parts[-1] not in chain[-1]:
        return False
    del chain[-1][parts[-1]]
    for depth in range(len(parts) - 2, -1, -1):
        table = chain[depth + 1]
        if len(table) or _has_comments(table):
            break
        del chain[depth][parts[depth]]
    return True


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path``'s lock file (``.config.toml.lock``) while editing it."""
    target = Path(os.path.realpath(path))
    lock = FileLock(target.with_name(f".{target.name}.lock"))
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        lock.acquire()
    except OSError as exc:
        raise write_fault(exc, path) from exc
    try:
        yield
    finally:
        lock.release()


def write_document(path: Path, doc: tomlkit.TOMLDocument) -> Stamp:
    """Write the document atomically: a temporary file beside the target, then ``os.replace``.

    A symlinked config file is followed, so the link keeps pointing at the updated file. The mode of
    an existing file is kept; a new one is private to the user. Returns the stamp of what was
    written, so the writer does not mistake its own write for someone else's edit.

    Raises:
        StorageError: the folder or file cannot be written (``write_fault``); the old file is then
            untouched.
    """
    target = Path(os.path.realpath(path))
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        temp = write_temp(
            target, tomlkit.dumps(doc).encode("utf-8"), 0o600, old_twin=True
        )  # (a kill's: swept)
    except OSError as exc:
        raise write_fault(exc, path) from exc
    try:
        info = os.stat(temp)
        with contextlib.suppress(FileNotFoundError):
            os.chmod(temp, stat.S_IMODE(target.stat().st_mode))
        os.replace(temp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(exc, OSError):
            raise write_fault(exc, path) from exc
        raise
    _sync_folder(target.parent)
    return (info.st_mtime_ns, info.st_size, info.st_ino)


def _add_new(
    doc: tomlkit.TOMLDocument, container: MutableMapping[str, Any], rest: Sequence[str], value: object
) -> None:
    """Add a key that does not exist yet, with a table header for each missing level.

    ``[ai.tool.update_note]`` headers rather than dotted keys: tomlkit mis-nests a second dotted
    key added under a table that already holds one, which lost settings.
    """
    for part in rest[:-1]:
        table = tomlkit.table(is_super_table=True)
        append = getattr(container, "append", None)
        if append is not None:
            append(part, table)
        else:
            container[part] = table
        container = container[part]
    container[rest[-1]] = value


def _has_comments(table: MutableMapping[str, Any]) -> bool:
    if not isinstance(table, Table):
        return False
    return any(isinstance(item, Comment) for _, item in table.value.body)


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable where the platform allows opening a folder."""
    with contextlib.suppress(OSError, AttributeError):
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

"""The reading half of an import: walk a folder, parse its files, match them to what the store holds
(``matching.py``).

Nothing here writes. Every check that can refuse the input (an unreadable file, invalid front
matter, a link or symbolic link that leads outside the folder, two files claiming one id) runs
here, so a refused import has changed nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

import yaml

from noted.errors import InvalidInputError, NotFoundError, NotUtf8Error
from noted.markdown import link_spans, replace_spans
from noted.models import Note, NoteDraft, is_full_id
from noted.store.protocol import HasNotesFolder, ReadsNotesFromText, Store
from noted.store.rules import MAX_TITLE, clean_title
from noted.store.transfer.checks import check_apart, check_note, check_title, check_utf8_name, shown
from noted.store.transfer.common import (
    EXPORT_MARKER,
    NOTE_SUFFIXES,
    NOTEBOOK_MARKER,
    RESOURCES_DIR,
    FrontMatter,
    TransferError,
    inside,
    lexically_inside,
    load_yaml,
    parse_note_file,
    read_regular,
)
from noted.store.transfer.manifest import recorded_files
from noted.store.transfer.matching import match_dirs, match_notes, shared_ids
from noted.store.transfer.resource_ids import existing_resource, known_id, named_id

Progress = Callable[[str, int, int | None], None]
"""Told ``(phase, done, total)`` as an import goes: ``reading`` files (total unknown), ``checking``
their links, ``writing`` notes."""

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")
NOTE_LINK = re.compile("\x00noted-note-(\\d+)\x00")
"""A scanned body's link to a file of the import (its index): ``:/id`` of the file's note once the
import has settled which note that is (``Scan.with_ids``)."""
"""A backslash escape of a link's destination (CommonMark: any ASCII punctuation), ``x\\(1\\).png``."""


@dataclass
class ScanDir:
    """A directory that becomes (or matches) a notebook."""

    key: str
    """The directory relative to the source (``""`` for the source itself)."""
    title: str
    parent_key: str | None
    """The parent directory's key, or None for a top-level notebook."""
    marker_id: str | None = None
    folder_id: str | None = None
    """The existing notebook it matches, or None when one is to be created."""


@dataclass
class ScanFile:
    """A note file, parsed, with the note it matches (if any) and the id it will have."""

    path: Path
    rel: str
    dir_key: str
    front: FrontMatter
    title: str
    body: str
    line_offset: int
    mtime: int
    note_id: str = ""
    existing: Note | None = None
    by_title: bool = False
    """``existing`` was found by its title alone: a guess, so it is never changed (``matching.py``)."""


@dataclass
class ScanAttachment:
    """A local file linked from a note: an attachment already stored, or one to add."""

    path: Path
    token: str
    existing_id: str | None
    wanted_id: str | None = None
    """The id an export gave it (``_resources/ID/name``), kept when the store has no such attachment."""
    title: str = ""
    """Its title, where an export recorded one other than its file name."""


@dataclass
class Scan:
    """Everything an import will do, worked out before anything is written."""

    store: Store
    root: Path
    dirs: dict[str, ScanDir] = field(default_factory=dict)
    files: list[ScanFile] = field(default_factory=list)
    attachments: dict[Path, ScanAttachment] = field(default_factory=dict)
    by_digest: dict[str, ScanAttachment] = field(default_factory=dict)
    by_token: dict[str, ScanAttachment] = field(default_factory=dict)
    """The attachments to add, by the placeholder that stands for each in the notes' text."""
    warnings: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """Why files cannot be imported: every one is found before the import is refused."""
    progress: Progress | None = None
    titles: dict[str, str] = field(default_factory=dict)
    """An export's attachments' titles other than their file names, by path (its manifest's)."""

    def with_ids(self, body: str) -> str:
        """``body`` with each link to a file of the import made ``:/id`` of that file's note."""
        return NOTE_LINK.sub(lambda m: f":/{self.files[int(m.group(1))].note_id}", body)

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix() if path.is_relative_to(self.root) else str(path)

    @contextlib.contextmanager
    def collecting(self) -> Iterator[None]:
        """A refusal of bad input inside goes into ``problems``, and the scan goes on."""
        try:
            yield
        except InvalidInputError as exc:
            self.problems.append(str(exc))


def _read_text(scan: Scan, path: Path) -> str:
    data = read_regular(path, scan.rel(path))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise NotUtf8Error(
            f"{shown(scan.rel(path))} is not valid UTF-8 (line {line}, byte {exc.start + 1}); "
            "save it as UTF-8 and import again"
        ) from exc


def _read_marker(scan: Scan, path: Path) -> dict[str, object]:
    try:
        data = load_yaml(_read_text(scan, path))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        raise TransferError(f"{scan.rel(path)}: line {line}: invalid notebook file") from exc
    return data if isinstance(data, dict) else {}


def _check_link(scan: Scan, path: Path) -> None:
    if path.is_symlink() and not inside(path, scan.root):
        raise TransferError(
            f"{scan.rel(path)} is a link that leads outside {scan.root}; nothing was imported"
        )


def _walk(scan: Scan, is_export: bool) -> None:
    """Collect note files and the directories that hold them (directly or below)."""

    def unreadable(exc: OSError) -> None:
        where = scan.rel(Path(exc.filename)) if exc.filename else str(scan.root)
        raise TransferError(f"cannot read the folder {where}: {exc.strerror or exc}")

    marked: set[str] = set()  # an export's notebooks, the empty ones too (each has its marker)
    for dirpath, dirnames, filenames in os.walk(scan.root, onerror=unreadable):
        here = Path(dirpath)
        key = scan.rel(here) if here != scan.root else ""
        if is_export and key and NOTEBOOK_MARKER in filenames:
            marked.add(key)
        kept = []
        for name in sorted(dirnames):
            if name.startswith(".") or (key == "" and name == RESOURCES_DIR):
                continue
            with scan.collecting():  # (a folder refused is not read: its files would be too)
                check_utf8_name(scan.rel(here / name))
                _check_link(scan, here / name)
                if not (here / name).is_symlink():
                    kept.append(name)
        dirnames[:] = kept
        for name in sorted(filenames):
            path = here / name
            if name.startswith(".") or path.suffix.lower() not in NOTE_SUFFIXES:
                continue
            with scan.collecting():  # every file is read, so one refusal names them all
                check_utf8_name(scan.rel(path))
                _check_link(scan, path)
                if path.exists() and not path.is_file():  # a broken link is refused when read
                    scan.warnings.append(
                        f"{scan.rel(path)}: not a regular file (a named pipe, device or socket); skipped"
                    )
                    continue
                _add_file(scan, path, key)
    used = {f.dir_key for f in scan.files} | marked
    for key in sorted({k for used_key in used for k in _ancestors(used_key)}):
        with scan.collecting():
            _add_dir(scan, key, is_export)


def _refusal(problems: list[str]) -> TransferError:
    """One file's problem as it is; several as a line saying so, then one line each (the first 20)."""
    if len(problems) == 1:
        return TransferError(problems[0])
    lines = problems[:20] + [f"and {len(problems) - 20} more"] * (len(problems) > 20)
    return TransferError(
        f"{len(problems)} files cannot be imported, so nothing was; correct them and import again:"
        + "".join(f"\n  {line}" for line in lines)
    )


def _ancestors(key: str) -> list[str]:
    parts = key.split("/") if key else []
    return [""] + ["/".join(parts[: i + 1]) for i in range(len(parts))]


def _add_dir(scan: Scan, key: str, is_export: bool) -> None:
    if key == "" and is_export and not any(f.dir_key == "" for f in scan.files):
        return  # an export's root is not a notebook unless notes sit loose in it
    parent: str | None = key.rsplit("/", 1)[0] if "/" in key else ""
    if key == "" or (parent == "" and is_export):
        parent = None
    name = Path(key).name if key else scan.root.name
    entry = ScanDir(key, check_title(name, key or name, what="notebook title", from_name=True), parent)
    marker = scan.root / key / NOTEBOOK_MARKER
    if key and marker.is_file():
        _check_link(scan, marker)
        data = _read_marker(scan, marker)
        title = data.get("title")
        if isinstance(title, str) and title.strip() and "\n" not in title and len(title) <= MAX_TITLE:
            entry.title = title.strip()
        marker_id = data.get("id")
        if isinstance(marker_id, str) and is_full_id(marker_id):
            entry.marker_id = marker_id
    scan.dirs[key] = entry


def _parse(text: str, label: str) -> tuple[str, FrontMatter, str, int]:
    """The text with ``\n`` endings, its front matter, the body exactly as the file has it (its
    ``\r\n`` kept: an export writes a note's body as it is) and the number of lines before it."""
    plain = text.replace("\r\n", "\n")
    front, body = parse_note_file(plain, label)
    offset, at = plain[: len(plain) - len(body)].count("\n"), 0
    for _ in range(offset):
        at = text.index("\n", at) + 1
    return plain, front, text[at:] if body else "", offset


def _add_file(scan: Scan, path: Path, dir_key: str) -> None:
    rel = scan.rel(path)
    text, front, body, offset = _parse(_read_text(scan, path), shown(rel))
    title = front.title or path.stem.strip() or "Untitled"
    if isinstance(scan.store, ReadsNotesFromText):  # the title the note will have there (a heading)
        title = scan.store.as_read(None, NoteDraft(title, body)).title
    check_note(rel, text, front, title, body)
    try:
        mtime = int(path.stat().st_mtime * 1000)
    except OSError as exc:
        raise TransferError(f"cannot read {rel}: {exc.strerror or exc}") from exc
    scan.files.append(ScanFile(path, rel, dir_key, front, title, body, offset, mtime))
    if scan.progress is not None:
        scan.progress("reading", len(scan.files), None)


def scan_folder(store: Store, source: Path, *, progress: Progress | None = None) -> Scan:
    """Read and check everything under ``source``; write nothing.

    ``progress``, when given, is told ``("reading", files read, None)`` and then
    ``("checking", files checked, files)``.
    """
    if not source.exists():
        raise TransferError(f"{source} does not exist; give the folder to import")
    if not source.is_dir():
        raise TransferError(f"{source} is not a folder; give the folder to import")
    if isinstance(store, HasNotesFolder):
        check_apart(source, [(store.notes_folder(), "the Markdown folder")], doing="import")
    scan = Scan(store, source.resolve(), progress=progress)
    is_export = (scan.root / EXPORT_MARKER).is_file()
    scan.titles = recorded_files(scan.root, "titles") if is_export else {}
    _walk(scan, is_export)
    if not scan.files and not scan.problems:
        raise TransferError(f"found no .md, .markdown or .txt files in {source}")
    scan.problems += shared_ids(scan)
    if not scan.problems:  # (else the links are still checked, for the refusal to name them too)
        match_dirs(scan)
        match_notes(scan)
    paths = {f.path.resolve(): i for i, f in enumerate(scan.files)}
    for done, file in enumerate(scan.files, start=1):
        with scan.collecting():
            file.body = _rewrite_links(scan, file, paths)
        if progress is not None:
            progress("checking", done, len(scan.files))
    if scan.problems:
        raise _refusal(scan.problems)
    return scan


def _rewrite_links(scan: Scan, file: ScanFile, notes: dict[Path, int]) -> str:
    """Relative links to notes become ``NOTE_LINK``s (``:/id`` once the import has settled which
    note each file is); to other local files, attachments (``:/id``, or a placeholder)."""
    replacements = []
    for span in link_spans(file.body):
        target = span.target.strip().strip("<>").strip()
        if not target or target.startswith(("#", ":/")) or _SCHEME.match(target):
            continue
        path_part, _, fragment = target.partition("#")
        path_part, _, query = path_part.partition("?")
        if not path_part:
            continue
        # A page of a PDF (``?page=2``, ``#page=3``), a heading of a note: kept after the id.
        anchor = (f"?{query}" if query else "") + (f"#{fragment}" if fragment else "")
        line = file.line_offset + file.body.count("\n", 0, span.start) + 1
        candidate = os.path.join(str(file.path.parent), unquote(_ESCAPED.sub(r"\1", path_part)))
        if not lexically_inside(candidate, str(scan.root)):
            raise TransferError(f'{file.rel}: line {line}: the link "{target}" leads outside {scan.root}')
        linked = Path(candidate)
        if not linked.exists() and (known := known_id(scan.store, linked)):
            replacements.append((span, f":/{known}{anchor}"))  # an export left its file out (missing then)
            continue
        if not linked.exists():
            scan.warnings.append(f'{file.rel}: line {line}: the link "{target}" names no file; left as it is')
            continue
        if not inside(linked, scan.root):
            raise TransferError(f'{file.rel}: line {line}: the link "{target}" leads outside {scan.root}')
        if linked.is_dir():
            continue
        if not linked.is_file():
            scan.warnings.append(
                f'{file.rel}: line {line}: the link "{target}" names a named pipe, device or socket, '
                "not a file; left as it is"
            )
            continue
        resolved = linked.resolve()
        if resolved in notes:
            replacements.append((span, f"\x00noted-note-{notes[resolved]}\x00{anchor}"))
            continue  # a text file that is no note of the import (an export's _resources/ID.txt) is a file
        replacements.append((span, f":/{_attachment(scan, resolved, file.existing)}{anchor}"))
    return replace_spans(file.body, replacements)


def _attachment(scan: Scan, path: Path, existing: Note | None) -> str:
    """The id of an attachment already in the store with the same bytes, else a placeholder token."""
    known = scan.attachments.get(path)
    if known is not None:
        return known.existing_id or known.token
    check_title(path.name, scan.rel(path), what="attachment title", from_name=True)
    data = read_regular(path, scan.rel(path))
    # One attachment for the same bytes under the same name (a picture copied into two folders);
    # another name, or another id an export gave it, is another attachment, or its link would
    # open a file of a name it never linked, and a round trip would lose an attachment.
    same = f"{hashlib.sha256(data).hexdigest()}/{path.name}/{named_id(path)}"
    existing_id = existing_resource(scan.store, path, data, existing)
    if existing_id is None and same in scan.by_digest:
        scan.attachments[path] = scan.by_digest[same]
        return scan.by_digest[same].token
    attachment = ScanAttachment(path, f"\x00noted-attachment-{len(scan.attachments)}\x00", existing_id)
    with contextlib.suppress(InvalidInputError):  # (a title the store would refuse: its file name)
        attachment.title = clean_title(scan.titles.get(scan.rel(path), ""), "attachment title")
    if existing_id is None:
        attachment.wanted_id = _free_id(scan, path)
    scan.attachments[path] = attachment
    scan.by_digest.setdefault(same, attachment)
    scan.by_token[attachment.token] = attachment
    return existing_id or attachment.token


def _free_id(scan: Scan, path: Path) -> str | None:
    """The id the file is named by, when neither the store nor another file of the import has it."""
    named = named_id(path)
    if named is None or any(a.wanted_id == named for a in scan.by_token.values()):
        return None
    try:
        scan.store.get_resource(named)
    except NotFoundError:
        return named
    return None

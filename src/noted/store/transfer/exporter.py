"""Export every live notebook and note to a folder of Markdown files.

Notebooks become nested directories (each with a ``.noted-notebook.yml`` holding its id, so a
re-import matches it), notes become ``.md`` files with YAML front matter, attachments are copied
to ``_resources/ID/name`` at the root and ``:/id`` links become relative paths (a Markdown folder's
links to its files and notes are read as ``:/id`` first: ``HasFileLinks``). Everything is planned and
checked first, written to a staging folder beside the target, then moved into place, so a failure
leaves the target as it was. The manifest ``.noted-export.yml`` records every file written with
its hash (``manifest.py``): a previous export is replaced only when it holds nothing else, checked
again just before the swap, and only what the manifest vouches for is deleted (``replace.py``).
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import quote

from noted.errors import NotFoundError
from noted.markdown import link_spans, linked_ids, replace_spans
from noted.models import Folder, Note, Resource, now_ms
from noted.store.protocol import HasFileLinks, HasNoteProperties, HasNotesFolder, Store
from noted.store.transfer.checks import check_apart
from noted.store.transfer.common import (
    EXPORT_MARKER,
    NOTEBOOK_MARKER,
    RESOURCES_DIR,
    TransferError,
    dump_front_matter,
    dump_yaml,
    inside,
    iso_utc,
    safe_name,
    tags_by_note,
    unique_name,
)
from noted.store.transfer.manifest import Unknown, file_hash, manifest_text, refusal, unknown_files
from noted.store.transfer.replace import Staging, fingerprint, swap_in, sweep

_BATCH = 500


@dataclass(frozen=True, slots=True)
class ExportReport:
    """What an export wrote."""

    target: Path
    notebooks: int
    notes: int
    resources: int
    removed: tuple[Unknown, ...] = ()
    """Files of the previous export that noted had not written or that had changed, deleted
    (or, changed, overwritten) because ``force`` was given."""
    kept: tuple[str, ...] = ()
    """Folders beside the target that still hold files noted did not write: what a replacement
    (this one, or one that was killed) could not put back because the new export has a file there."""
    encrypted: int = 0
    """Notes left out: Joplin holds them encrypted and has not decrypted them yet (``NoteMeta.encrypted``)."""
    missing: tuple[str, ...] = ()
    """Attachments left out as the profile has no file for them: a line each, naming it and where
    its file should be. The notes linking them are exported, their links leading nowhere."""


@dataclass
class _Plan:
    dirs: dict[str, str]
    """Folder id → directory, relative to the target (POSIX separators)."""
    files: dict[str, str]
    """Note id → file path, relative to the target."""
    resources: dict[str, tuple[Resource, str]]
    """Resource id → the resource and its path relative to the target."""


def _check_target(target: Path, force: bool) -> tuple[Path, list[Unknown]]:
    """The resolved target and the unknown files a forced replacement deletes.

    Refuses a file, a non-empty folder that is no export, a previous export holding files it
    did not write (unless ``force``), and links that lead out of the target.
    """
    if not target.exists():
        if target.is_symlink():
            raise TransferError(f"{target} is a broken symbolic link")
        above = next((p for p in target.absolute().parents if p.exists()), None)
        if above is not None and not above.is_dir():
            raise TransferError(f"{above} is a file, not a folder; export to a folder")
        return target.absolute(), []
    root = target.resolve()
    if not root.is_dir():
        raise TransferError(f"{target} exists and is not a folder")
    try:
        entries = list(root.iterdir())
    except OSError as exc:
        raise TransferError(f"cannot read the folder {target}: {exc.strerror or exc}") from exc
    if not entries:
        return root, []
    if not (root / EXPORT_MARKER).is_file():
        raise TransferError(
            f"{target} is not empty and is not a previous noted export; pick an empty or new folder"
        )
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            if path.is_symlink() and not inside(path, root):
                raise TransferError(f"{path} is a link that leads outside {target}; refusing to export there")
    unknown = unknown_files(root)
    if unknown and not force:
        raise refusal(target, unknown)
    return root, unknown


def _plan_dirs(folders: list[Folder]) -> dict[str, str]:
    ids = {f.id for f in folders}
    children: dict[str, list[Folder]] = {}
    for folder in folders:
        children.setdefault(folder.parent_id if folder.parent_id in ids else "", []).append(folder)
    dirs: dict[str, str] = {}

    def walk(parent_id: str, parent_dir: str) -> None:
        taken = {RESOURCES_DIR.casefold()} if not parent_dir else set()
        for folder in sorted(children.get(parent_id, []), key=lambda f: (f.title.casefold(), f.id)):
            if folder.id in dirs:
                continue
            name = unique_name(safe_name(folder.title, "Notebook"), "", taken)
            dirs[folder.id] = posixpath.join(parent_dir, name)
            walk(folder.id, dirs[folder.id])

    walk("", "")
    return dirs


def _all_notes(store: Store) -> tuple[list[Note], int]:
    """The live notes, their links to attachments and notes written ``:/id`` (a Markdown folder links
    by path and by name),
    and how many were left out as Joplin has not decrypted them (their text is unknown)."""
    metas = store.list_notes()
    ids = [m.id for m in metas if not m.encrypted]
    notes: list[Note] = []
    for i in range(0, len(ids), _BATCH):
        notes.extend(store.get_notes(ids[i : i + _BATCH]))
    if isinstance(store, HasFileLinks):
        notes = [replace(n, body=store.body_with_ids(n.id, n.body, notes=True)) for n in notes]
    return notes, len(metas) - len(ids)


def _plan(store: Store, folders: list[Folder], notes: list[Note]) -> _Plan:
    dirs = _plan_dirs(folders)
    files: dict[str, str] = {}
    taken: dict[str, set[str]] = {}
    for folder_dir in dirs.values():  # a note's file is never named as a notebook's folder beside it
        parent, _, name = folder_dir.rpartition("/")
        taken.setdefault(parent, set()).add(name.casefold())
    for note in sorted(notes, key=lambda n: (n.title.casefold(), n.id)):
        folder_dir = dirs.get(note.parent_id, "")
        names = taken.setdefault(folder_dir, set())
        files[note.id] = posixpath.join(folder_dir, unique_name(safe_name(note.title), ".md", names))
    resources: dict[str, tuple[Resource, str]] = {}
    for note in notes:
        for item_id in linked_ids(note.body) - files.keys() - resources.keys():
            try:
                resource = store.get_resource(item_id)
            except NotFoundError:
                continue
            resources[item_id] = (resource, f"{RESOURCES_DIR}/{resource.id}/{_file_name(resource)}")
    return _Plan(dirs, files, resources)


def _file_name(resource: Resource) -> str:
    """The attachment's own file name, made safe (an import takes it, and the id of its folder, back)."""
    name = safe_name(resource.filename or resource.title, "attachment")
    suffix = f".{resource.file_extension}" if resource.file_extension else ""
    return name if name.lower().endswith(suffix) else name + suffix


def _rewrite(body: str, own_path: str, plan: _Plan) -> str:
    """``:/id`` link targets replaced by paths relative to the note's own file."""
    here = posixpath.dirname(own_path) or "."
    replacements = []
    for span in link_spans(body):
        target = span.target.strip("<>")
        if not target.startswith(":/") or len(target) < 34:
            continue
        item_id, rest = target[2:34], target[34:]
        dest = plan.files.get(item_id) or (plan.resources[item_id][1] if item_id in plan.resources else None)
        if dest is None:
            continue
        relative = quote(posixpath.relpath(dest, here), safe="/")
        replacements.append((span, relative + rest))
    return replace_spans(body, replacements)


def _note_text(note: Note, tags: list[str], own_path: str, plan: _Plan, others: dict[str, object]) -> str:
    fields = {
        "id": note.id,
        "title": note.title,
        "tags": tags,
        "created": iso_utc(note.user_created_time),
        "updated": iso_utc(note.user_updated_time),
        "is_todo": note.is_todo,
        "todo_due": iso_utc(note.todo_due) if note.todo_due else None,
        "todo_completed": iso_utc(note.todo_completed) if note.todo_completed else None,
        "source_url": note.source_url,
    }
    fields |= {
        key: value for key, value in others.items() if key not in fields
    }  # (its own keys: ``other_keys``)
    return dump_front_matter(fields) + _rewrite(note.body, own_path, plan)


def _write(stage: Path, store: Store, folders: list[Folder], notes: list[Note], plan: _Plan) -> list[str]:
    """Write the export into ``stage``; returns a line for each attachment whose file is missing."""
    written: dict[str, str] = {}
    missing: list[str] = []

    def put(rel: str, text: str) -> None:
        data = text.encode("utf-8")
        (stage / rel).write_bytes(data)
        written[rel] = hashlib.sha256(data).hexdigest()

    for folder in folders:
        directory = stage / plan.dirs[folder.id]
        directory.mkdir(parents=True, exist_ok=True)
        put(
            posixpath.join(plan.dirs[folder.id], NOTEBOOK_MARKER),
            dump_yaml({"id": folder.id, "title": folder.title}),
        )
    tags_of = tags_by_note(store)
    for note in notes:
        (stage / plan.files[note.id]).parent.mkdir(parents=True, exist_ok=True)
        tags = sorted(tags_of.get(note.id, []), key=str.casefold)
        others = store.note_properties(note.id) if isinstance(store, HasNoteProperties) else {}
        put(plan.files[note.id], _note_text(note, tags, plan.files[note.id], plan, others))
    for resource, rel in plan.resources.values():
        (stage / rel).parent.mkdir(parents=True, exist_ok=True)
        try:
            try:
                shutil.copyfile(store.resource_path(resource.id), stage / rel)
            except FileNotFoundError:
                (stage / rel).write_bytes(store.read_resource(resource.id))
        except NotFoundError as exc:  # a damaged profile (export is how its notes are rescued), a link
            missing.append(f'the attachment "{resource.title}" ({exc.message})')
            continue
        written[rel] = file_hash(stage / rel)
    # Last, so a staged folder without its manifest is never taken for a finished export.
    titles = {rel: r.title for r, rel in plan.resources.values() if rel in written and r.title != r.filename}
    (stage / EXPORT_MARKER).write_text(manifest_text(iso_utc(now_ms()), written, titles), encoding="utf-8")
    return missing


def export_markdown(
    store: Store, target: Path, *, force: bool = False, keep_out: Sequence[tuple[Path, str]] = ()
) -> ExportReport:
    """Write every notebook and note (not the trash) under ``target``.

    ``target`` must be missing, empty, or a previous noted export holding only the files that
    export wrote, unchanged (it is replaced). With ``force``, a previous export is replaced
    whatever else it holds, and the report lists what was deleted. ``keep_out``: folders, each
    with what it is (``the profile folder``), that the target must neither be in nor hold, as
    the store's own Markdown folder (``HasNotesFolder``).

    Raises:
        TransferError: the target is unusable, inside or around a ``keep_out`` folder or the
            Markdown folder, holds files noted did not write (without ``force``), or a link
            inside it leads outside it; nothing is written.
    """
    if isinstance(store, HasNotesFolder):
        keep_out = [(store.notes_folder(), "the Markdown folder"), *keep_out]
    check_apart(target, keep_out, doing="export to")
    kept = sweep(target.resolve() if target.exists() else target.absolute())
    root, unknown = _check_target(target, force)
    folders = store.list_folders()
    notes, encrypted = _all_notes(store)
    plan = _plan(store, folders, notes)
    for rel in [*plan.dirs.values(), *plan.files.values(), *(r for _, r in plan.resources.values())]:
        if rel.startswith(("/", "../")) or "/../" in f"/{rel}/":
            raise TransferError(f"refusing to write {rel}: it would land outside {target}")
    agreed = {u.path: fingerprint(root / u.path) for u in unknown}
    staging = Staging(root)
    try:
        root.parent.mkdir(parents=True, exist_ok=True)
        stage = staging.begin()
    except OSError as exc:
        staging.end()
        raise TransferError(
            f"cannot write next to {target}: {exc.strerror or exc}; export to a folder you can write in"
        ) from exc
    try:
        missing = _write(stage, store, folders, notes, plan)
        left = swap_in(staging, agreed)
    except OSError as exc:
        raise TransferError(f"cannot write the export to {target}: {exc.strerror or exc}") from exc
    finally:
        staging.end()
    if left:
        kept.append(str(staging.old))
    return ExportReport(
        root,
        len(folders),
        len(notes),
        len(plan.resources) - len(missing),
        tuple(unknown),
        tuple(kept),
        encrypted,
        tuple(missing),
    )

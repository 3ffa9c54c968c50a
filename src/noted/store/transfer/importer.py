"""Import a folder of Markdown files: directories become notebooks, files become notes.

The folder is scanned and checked whole first (``scan.py``), so bad input changes nothing. A
re-import matches what is already there, a note by its front-matter ``id``, else by notebook and
title: an unchanged note is left alone, a changed one updated, none duplicated. Everything is
written with the ``import`` actor.
"""

from __future__ import annotations

import mimetypes
from dataclasses import dataclass
from pathlib import Path

from noted.models import ACTOR_IMPORT, Note, NoteDraft, NotePatch
from noted.store.protocol import Store
from noted.store.transfer.common import TransferError, tags_by_note
from noted.store.transfer.scan import Scan, ScanAttachment, ScanFile, scan_folder


@dataclass(frozen=True, slots=True)
class ImportReport:
    """What an import did."""

    source: Path
    notebooks_created: int
    notes_created: int
    notes_updated: int
    notes_unchanged: int
    resources_added: int
    warnings: tuple[str, ...] = ()


def _patch(file: ScanFile, old: Note, parent_id: str, body: str) -> NotePatch | None:
    """The fields the file changes, or None when it changes none (tags aside)."""
    front = file.front
    wanted = {
        "title": file.title,
        "body": body,
        "parent_id": parent_id,
        "is_todo": front.is_todo,
        "todo_due": front.todo_due,
        "todo_completed": front.todo_completed,
        "source_url": front.source_url,
    }
    changes = {k: v for k, v in wanted.items() if v is not None and v != getattr(old, k)}
    return NotePatch(**changes) if changes else None  # type: ignore[arg-type]


def _tag_changes(file: ScanFile, tags_now: list[str]) -> tuple[list[str], list[str]]:
    """Tags to add and to remove so the note carries exactly the file's tags (when it names any)."""
    if file.front.tags is None:
        return [], []
    current = {t.casefold(): t for t in tags_now}
    wanted = {t.casefold(): t for t in file.front.tags}
    add = [t for k, t in wanted.items() if k not in current]
    remove = [t for k, t in current.items() if k not in wanted]
    return add, remove


def _create_folders(store: Store, scan: Scan) -> tuple[dict[str, str], int]:
    ids: dict[str, str] = {}
    created = 0
    for key in sorted(scan.dirs, key=lambda k: (k.count("/") if k else -1, k)):
        entry = scan.dirs[key]
        if entry.folder_id is not None:
            ids[key] = entry.folder_id
            continue
        parent = ids[entry.parent_key] if entry.parent_key is not None else ""
        ids[key] = store.create_folder(entry.title, parent_id=parent, actor=ACTOR_IMPORT).id
        created += 1
    return ids, created


def _add_attachments(store: Store, scan: Scan) -> dict[str, str]:
    """Store the new attachments; returns placeholder token → resource id."""
    added: dict[str, str] = {}
    unique: dict[str, ScanAttachment] = {
        a.token: a for a in scan.attachments.values() if a.existing_id is None
    }
    for token, attachment in unique.items():
        try:
            data = attachment.path.read_bytes()
        except OSError as exc:
            raise TransferError(f"cannot read {scan.rel(attachment.path)}: {exc.strerror or exc}") from exc
        mime = mimetypes.guess_type(attachment.path.name)[0] or "application/octet-stream"
        resource = store.add_resource(data, filename=attachment.path.name, mime=mime, actor=ACTOR_IMPORT)
        added[token] = resource.id
    return added


def _final_body(body: str, tokens: dict[str, str]) -> str:
    for token, resource_id in tokens.items():
        body = body.replace(token, resource_id)
    return body


def _create(store: Store, file: ScanFile, parent_id: str, body: str) -> None:
    front = file.front
    draft = NoteDraft(
        title=file.title,
        body=body,
        parent_id=parent_id,
        is_todo=bool(front.is_todo),
        todo_due=front.todo_due or 0,
        todo_completed=front.todo_completed or 0,
        source_url=front.source_url or "",
        id=file.note_id,
        user_created_time=front.created or file.mtime,
        user_updated_time=front.updated or file.mtime,
        tags=front.tags or (),
    )
    store.create_note(draft, actor=ACTOR_IMPORT)


def _apply(
    store: Store, file: ScanFile, parent_id: str, body: str, tags: dict[str, list[str]], warnings: list[str]
) -> str:
    """Create, update or leave the file's note; returns which of the three it did."""
    old = file.existing
    if old is None:
        _create(store, file, parent_id, body)
        return "created"
    if old.is_trashed:
        warnings.append(
            f"{file.rel}: its note is in the trash; restore it (noted restore {old.id[:8]}) first"
        )
        return "unchanged"
    patch = _patch(file, old, parent_id, body)
    add, remove = _tag_changes(file, tags.get(old.id, []))
    if patch is not None:
        store.update_note(old.id, patch, actor=ACTOR_IMPORT)
    if add:
        store.tag_note(old.id, add, actor=ACTOR_IMPORT)
    if remove:
        store.untag_note(old.id, remove, actor=ACTOR_IMPORT)
    return "unchanged" if patch is None and not add and not remove else "updated"


BATCH = 500
"""Notes written per transaction."""


def import_markdown(store: Store, source: Path) -> ImportReport:
    """Import every ``.md``, ``.markdown`` and ``.txt`` file under ``source``.

    A folder written by ``export_markdown`` maps its top directories to top-level notebooks; any
    other folder becomes one notebook named after it, with its sub-folders nested inside.

    Raises:
        TransferError: the folder cannot be imported as it is; nothing was written.
    """
    scan = scan_folder(store, source)
    warnings = list(scan.warnings)
    folder_ids, folders_created = _create_folders(store, scan)
    tokens = _add_attachments(store, scan)
    tags = tags_by_note(store) if any(f.existing for f in scan.files) else {}
    counts = {"created": 0, "updated": 0, "unchanged": 0}
    # Batches of notes share one transaction: far faster than one commit a note, and short
    # enough that another process (the TUI, an MCP server) is never kept waiting long.
    for start in range(0, len(scan.files), BATCH):
        with store.batch():
            for file in scan.files[start : start + BATCH]:
                body = _final_body(file.body, tokens)
                outcome = _apply(store, file, folder_ids[file.dir_key], body, tags, warnings)
                counts[outcome] += 1
    return ImportReport(
        scan.root,
        folders_created,
        counts["created"],
        counts["updated"],
        counts["unchanged"],
        len(tokens),
        tuple(warnings),
    )

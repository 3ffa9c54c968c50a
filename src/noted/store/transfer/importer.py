"""Import a folder of Markdown files: directories become notebooks, files become notes.

The folder is scanned and checked whole first (``scan.py``, ``checks.py``), so bad input
changes nothing. Then it is written in slices of ``SLICE_NOTES`` notes, one transaction each
(``Store.batch``), every attachment in the slice of the first note that links it: another process
that writes meanwhile waits for one slice (about a second), not for the whole import. A fault on
the way (a full disk) undoes the slice it hit, attachment files included; a fault in the first
slice leaves the profile as it was, and after a later one every note kept is whole, and the
error says how far the import got. A re-import matches what is already there (``matching.py``:
a note by its front-matter ``id``, else the note an import of the same file made, else by notebook
and title): an unchanged note is left alone, a changed one updated, none duplicated, so importing
the folder again finishes an import that stopped. What the last import wrote of a file is the
note's newest revision by the ``import`` actor: a file whose text is still that leaves the note's
text as it is (edits made in noted since are kept); a file changed since whose note was edited
too becomes a conflict copy beside the note, which keeps its text, and so does a file whose note
no import wrote (or whose record is gone), unless the file is an export of the note as it is.
Everything is written with the ``import`` actor.
"""

from __future__ import annotations

import contextlib
import dataclasses
import mimetypes
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from noted.errors import InvalidInputError, NotedError
from noted.models import ACTOR_IMPORT, Note, NoteDraft
from noted.store.protocol import HasNoteProperties, ReadsNotesFromText, Store
from noted.store.revisions import COPY, copy_prefix, copy_title, labelled
from noted.store.transfer.common import read_regular, tags_by_note
from noted.store.transfer.forward import ForwardLinks
from noted.store.transfer.guesses import patch_of, settle_guesses, tag_changes, wanted_note
from noted.store.transfer.matching import copy_id
from noted.store.transfer.scan import Progress, Scan, ScanFile, scan_folder
from noted.wording import plural

SLICE_NOTES = 500
"""Notes written per transaction: about a second of holding the write lock on a 2-core machine."""
SLICE_CHARS = 5_000_000
"""A slice ends sooner when its notes' text reaches this."""
SLICE_PAUSE = 0.15
"""Seconds between two slices, so a writer that waits gets the lock: SQLite's busy handler tries
again every 100 ms once it has waited a while, and the next slice would otherwise take the lock
back before it looked."""
_TOKEN = re.compile("\x00noted-attachment-\\d+\x00")


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
    notes_kept: int = 0
    """Notes whose file is as the last import left it, their text edited in noted since: kept."""
    conflict_copies: int = 0
    """Files changed since the last import whose note was edited too: each made a conflict copy."""
    notes_trashed: int = 0
    """Files whose note is in the trash: skipped (a warning line names each)."""


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


def _add_attachments(
    store: Store, scan: Scan, file: ScanFile, tokens: dict[str, str], written: list[Path]
) -> None:
    """Store the new attachments ``file`` links that no earlier note did, filling ``tokens``
    (placeholder → resource id). Each stored file's path goes into ``written`` at once, so a later
    failure can remove it."""
    for token in dict.fromkeys(_TOKEN.findall(file.body)):
        if token in tokens:
            continue
        attachment = scan.by_token[token]
        if attachment.existing_id is not None:
            tokens[token] = attachment.existing_id
            continue
        data = read_regular(attachment.path, scan.rel(attachment.path))
        mime = mimetypes.guess_type(attachment.path.name)[0] or "application/octet-stream"
        resource = store.add_resource(
            data,
            filename=attachment.path.name,
            title=attachment.title,
            mime=mime,
            actor=ACTOR_IMPORT,
            made_id=attachment.wanted_id,
        )
        with contextlib.suppress(NotedError):  # a backend without local files (Joplin) has none
            written.append(store.resource_path(resource.id))
        tokens[token] = resource.id


def _final_body(body: str, tokens: dict[str, str]) -> str:
    return _TOKEN.sub(lambda m: tokens[m.group(0)], body)


def _draft(store: Store, file: ScanFile, parent_id: str, body: str) -> NoteDraft:
    front = file.front
    # A Markdown folder keeps a note's creation time in its file: only one the file's front matter
    # gives goes there, no time of noted's own (the folder reads the file's then).
    created = 0 if isinstance(store, ReadsNotesFromText) else file.mtime
    return NoteDraft(
        title=file.title,
        body=body,
        parent_id=parent_id,
        is_todo=bool(front.is_todo),
        todo_due=front.todo_due or 0,
        todo_completed=front.todo_completed or 0,
        source_url=front.source_url or "",
        id=file.note_id,
        user_created_time=front.created or created,
        user_updated_time=front.updated or file.mtime,
        tags=front.tags or (),
    )


def _last_import(store: Store, note_id: str) -> tuple[str, str] | None:
    """The title and body the last import wrote to the note (its newest ``import`` revision), or
    None when no import wrote it (or that revision was thinned away)."""
    for revision in store.note_history(note_id, bodies=False):  # newest first
        if revision.actor == ACTOR_IMPORT:
            return revision.title, store.get_revision(revision.id).body
    return None


def _copy(store: Store, file: ScanFile, old: Note, body: str) -> bool:
    """Save the file's text as a conflict copy of ``old``, in its notebook: both changed since the
    last import, and neither may be lost. False when an earlier import made that copy already, even
    one the person has put in the trash or deleted for good since: the copy's id is the file's text's
    (``copy_id``), and the change feed keeps that it was made. It is not made again until the file
    changes. A copy an older noted made (another id) is found by its text while it exists."""
    link_text = old.title.replace("[", "\\[").replace("]", "\\]")
    header = (
        f"> Conflict copy of [{link_text}](:/{old.id}), imported from {file.rel}: the file changed since "
        "the last import and the note was edited in noted meanwhile. Merge what you need, then delete this note."
    )
    made_id = copy_id(old.id, file.title, body)
    if store.item_changes([made_id], limit=1):
        return False
    draft = dataclasses.replace(
        _draft(store, file, old.parent_id, f"{header}\n\n{body}"),
        id=made_id,
        title=copy_title(file.title, int(time.time() * 1000)),
    )
    start = copy_prefix(file.title)
    metas = [
        m.id
        for trashed in (False, True)
        for m in store.list_notes(folder_id=old.parent_id, trashed=trashed)
        if m.title.startswith(start)
    ]
    for note in store.get_notes(metas):
        read = store.as_read(note.id, draft) if isinstance(store, ReadsNotesFromText) else draft
        if note.body == read.body:
            return False
    with labelled(COPY):
        store.create_note(draft, actor=ACTOR_IMPORT)
    return True


def _apply(
    store: Store,
    file: ScanFile,
    parent_id: str,
    body: str,
    tags: dict[str, list[str]],
    warnings: list[str],
    session: str,
) -> str:
    """Create, update or leave the file's note, or copy the file's text beside it; returns which
    ("created", "updated", "unchanged", "kept": the note's edits since the last import, "copied",
    "trashed": skipped). The write is made in the import's ``session``, so writing the note again
    for its forward links (``ForwardLinks``) updates its revision instead of adding one."""
    old = file.existing
    if old is None:
        note = store.create_note(_draft(store, file, parent_id, body), actor=ACTOR_IMPORT, session=session)
        _add_properties(store, note.id, file)
        return "created"
    if old.is_trashed:
        warnings.append(
            f"{file.rel}: its note is in the trash, so it was skipped; restore it (noted restore {old.id[:8]}) "
            "and import again"
        )
        return "trashed"
    wanted = wanted_note(store, file, old, parent_id, body, tags.get(old.id, []))
    patch = patch_of(wanted, old)
    kept = False
    changes = patch is not None or any(tag_changes(wanted, tags.get(old.id, [])))
    base = _last_import(store, old.id) if changes else None
    if changes and (file.by_title or base is None and file.front.updated != old.user_updated_time):
        # Found only by its title (another profile's welcome note), or with no import on record
        # (a note made in noted, or the record is gone) and the file no export of the note as it
        # is: which side changed is unknown, in any field (a due date too), so both are kept. (A
        # file naming an id is a new note under it: ``settle_guesses`` made it one before.)
        return "copied" if _copy(store, file, old, body) else "unchanged"
    if patch is not None and (patch.title is not None or patch.body is not None):
        if base is not None and (old.title, old.body) != base:  # edited in noted since
            if (wanted.title, wanted.body) != base:
                return "copied" if _copy(store, file, old, body) else "unchanged"  # copied before
            wanted = dataclasses.replace(wanted, title=old.title, body=old.body)
            patch, kept = patch_of(wanted, old), True
    add, remove = tag_changes(wanted, tags.get(old.id, []))
    if patch is not None:
        store.update_note(old.id, patch, actor=ACTOR_IMPORT, session=session)
    if add:
        store.tag_note(old.id, add, actor=ACTOR_IMPORT)
    if remove:
        store.untag_note(old.id, remove, actor=ACTOR_IMPORT)
    added = _add_properties(store, old.id, file)
    if patch is None and not add and not remove and not added:
        return "kept" if kept else "unchanged"
    return "updated"


def _add_properties(store: Store, note_id: str, file: ScanFile) -> bool:
    """Add to the note the file's front-matter keys noted does not read that it lacks (a value it
    has stays: the note's own); whether any was added."""
    if not file.front.others or not isinstance(store, HasNoteProperties):
        return False
    have = store.note_properties(note_id)
    missing = {key: value for key, value in file.front.others if key not in have}
    if missing:
        store.add_note_properties(note_id, missing, actor=ACTOR_IMPORT)
    return bool(missing)


def import_markdown(store: Store, source: Path, *, progress: Progress | None = None) -> ImportReport:
    """Import every ``.md``, ``.markdown`` and ``.txt`` file under ``source``, in slices.

    A folder written by ``export_markdown`` maps its top directories to top-level notebooks; any
    other folder becomes one notebook named after it, with its sub-folders nested inside.

    Raises:
        TransferError: the folder cannot be imported as it is; nothing was written.
        NotedError: writing failed (a storage fault); the slice it hit was undone (on Joplin,
            which has no transactions, its notes sent so far stay), and the message says how
            many notes were kept.
    """
    scan = scan_folder(store, source, progress=progress)
    warnings = list(scan.warnings)
    tags = tags_by_note(store) if any(f.existing for f in scan.files) else {}
    settle_guesses(scan, tags)
    tokens: dict[str, str] = {}
    counts = {"created": 0, "updated": 0, "unchanged": 0, "kept": 0, "copied": 0, "trashed": 0}
    folder_ids: dict[str, str] = {}
    folders_created = 0
    done = 0
    links = ForwardLinks(store, {f.note_id for f in scan.files})
    for files in _slices(scan.files):
        written: list[Path] = []
        landed = done  # the notes written for good (without transactions, each as it is sent)
        try:
            if done:
                time.sleep(SLICE_PAUSE)
            with store.batch():
                if not folder_ids:  # the notebooks go with the first notes, never alone
                    folder_ids, folders_created = _create_folders(store, scan)
                links.plan([_draft(store, f, folder_ids[f.dir_key], "") for f in files if f.existing is None])
                for i, file in enumerate(files, start=done + 1):
                    _add_attachments(store, scan, file, tokens, written)
                    body = _final_body(scan.with_ids(file.body), tokens)
                    try:
                        outcome = _apply(
                            store, file, folder_ids[file.dir_key], body, tags, warnings, links.session
                        )
                    except InvalidInputError as exc:  # the store refused this file's text: say which
                        exc.message = f"{file.rel}: {exc.message}"
                        raise
                    counts[outcome] += 1
                    links.wrote(file.note_id, body if outcome != "unchanged" else "")
                    landed += 0 if store.capabilities.transactions else 1
                    if progress is not None:
                        progress("writing", i, len(scan.files))
                links.settle()
        except BaseException as exc:
            for path in written:
                with contextlib.suppress(OSError):
                    path.unlink(missing_ok=True)
            whole = "each kept whole" if store.capabilities.transactions else "the next one perhaps in part"
            stopped = (
                f"the import stopped after {plural(landed, 'note')} of {len(scan.files):,}, {whole}: "
                "import the folder again to finish it (nothing is duplicated)"
            )
            if landed and isinstance(exc, NotedError):
                exc.message += f"; {stopped}"
                if not store.capabilities.transactions:
                    exc.hint = None  # importing again is what to do, even after a write left unanswered
            elif landed and isinstance(exc, KeyboardInterrupt):  # Ctrl+C: said with "interrupted"
                exc.add_note(stopped)
            raise
        done += len(files)
    return ImportReport(
        scan.root,
        folders_created,
        counts["created"],
        counts["updated"],
        counts["unchanged"],
        len(tokens),
        tuple(warnings),
        notes_kept=counts["kept"],
        conflict_copies=counts["copied"],
        notes_trashed=counts["trashed"],
    )


def _slices(files: list[ScanFile]) -> Iterator[list[ScanFile]]:
    """``files`` in slices of at most ``SLICE_NOTES`` notes and about ``SLICE_CHARS`` of text (one at least)."""
    chunk: list[ScanFile] = []
    size = 0
    for file in files:
        if chunk and (len(chunk) >= SLICE_NOTES or size + len(file.body) > SLICE_CHARS):
            yield chunk
            chunk, size = [], 0
        chunk.append(file)
        size += len(file.body)
    if chunk:
        yield chunk

"""Bringing the mirror up to date with the files: one file, a batch of changed paths, a full scan.

Changes noted did not make (an editor, ``git checkout``, Syncthing) are recorded with the actor
``outside`` (``noted.models.ACTOR_OUTSIDE``), except the notes the first scan of a folder finds,
which are ``import`` (the person's, as an import's are). A file whose content hash is the one noted last wrote or
read is nothing new (so noted's own writes, seen again by the watcher, change nothing). A new path
whose content matches a note whose file has gone is that note moved: it keeps its id, history,
chats and vectors. A note whose file has gone is moved to noted's trash (restoring it writes the
file back); a file that comes back to its path brings the note back, and one ``.gitignore`` comes to
ignore counts as gone. A trashed note's file is followed in ``.trash/`` too (``noted.store.vault.trash``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from contextlib import nullcontext
from dataclasses import replace
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from noted.errors import Interruption, NotFoundError
from noted.models import ACTOR_IMPORT, ACTOR_OUTSIDE, Note, NoteDraft, NotePatch, now_ms
from noted.store.rules import MAX_TITLE
from noted.store.sqlite.bulk import deferred_keyword_index
from noted.store.sqlite.feed import note_renamed
from noted.store.vault.files import FileState, ReadFile, Skipped, decode, file_at, has_bad_name
from noted.store.vault.folder_follow import folder_gone, follow_folders, trash_if_empty
from noted.store.vault.ledger import NoteFile
from noted.store.vault.renames import pair_texts
from noted.store.vault.swaps import copy_taking, displaced, set_aside, swapped
from noted.store.vault.tag_sync import sync_tags
from noted.store.vault.text import FileText
from noted.store.vault.trash import changed_in_trash, in_trash, trashed_copy

FIRST_SCAN_KEY = "vault.first_scan"
"""``pending`` from when a profile first follows a folder until its first scan completes."""

if TYPE_CHECKING:
    from noted.store.vault.base import VaultCore

log = logging.getLogger(__name__)

BULK = 100
"""From this many changed files on, a batch is indexed by keyword at its end (``deferred_keyword_index``)."""
Progress = Callable[[int, int], None]
"""Told ``(done, total)`` as the start-up scan reads changed files."""


def put_note(
    store: VaultCore,
    rel: str,
    ft: FileText,
    state: FileState,
    digest: str,
    *,
    actor: str,
    note_id: str | None = None,
    new_id: str | None = None,
    session: str | None = None,
    origin: str = "",
) -> Note:
    """Make the mirror's note ``note_id`` (a new one when None) what the file ``rel`` says, in one
    transaction with the ledger's row for the file."""
    mirror = store.mirror
    title = ft.title(PurePosixPath(rel).stem)[:MAX_TITLE].strip() or PurePosixPath(rel).stem
    is_todo, due, done = ft.todo()
    mtime = state.mtime_ns // 1_000_000
    with mirror.batch():
        parent = None if in_trash(rel) else store.folder_for(rel.rpartition("/")[0], actor)
        if note_id is None:
            draft = NoteDraft(
                title, ft.body, parent or store.folder_for("", actor), is_todo, due, done, ft.source_url(),
                id=new_id, user_created_time=ft.created() or mtime, user_updated_time=mtime,
                tags=tuple(ft.tags()),
            )  # fmt: skip
            note = mirror.create_note(draft, actor=actor, session=session)
        else:
            old = mirror.get_note(note_id)
            if old.is_trashed and not in_trash(rel):
                mirror.restore_note(note_id, actor=actor)
            note = mirror.get_note(note_id)
            fields = (title, ft.body, parent or note.parent_id, is_todo, due, done, ft.source_url())
            known = store.ledger.note(note_id)
            moved = known is None or known.path != rel  # a rename is a change too (the feed says so)
            if moved or fields != (note.title, note.body, note.parent_id, note.is_todo, note.todo_due,
                                   note.todo_completed, note.source_url):  # fmt: skip
                patch = NotePatch(
                    title=title, body=ft.body, parent_id=parent, is_todo=is_todo, todo_due=due,
                    todo_completed=done, source_url=ft.source_url(), user_updated_time=mtime,
                )  # fmt: skip
                note = mirror.update_note(note_id, patch, actor=actor, session=session)
                if actor == ACTOR_OUTSIDE and known is not None and _renamed(known.path, rel):
                    with mirror.db.write() as conn:  # the review says what became of the file
                        note_renamed(conn, note_id, known.path, rel)
            sync_tags(store, note_id, ft.tags(), actor)
        store.attachments.link(note.id, rel, ft.body, actor)
        with mirror.db.write() as conn:
            store.ledger.put_note(conn, NoteFile(note.id, rel, origin, state.size, state.mtime_ns, digest))
            store.ledger.put_front(conn, note.id, ft)
            store.ledger.skip(conn, rel, None)
    return note


def _renamed(old: str, new: str) -> bool:
    """A note's file given another name outside noted (a move to another folder alone is the
    note's move to another notebook; one to or from the trash, its trashing)."""
    names = PurePosixPath(old).name, PurePosixPath(new).name
    return names[0] != names[1] and not in_trash(old) and not in_trash(new)


class FollowStopped(Interruption):
    """The process is closing the store: the batch under way is rolled back (the next start-up
    scan brings it in), rather than written into a database being closed."""


class Follower:
    """Applies changed paths (from the watcher or the scan) to the mirror."""

    def __init__(self, store: VaultCore) -> None:
        self.store = store
        self.stopping: Callable[[], bool] = lambda: False
        """Asked between two files of a batch (the watcher sets it)."""
        self.actor = ACTOR_OUTSIDE
        """Who the changes found are recorded as: ``outside``, or ``import`` during the first scan."""
        self.went: dict[str, NoteFile] = {}
        """The notes whose file went in the batch before: a new file of this batch may be one of
        them, renamed and edited (its deletion seen a batch earlier: ``_edited_moves``)."""

    def apply(self, paths: Iterable[str], *, progress: Progress | None = None) -> int:
        """Bring the notes at ``paths`` (files or folders, relative) up to date; how many changed."""
        vault, ledger = self.store.vault, self.store.ledger
        vault.forget_folders()  # a folder may have been swapped for a link since the last batch
        self.store.attachments.forget()
        present: set[str] = set()
        gone: dict[str, NoteFile] = {}
        gone_dirs: list[str] = []
        folders: list[str] = []
        walked: list[str] = []  # (listed in full: ``follow_folders``)
        for rel in paths:
            if has_bad_name(rel):  # (the scan lists it as skipped)
                continue
            if rel == ".gitignore":  # the notes it ignores now are followed no more: as if gone
                vault.reload_ignore()
                gone |= {r.note_id: r for r in ledger.all_notes() if r.present and not vault.follows(r.path)}
            full = vault.root / rel
            if full.is_dir() and not full.is_symlink():
                if not vault.skipped_dir(rel):
                    for folder, notes in vault.walk(rel):
                        present.update(notes)
                        walked += [folder] if folder else []
            elif full.is_file() or full.is_symlink():
                if vault.is_note_path(rel):
                    present.add(rel)
                    folders += [rel.rpartition("/")[0]] if "/" in rel else []  # its folder may be new
                elif in_trash(rel) and ledger.note_at(rel) is not None:  # a trashed note's file
                    present.add(rel)
            else:
                for row in ledger.notes_under(rel):
                    if row.present:
                        gone[row.note_id] = row
                if ledger.folder_at(rel) is not None:
                    gone_dirs.append(rel)
        left = follow_folders(self.store, folders + walked, self.actor, walked, present)
        return self._apply(present, gone, gone_dirs, progress, left)

    def _apply(
        self,
        present: set[str],
        gone: dict[str, NoteFile],
        gone_dirs: list[str],
        progress: Progress | None,
        left: set[str],
    ) -> int:
        changed = 0
        fresh: dict[str, tuple[FileText, ReadFile]] = {}
        mirror = self.store.mirror
        with mirror.batch(), deferred_keyword_index(mirror.db) if len(present) >= BULK else nullcontext():
            swaps = swapped(self.store, present, {**self._recent(), **gone})  # files in others' place
            for note_id in displaced(self.store, swaps):  # (``mv b.md a.md``: a's note is deleted)
                row = self.store.ledger.note(note_id)
                if row is not None:
                    set_aside(self.store, row, actor=self.actor)
            for done, rel in enumerate(sorted(present), start=1):
                if self.stopping():
                    raise FollowStopped
                changed += self._one(rel, gone, fresh, swaps.get(rel))
                if progress is not None:
                    progress(done, len(present))
            changed += self._edited_moves(fresh, gone)
            for row in gone.values():
                changed += self._gone(row)
            for rel in sorted(gone_dirs, reverse=True):
                folder_gone(self.store, rel, self.actor)
            for folder_id in left:  # (its folder went, and another took its name)
                trash_if_empty(self.store, folder_id, self.actor)
            self.went = gone
        return changed

    def _one(
        self,
        rel: str,
        gone: dict[str, NoteFile],
        fresh: dict[str, tuple[FileText, ReadFile]],
        swap: str | None,
    ) -> int:
        """Bring in the file ``rel`` (note ``swap``'s when it took that note's place: ``swaps``); a new
        file is left in ``fresh`` while notes went in this batch (it may be one of them, renamed and
        edited: ``_edited_moves``)."""
        store = self.store
        row = store.ledger.note_at(rel)
        for here in (row.note_id if row is not None else None, swap):
            gone.pop(here or "", None)  # its file is here (its folder moved: ``_folder_moved``)
        try:
            read = store.vault.read(rel)
            ft = FileText.parse(decode(read.data))
        except FileNotFoundError:
            if row is not None and row.present:
                gone[row.note_id] = row
            return 0
        except Skipped as why:
            with store.mirror.db.write() as conn:
                store.ledger.skip(conn, rel, why.reason)
            return 0
        digest = read.digest
        if (
            row is not None
            and in_trash(rel)
            and (digest != row.hash or not row.present or self._unlike(row, ft))
        ):
            # A trashed note's file edited there (or put back as noted wrote it, after an edit): its
            # text followed, its hash still what noted put there (``noted.store.vault.trash``).
            put_note(
                store, rel, ft, read.state, row.hash, actor=self.actor, note_id=row.note_id, origin=row.origin
            )
            return 1
        if row is not None and row.present and row.hash == digest:
            if (row.size, row.mtime_ns) != (read.state.size, read.state.mtime_ns):
                with store.mirror.db.write() as conn:
                    store.ledger.put_note(
                        conn, NoteFile(row.note_id, rel, row.origin, *_state(read.state), digest)
                    )
            return 0
        if swap is None and row is not None and not row.present and row.hash != digest:
            swap = self._moved(digest, gone)  # another note's file moved onto a gone note's path
            if swap is not None:
                set_aside(store, row)
        note_id = swap or (row.note_id if row is not None else self._moved(digest, gone))
        if note_id is None and (gone or self.went):
            fresh[rel] = (ft, read)
            return 0
        put_note(store, rel, ft, read.state, digest, actor=self._actor_of(rel, digest), note_id=note_id)
        return 1

    def _actor_of(self, rel: str, digest: str) -> str:
        """Who wrote the file: the one whose save a crash stopped before its row committed, when
        the file still holds what that save wrote (``MoveLog.recovered``), else ``actor``."""
        moves = self.store.vault.moves
        kept = moves.recovered.get(str(self.store.vault.root / rel)) if moves is not None else None
        return kept[1] if kept is not None and kept[0] == digest else self.actor

    def _unlike(self, row: NoteFile, ft: FileText) -> bool:
        """The mirror's note has another text than its file's ``ft``."""
        return any(note.body != ft.body for note in self.store.mirror.get_notes([row.note_id]))

    def _edited_moves(self, fresh: dict[str, tuple[FileText, ReadFile]], gone: dict[str, NoteFile]) -> int:
        """Bring in the new files, each as the gone note it unambiguously is (``renames``) or as new."""
        if not fresh:
            return 0
        notes = {n.id: n for n in self.store.mirror.get_notes([*gone, *self._recent()])}
        was = {note_id: note.body for note_id, note in notes.items()}
        matches = pair_texts({rel: ft.body for rel, (ft, _) in fresh.items()}, was)
        for rel, (ft, read) in sorted(fresh.items()):
            note_id = matches.get(rel)
            if note_id is not None:
                gone.pop(note_id, None)
            actor = self._actor_of(rel, read.digest)
            put_note(self.store, rel, ft, read.state, read.digest, actor=actor, note_id=note_id)
        return len(fresh)

    def _recent(self) -> dict[str, NoteFile]:
        """The notes whose file went in the batch before (``went``), their file still gone."""
        rows = (self.store.ledger.note(note_id) for note_id in self.went)
        return {r.note_id: r for r in rows if r is not None and not r.present and not in_trash(r.path)}

    def _moved(self, digest: str, gone: dict[str, NoteFile]) -> str | None:
        """The note whose file went and whose content was ``digest``: the file moved."""
        for row in self.store.ledger.notes_with_hash(digest):
            if row.note_id in gone or not file_at(self.store.vault.root / row.path):
                gone.pop(row.note_id, None)
                return row.note_id
        return None

    def _gone(self, row: NoteFile) -> int:
        """The file of a note went outside noted, or is one ``.gitignore`` ignores now (left as it is): the
        note goes to noted's trash, its row kept (or following its file in ``.trash/``: ``trashed_copy``)."""
        store = self.store
        if store.vault.follows(row.path) and file_at(store.vault.root / row.path):
            return 0
        if in_trash(row.path):  # deleted from .trash/: the note stays, a restore writes it from the mirror
            with store.mirror.db.write() as conn:
                store.ledger.put_note(conn, replace(row, size=-1, mtime_ns=0))
            return 1
        gone = not file_at(store.vault.root / row.path)  # (not a file .gitignore ignores now)
        if gone and (copy := copy_taking(store, row)) is not None:  # a save-as: its copy is this note
            set_aside(store, replace(copy, hash=""), actor=self.actor)  # (its content is this note's)
            read = store.vault.read(copy.path)
            put_note(store, copy.path, FileText.parse(decode(read.data)), read.state, read.digest,
                     actor=self.actor, note_id=row.note_id)  # fmt: skip
            return 1
        try:
            note = store.mirror.get_note(row.note_id)
        except NotFoundError:
            note = None
        trashed = note is not None and not note.is_trashed
        if trashed:
            store.mirror.trash_note(row.note_id, actor=self.actor)
        moved = trashed_copy(store, row) if note is not None else None
        with store.mirror.db.write() as conn:
            if moved is not None:  # nothing lost: a save based on the note as it was writes there
                rel, state = moved  # noted put no bytes there: no hash, so emptying the trash keeps it
                store.ledger.put_note(conn, NoteFile(row.note_id, rel, row.path, *_state(state), ""))
                return 1
            if trashed:  # A change made meanwhile: a save based on the note as it was is refused (a
                # conflict that keeps both), not written back from the mirror over what only the
                # file held (front-matter keys noted does not read).
                conn.execute(
                    "UPDATE notes SET updated_time = max(?, updated_time + 1) WHERE id = ?",
                    (now_ms(), row.note_id),
                )
            store.ledger.put_note(conn, NoteFile(row.note_id, row.path, row.path, -1, 0, row.hash))
        return 1

    def scan(self, *, progress: Progress | None = None) -> int:
        """Compare every file with the ledger (size and mtime, then the hash) and apply what changed.

        The first scan of a folder (``FIRST_SCAN_KEY`` pending, until one completes) brings its notes
        in as they were when noted first saw them, as ``import``: like ``noted import``, that is the
        person's own and not reviewed. Every later change is ``outside``."""
        first = self.store.mirror.get_meta(FIRST_SCAN_KEY) == "pending"
        self.actor = ACTOR_IMPORT if first else ACTOR_OUTSIDE
        try:
            changed = self._scan(progress)
        finally:
            self.actor = ACTOR_OUTSIDE
        if first:
            self.store.mirror.set_meta(FIRST_SCAN_KEY, "done")
        return changed

    def _scan(self, progress: Progress | None) -> int:
        store = self.store
        store.vault.forget_folders()
        store.attachments.forget()
        store.keep_fronts()  # (before the changed files are followed: those are kept as they are)
        known = {row.path: row for row in store.ledger.all_notes()}
        changed: set[str] = set()
        seen: set[str] = set()
        fresh: set[str] = set()  # new folders (whatever their name: ``x.md/`` too)
        for folder, notes in store.vault.walk():
            if folder and store.ledger.folder_at(folder) is None:
                fresh.add(folder)
            for rel in notes:
                seen.add(rel)
                row, state = known.get(rel), store.vault.state(rel)
                if row is None or state is None or (row.size, row.mtime_ns) != (state.size, state.mtime_ns):
                    changed.add(rel)
        changed.update(changed_in_trash(store.vault, known.values()))
        gone = {
            r.note_id: r for r in known.values() if r.path not in seen and r.present and not in_trash(r.path)
        }
        gone_dirs = [p for p in store.ledger.all_folders() if p and not in_trash(p) and p not in fresh]
        gone_dirs = [p for p in gone_dirs if not store.vault.is_read_dir(p)]
        whole = store.ledger.all_folders() if changed or gone else {}  # (no file moved: no folder did)
        left = follow_folders(store, fresh, self.actor, whole, seen)
        with store.mirror.db.write() as conn:  # a skipped file since removed is no longer listed
            for path, _ in store.ledger.skipped():
                if path not in seen and path not in store.vault.bad_names:
                    store.ledger.skip(conn, path, None)
            for path, why in store.vault.bad_names.items():
                store.ledger.skip(conn, path, why)
        return self._apply(changed, gone, gone_dirs, progress, left)


def _state(state: FileState) -> tuple[int, int]:
    return state.size, state.mtime_ns

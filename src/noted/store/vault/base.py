"""What the parts of the Markdown-folder store share (``VaultCore``): the folder, the mirror, the
ledger, the follower and the attachments, folders on disk, reading a note's file, and putting each
note's file where the mirror says it is."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import PurePosixPath
from typing import TypeVar

from noted.errors import Interruption, InvalidInputError, NotedError, NotFoundError
from noted.models import Note
from noted.store.sqlite import SqliteStore
from noted.store.sqlite.db import Database
from noted.store.transfer.common import TODO_KEYS, safe_name
from noted.store.vault.attachments import Attachments
from noted.store.vault.files import (
    ABSENT,
    TRASH,
    FileChanged,
    FileState,
    ReadFile,
    Vault,
    content_hash,
    decode,
)
from noted.store.vault.follow import Follower, put_note
from noted.store.vault.ledger import Ledger, NoteFile
from noted.store.vault.rebase import rebased
from noted.store.vault.text import SOURCE_KEYS, FileText, inline_tags, yaml_time
from noted.store.vault.trash import in_trash, trashed_copy

T = TypeVar("T")
TRIES = 5
"""How many times a write runs on a file that changes outside noted each time between read and write."""


class VaultCore:
    """The state and helpers every part of ``VaultStore`` (``Folders``, ``Notes``, ``Tags``,
    ``Resources``) holds in common, and the follower and the attachments work on."""

    def __init__(self, vault: Vault, mirror: SqliteStore) -> None:
        self.vault = vault
        self.mirror = mirror
        self.ledger = Ledger(mirror.db)
        self.follower = Follower(self)
        self.attachments = Attachments(self)
        self._caught = threading.local()
        """``paths``: the files this thread's batch caught up with (``keeping_catch_ups``)."""

    @property
    def db(self) -> Database:
        """The mirror's database (keyword and semantic search, the indexer, chats)."""
        return self.mirror.db

    @property
    def root_folder_id(self) -> str | None:
        """The notebook of the files at the folder's root (made when the first one is seen)."""
        return self.ledger.folder_at("")

    def folder_for(self, rel_dir: str, actor: str) -> str:
        """The notebook of the folder ``rel_dir`` (``""``: the vault's root), made when missing."""
        folder_id = self.ledger.folder_at(rel_dir)
        if folder_id is not None:
            if self.mirror.get_folder(folder_id).is_trashed:
                self.mirror.restore_folder(folder_id, actor=actor)
            return folder_id
        parent_dir, _, name = rel_dir.rpartition("/")
        parent = self.folder_for(parent_dir, actor) if parent_dir else ""
        name = name or self.vault.root.name or "Notes"
        with self.mirror.batch():
            folder = self.mirror.create_folder(name, parent_id=parent, actor=actor)
            with self.db.write() as conn:
                self.ledger.put_folder(conn, folder.id, rel_dir)
        return folder.id

    def folder_dir(self, folder_id: str) -> str:
        """The folder of notebook ``folder_id``, made (from its title) when it has none yet."""
        path = self.ledger.folder_path(folder_id)
        if path is not None:
            return path
        folder = self.mirror.get_folder(folder_id)
        parent = self.folder_dir(folder.parent_id) if folder.parent_id else ""
        path = self.vault.free_name(parent, safe_name(folder.title), "")
        self.vault.make_dir(self.vault.path(path))
        with self.db.write() as conn:
            self.ledger.put_folder(conn, folder_id, path)
        return path

    def folder_rel(self, folder_id: str) -> str:
        """The folder of notebook ``folder_id`` (``""``: the root), or where ``folder_dir`` would
        make it; nothing is made."""
        path = self.ledger.folder_path(folder_id) if folder_id else ""
        if path is not None:
            return path
        folder = self.mirror.get_folder(folder_id)
        parent = self.folder_rel(folder.parent_id) if folder.parent_id else ""
        return f"{parent}/{safe_name(folder.title)}".lstrip("/")

    def put(
        self,
        rel: str,
        data: bytes,
        state: FileState | None,
        *,
        actor: str,
        note_id: str | None = None,
        new_id: str | None = None,
        session: str | None = None,
        origin: str = "",
    ) -> Note:
        """The mirror made to match the file ``rel`` that noted just wrote as ``data``."""
        if state is None:
            raise NotFoundError(f'"{rel}" went from the Markdown folder while noted was writing it')
        ft, digest = FileText.parse(decode(data)), content_hash(data)
        return put_note(
            self,
            rel,
            ft,
            state,
            digest,
            actor=actor,
            note_id=note_id,
            new_id=new_id,
            session=session,
            origin=origin,
        )

    def catch_up(self, note_id: str) -> Note:
        """The note, after recording (as ``outside``) a change its file had that noted has not seen.

        A file gone from its path may have been renamed: the whole folder is scanned then, so the
        note follows its file (by content) rather than being written back where it was.
        """
        row = self.row(note_id)
        state = self.vault.state(row.path)
        caught: list[str] | None = getattr(self._caught, "paths", None)
        caught = [] if caught is None else caught
        if row.present and state is None:
            caught.append("")  # (the whole folder)
            self.follower.scan()
        elif state is not None and (state.size, state.mtime_ns) != (row.size, row.mtime_ns):
            caught.append(row.path)
            self.follower.apply([row.path])  # (a file come back to its path brings its note back)
        return self.mirror.get_note(note_id)

    @contextlib.contextmanager
    def keeping_catch_ups(self) -> Iterator[None]:
        """Around a batch (``VaultStore.batch``): when it fails, the outside changes its writes
        caught up with are rolled back with it, so they are followed again once it is undone. They
        are in the files either way, and a refused write (a stale base: the conflict) must not
        take the other side's version out of the history and the review."""
        if getattr(self._caught, "paths", None) is not None:
            yield  # (an inner batch: the outer one keeps them)
            return
        caught: list[str] = []
        self._caught.paths = caught
        try:
            yield
        except Exception as exc:
            self._caught.paths = None
            if caught and not isinstance(exc, Interruption):
                with contextlib.suppress(NotedError, OSError):
                    if "" in caught:
                        self.follower.scan()
                    else:
                        self.follower.apply(caught)
            raise
        finally:
            self._caught.paths = None

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """One mirror transaction whose file changes are written down (``Vault.journal``): put back
        when it fails, and after a crash at the next start, as its rows are (``VaultStore.batch``,
        and every part's change of files, whoever calls it: a revert calls the store's own)."""
        with self.keeping_catch_ups(), self.mirror.batch(), self.vault.journal():
            yield

    def rewrite(self, note_id: str, write: Callable[[Note], T]) -> T:
        """``write(note)``, the note caught up with its file first. A file changed outside noted
        between ``write``'s read and its write (``FileChanged``) is caught up with again (the other
        program's text recorded as ``outside``) and ``write`` runs on it: neither side is lost. A
        file that changes every time raises ``FileChanged`` (a ``ConflictError``), nothing written."""
        for _ in range(TRIES - 1):
            with contextlib.suppress(FileChanged):
                return write(self.catch_up(note_id))
        return write(self.catch_up(note_id))

    def row(self, note_id: str) -> NoteFile:
        row = self.ledger.note(note_id)
        if row is None:
            self.mirror.get_note(note_id)  # NotFoundError names the id
            raise NotFoundError(f'note "{note_id}" has no file in the Markdown folder')
        return row

    def write_row(self, note: Note) -> NoteFile:
        """Where a write of ``note`` goes: its file's row, or, its file gone outside noted while the
        note is in the trash, a path in ``.trash/``: the note stays in the trash, as on every
        backend, rather than its file coming back to its notebook."""
        row = self.row(note.id)
        if note.is_trashed and not row.present and not in_trash(row.path):
            row = replace(row, path=self.trash_name(row.path), origin=row.origin or row.path)
        return row

    def current(self, row: NoteFile, note: Note) -> tuple[FileText, ReadFile | None]:
        """The file's text and the file as read (for ``Vault.write``'s ``unchanged``); or, its file
        gone, the file as noted last saw it (``Ledger.front``: front matter byte for byte) with the
        mirror's body, and only what noted changed since (tags, to-do, source, title) set, and None."""
        if row.present:
            read = self.vault.read(row.path)
            return FileText.parse(decode(read.data)), read
        was = self.ledger.front(note.id) or FileText(None, "", "")
        ft = replace(was, body=note.body)
        tags = [t.title for t in self.mirror.note_tags(note.id)]
        is_todo, due, done = ft.todo()
        try:
            if {t.casefold() for t in tags} != {t.casefold() for t in ft.tags()}:
                inline = {m.group(1).casefold() for m in inline_tags(ft.body)}
                ft = ft.with_tags([t for t in tags if t.casefold() not in inline])
            ft = with_todo(
                ft,
                _changed(is_todo, note.is_todo),
                _changed(due, note.todo_due),
                _changed(done, note.todo_completed),
                _changed(ft.source_url(), note.source_url),
            )
        except InvalidInputError:  # front matter noted cannot read: kept as it was, never dropped
            pass
        return _titled(ft, note.title, row.path), None

    def keep_fronts(self) -> None:
        """``Ledger.front`` kept for each note an older sidecar has none for, from its file when that
        is still as noted last saw it (read once; a changed file is kept as the scan follows it)."""
        kept = []
        for row in self.ledger.notes_without_front():
            try:
                read = self.vault.read(row.path)
                if read.digest == row.hash:
                    kept.append((row.note_id, FileText.parse(decode(read.data))))
            except (OSError, InvalidInputError):  # gone, or not a text noted reads: nothing to keep
                continue
        with self.db.write() as conn:
            for note_id, ft in kept:
                self.ledger.put_front(conn, note_id, ft)

    def trash_name(self, rel: str) -> str:
        """Where the file ``rel`` goes in ``.trash/``: its path there, ``NAME 2.md``… when taken."""
        return self.vault.free_name(f"{TRASH}/{rel}".rpartition("/")[0], PurePosixPath(rel).stem)

    def place(self, note_ids: list[str], *, actor: str) -> None:
        """Put each note's file where the mirror says it is: in ``.trash/`` while trashed, else in
        its notebook's folder (written back from the mirror when its file went outside noted; its
        relative links made to lead from there when that folder moved meanwhile)."""
        for note_id in note_ids:
            row, note = self.ledger.note(note_id), self.mirror.get_note(note_id)
            if row is None:
                continue
            if note.is_trashed and row.present and not in_trash(row.path):
                self._relocate(row, self.trash_name(row.path), origin=row.path)
            elif not note.is_trashed and (in_trash(row.path) or not row.present):
                if row.present:  # an edit made in .trash/ is the note's text before it leaves
                    note = self.catch_up(note_id)
                    row = self.row(note_id)
                found = None if row.present else trashed_copy(self, row)
                if found is not None:  # its file is in .trash/ after all: moved back, not written twice
                    row = NoteFile(
                        row.note_id, found[0], row.origin, found[1].size, found[1].mtime_ns, row.hash
                    )
                folder = self.folder_dir(note.parent_id)
                stem = PurePosixPath(row.origin or row.path).stem
                wanted = f"{folder}/{stem}.md".lstrip("/")
                back = wanted == row.path and not row.present and not (self.vault.root / wanted).is_dir()
                target = wanted if back else self.vault.free_name(folder, stem)
                if not row.present:
                    self._rewrite(row, note, target)
                else:
                    self._relocate(row, target, origin="")
                    self._keep_title(note, target)
                    self.vault.prune_trash(row.path)
                self.rebase(note_id, row.origin or row.path, actor=actor)

    def rebase(self, note_id: str, written_at: str, *, actor: str, moving: str = "") -> None:
        """The note's relative links, written from ``written_at``, made to lead from where its file
        is now (``noted.store.vault.rebase.rebased``; ``moving``: a folder that moved along with it)."""
        row = self.row(note_id)
        if not row.present or written_at.rpartition("/")[0] == row.path.rpartition("/")[0]:
            return
        self.relink(note_id, lambda body, at: rebased(self.vault, body, written_at, at, moving=moving), actor)

    def relink(
        self, note_id: str, change: Callable[[str, str], str], actor: str, session: str | None = None
    ) -> None:
        """The note's file written again with its body ``change(body, path)``, when that differs
        (the file caught up with first, as every write: ``rewrite``)."""

        def write(_: Note) -> None:
            row = self.row(note_id)
            read = self.vault.read(row.path)
            ft = FileText.parse(decode(read.data))
            body = change(ft.body, row.path)
            if body != ft.body:
                data = ft.with_body(body).render().encode("utf-8")
                state = self.vault.write(row.path, data, unchanged=read.state)
                self.put(
                    row.path, data, state, actor=actor, note_id=note_id, origin=row.origin, session=session
                )

        self.rewrite(note_id, write)

    def _relocate(self, row: NoteFile, target: str, *, origin: str) -> None:
        """Move the note's file; a file changed since noted last read it, or leaving ``.trash/``
        (where its hash is what noted put there: ``trash``), is recorded with no time, so it is
        read again (its text followed, its hash taken) from its new place."""
        before = self.vault.state(row.path)
        self.vault.move(row.path, target)
        state = self.vault.state(target)
        known = before is not None and (before.size, before.mtime_ns) == (row.size, row.mtime_ns)
        known = known and not (in_trash(row.path) and not in_trash(target))
        size, mtime = (state.size, state.mtime_ns if known else 0) if state else (-1, 0)
        with self.db.write() as conn:
            self.ledger.put_note(conn, NoteFile(row.note_id, target, origin, size, mtime, row.hash))

    def _rewrite(self, row: NoteFile, note: Note, target: str) -> None:
        """Write the note's file at ``target``: its file there (``row.path``), or one from the mirror
        where there is none (another program making one meanwhile: ``FileChanged``)."""
        ft, read = self.current(row, note)
        data = _titled(ft, note.title, target).render().encode("utf-8")
        state = self.vault.write(target, data, unchanged=read.state if read is not None else ABSENT)
        with self.db.write() as conn:
            self.ledger.put_note(
                conn, NoteFile(row.note_id, target, "", state.size, state.mtime_ns, content_hash(data))
            )
            self.ledger.put_front(conn, row.note_id, FileText.parse(decode(data)))

    def _keep_title(self, note: Note, target: str) -> None:
        """A note restored onto a taken name (``NAME 2.md``) keeps its title: into the file it goes."""
        row = self.row(note.id)
        ft = FileText.parse(decode(self.vault.read(target).data))
        if ft.title(PurePosixPath(target).stem) != note.title:
            self._rewrite(row, note, target)


def _changed(was: T, now: T) -> T | None:
    """``now`` when it differs from what the file said (``was``), else None (left as the file had it)."""
    return None if now == was else now


def _titled(ft: FileText, title: str, target: str) -> FileText:
    """``ft`` titled ``title`` in the file ``target``; as it is when its front matter is unreadable."""
    try:
        return ft.titled(title, PurePosixPath(target).stem)
    except InvalidInputError:
        return ft


class VaultPart:
    """A part of ``VaultStore``: the shared ``core``, and the folder, mirror, ledger and attachments
    it holds, at hand."""

    def __init__(self, core: VaultCore) -> None:
        self.core = core
        self.vault = core.vault
        self.mirror = core.mirror
        self.ledger = core.ledger
        self.attachments = core.attachments


def with_todo(
    ft: FileText, is_todo: bool | None, due: int | None, done: int | None, source: str | None
) -> FileText:
    """The to-do keys (and ``source``) set where given; a false or zero value removes the key."""
    if is_todo is not None:
        ft = ft.with_key("todo", True if is_todo else None, TODO_KEYS["todo"])
    if due is not None:
        ft = ft.with_key("due", yaml_time(due) if due else None, TODO_KEYS["due"])
    if done is not None:
        ft = ft.with_key(
            "done", (True if done == 1 else yaml_time(done)) if done else None, TODO_KEYS["done"]
        )
    if source is not None:
        ft = ft.with_key("source", source or None, SOURCE_KEYS)
    return ft

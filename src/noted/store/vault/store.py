"""The Markdown-folder store: a folder of ``.md`` files is the notebook; a sidecar mirrors it.

    store = VaultStore.open(Path("~/notes").expanduser(), profile.root)
    store.follower.scan()          # what changed while noted was not running (open() does it)
    store.db                       # the mirror: FTS5 keyword index, vectors, chats, lease, feed

The files are the truth. The sidecar (``vault.db`` in the profile) is a full noted database of the
embedded store's schema, kept as a mirror of the files: the ids, the revisions with their actors,
the change feed, the keyword and vector indexes and the chats live there, so search, the indexer,
history, chats and MCP run on it unchanged. Deleting it loses nothing of the notes.

Every write goes to the file first (``Vault.write``: a temporary file beside it, fsync, rename),
then to the mirror, inside one mirror transaction that holds SQLite's write lock from its start: two
noted processes on one folder queue, and the watcher's view of a file noted is writing waits for
the write's row, so noted's own writes are never taken for outside ones. A save based on a version
the file no longer has first records the file's version (actor ``outside``), then raises
``ConflictError``: the front ends' conflict view follows as on the other backends.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath

from noted.errors import ConflictError, InvalidInputError, NotFoundError, ProfileError
from noted.models import (
    Change,
    ChangePage,
    Folder,
    Note,
    NoteDraft,
    NoteMeta,
    NotePatch,
    Revision,
    Tag,
)
from noted.store.protocol import Capabilities, NoteOrder
from noted.store.rules import check_body, clean_title
from noted.store.sqlite import SqliteStore
from noted.store.sqlite.db import Database
from noted.store.sync import SyncConflicts, Syncing
from noted.store.transfer.common import safe_name
from noted.store.vault.files import TRASH, FileState, Vault, content_hash, decode
from noted.store.vault.follow import Follower, Progress, in_trash, put_note, sync_tags
from noted.store.vault.ledger import Ledger, NoteFile
from noted.store.vault.resources import ResourceOps
from noted.store.vault.text import SOURCE_KEYS, TODO_KEYS, FileText, front_tags, yaml_time
from noted.store.vault.watch import Watcher

SIDECAR_NAME = "vault.db"
ROOT_KEY = "vault.root"


class VaultStore(ResourceOps):
    """A ``Store`` over a folder of Markdown files, mirrored in a sidecar database."""

    capabilities = Capabilities(local_sql=True)

    def __init__(self, vault: Vault, mirror: SqliteStore) -> None:
        self.vault = vault
        self.mirror = mirror
        self.ledger = Ledger(mirror.db)
        self.follower = Follower(self)
        self._watcher: Watcher | None = None

    @classmethod
    def open(cls, root: Path, profile_dir: Path, *, progress: Progress | None = None) -> VaultStore:
        """The store over the folder ``root``, its sidecar in ``profile_dir``, scanned for changes.

        Raises:
            ProfileError: the folder is missing, or the profile already follows another folder.
        """
        if not root.is_dir():
            raise ProfileError(f"the Markdown folder {root} does not exist", hint="check the path")
        mirror = SqliteStore.open(profile_dir / SIDECAR_NAME, profile_dir / "vault-resources")
        try:
            known = mirror.get_meta(ROOT_KEY)
            resolved = str(root.resolve())
            if known not in (None, resolved):
                raise ProfileError(
                    f"this profile follows the Markdown folder {known}, not {resolved}",
                    hint="use one profile per folder: noted --profile NAME --vault DIR",
                )
            mirror.set_meta(ROOT_KEY, resolved)
            store = cls(Vault(root), mirror)
            store.follower.scan(progress=progress)
        except BaseException:
            mirror.close()
            raise
        return store

    def __repr__(self) -> str:
        return f"VaultStore(root={str(self.vault.root)!r})"

    @property
    def db(self) -> Database:
        """The mirror's database (keyword and semantic search, the indexer, chats)."""
        return self.mirror.db

    @property
    def sync(self) -> Syncing | None:
        """None: the folder is synced by whatever the person uses (git, Syncthing), not by noted."""
        return None

    @property
    def conflicts(self) -> SyncConflicts | None:
        return None

    def start_watching(self) -> Watcher:
        """Follow the folder's changes in a background thread until ``close`` (the app, MCP)."""
        if self._watcher is None:
            self._watcher = Watcher(self).start()
        return self._watcher

    def close(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None
        self.mirror.close()

    def batch(self) -> contextlib.AbstractContextManager[None]:
        return self.mirror.batch()

    def get_meta(self, key: str) -> str | None:
        return self.mirror.get_meta(key)

    def set_meta(self, key: str, value: str) -> None:
        self.mirror.set_meta(key, value)

    # Folders ---------------------------------------------------------------------------------------
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
        self.vault.path(path).mkdir(parents=True, exist_ok=True)
        with self.db.write() as conn:
            self.ledger.put_folder(conn, folder_id, path)
        return path

    def list_folders(self, *, include_trashed: bool = False) -> list[Folder]:
        return self.mirror.list_folders(include_trashed=include_trashed)

    def get_folder(self, folder_id: str) -> Folder:
        return self.mirror.get_folder(folder_id)

    def folder_note_counts(self) -> dict[str, int]:
        return self.mirror.folder_note_counts()

    def create_folder(self, title: str, *, parent_id: str = "", actor: str) -> Folder:
        name = safe_name(clean_title(title, "notebook title"), "")
        if not name:
            raise InvalidInputError("a notebook needs a title")
        parent_id = "" if parent_id == self.root_folder_id else parent_id
        with self.mirror.batch():
            if parent_id and self.mirror.get_folder(parent_id).is_trashed:
                raise InvalidInputError("that notebook is in the trash; restore it first")
            parent_dir = self.folder_dir(parent_id) if parent_id else ""
            path = self.vault.free_name(parent_dir, name, "")
            folder = self.mirror.create_folder(PurePosixPath(path).name, parent_id=parent_id, actor=actor)
            with self.db.write() as conn:
                self.ledger.put_folder(conn, folder.id, path)
            self.vault.path(path).mkdir(parents=True)
        return folder

    def update_folder(
        self, folder_id: str, *, title: str | None = None, parent_id: str | None = None, actor: str
    ) -> Folder:
        if folder_id == self.root_folder_id:
            raise InvalidInputError("the Markdown folder's own notebook cannot be renamed or moved")
        parent_id = "" if parent_id == self.root_folder_id else parent_id
        with self.mirror.batch():
            old = self.folder_dir(folder_id)
            folder = self.mirror.update_folder(folder_id, title=title, parent_id=parent_id, actor=actor)
            parent_dir = self.folder_dir(folder.parent_id) if folder.parent_id else ""
            name = safe_name(folder.title, "")
            new = f"{parent_dir}/{name}".lstrip("/")
            if new != old:
                if new.casefold() != old.casefold():
                    new = self.vault.free_name(parent_dir, name, "")
                with self.db.write() as conn:
                    self.ledger.move_prefix(conn, old, new)
                    self.ledger.put_folder(conn, folder_id, new)
                self.vault.move(old, new)
                if PurePosixPath(new).name != folder.title:
                    folder = self.mirror.update_folder(folder_id, title=PurePosixPath(new).name, actor=actor)
        return folder

    def _subtree(self, folder_id: str) -> list[str]:
        folders = self.mirror.list_folders(include_trashed=True)
        ids, grew = {folder_id}, True
        while grew:
            more = {f.id for f in folders if f.parent_id in ids} - ids
            ids |= more
            grew = bool(more)
        return list(ids)

    def _notes_in(self, folder_ids: list[str]) -> list[str]:
        return [
            m.id
            for fid in folder_ids
            for trashed in (False, True)
            for m in self.mirror.list_notes(folder_id=fid, trashed=trashed, order=NoteOrder.ID)
        ]

    def trash_folder(self, folder_id: str, *, actor: str) -> None:
        """Every note inside goes to ``.trash/`` (keeping its path there); emptied folders are removed."""
        if folder_id == self.root_folder_id:
            raise InvalidInputError("the Markdown folder's own notebook cannot be trashed")
        with self.mirror.batch():
            ids = self._subtree(folder_id)
            self.mirror.trash_folder(folder_id, actor=actor)
            self._place(self._notes_in(ids))
            for path in sorted((self.ledger.folder_path(i) or "" for i in ids), reverse=True):
                if path:
                    with contextlib.suppress(OSError):
                        self.vault.path(path).rmdir()

    def restore_folder(self, folder_id: str, *, actor: str) -> None:
        with self.mirror.batch():
            self.mirror.restore_folder(folder_id, actor=actor)
            ids = self._subtree(folder_id)
            for fid in ids:
                if not self.mirror.get_folder(fid).is_trashed:
                    self.vault.path(self.folder_dir(fid)).mkdir(parents=True, exist_ok=True)
            self._place(self._notes_in(ids))

    # Notes: reads ----------------------------------------------------------------------------------
    def get_note(self, note_id: str) -> Note:
        return self.mirror.get_note(note_id)

    def get_notes(self, note_ids: Sequence[str]) -> list[Note]:
        return self.mirror.get_notes(note_ids)

    def list_notes(
        self,
        *,
        folder_id: str | None = None,
        tag_id: str | None = None,
        trashed: bool = False,
        todo_only: bool = False,
        order: NoteOrder = NoteOrder.UPDATED,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[NoteMeta]:
        return self.mirror.list_notes(
            folder_id=folder_id, tag_id=tag_id, trashed=trashed, todo_only=todo_only,
            order=order, limit=limit, offset=offset,
        )  # fmt: skip

    def count_notes(
        self,
        *,
        folder_id: str | None = None,
        tag_id: str | None = None,
        trashed: bool = False,
        todo_only: bool = False,
    ) -> int:
        return self.mirror.count_notes(
            folder_id=folder_id, tag_id=tag_id, trashed=trashed, todo_only=todo_only
        )

    def note_paths(self) -> dict[str, str]:
        return {r.note_id: r.path for r in self.ledger.all_notes() if r.hash and not in_trash(r.path)}

    def note_path(self, note_id: str) -> Path:
        """The note's file (in ``.trash/`` while it is trashed)."""
        row = self.ledger.note(note_id)
        if row is None:
            raise NotFoundError(f'no note with id "{note_id}"')
        return self.vault.root / row.path

    # Notes: writes ---------------------------------------------------------------------------------
    def create_note(self, draft: NoteDraft, *, actor: str) -> Note:
        title = clean_title(draft.title) or "Untitled"
        ft = FileText.parse(check_body(draft.body))
        with self.mirror.batch():
            parent = self.mirror.get_folder(draft.parent_id) if draft.parent_id else None
            if parent is None:
                raise InvalidInputError("a note needs a notebook")
            if parent.is_trashed:
                raise InvalidInputError(f'notebook "{parent.title}" is in the trash; restore it first')
            if draft.id is not None and self.mirror.get_notes([draft.id]):
                raise InvalidInputError(f'a note with id "{draft.id}" exists already')
            rel = self.vault.free_name(self.folder_dir(parent.id), safe_name(title))
            if ft.title(PurePosixPath(rel).stem) != title:
                ft, _ = ft.with_title(title, PurePosixPath(rel).stem)
            ft = _with_todo(ft, draft.is_todo, draft.todo_due, draft.todo_completed, draft.source_url)
            if draft.tags:
                ft = ft.with_tags(list(dict.fromkeys(draft.tags)))
            if draft.user_created_time:
                ft = ft.with_key("created", yaml_time(draft.user_created_time), ("created",))
            data = ft.render().encode("utf-8")
            state = self.vault.write(rel, data)
            return self._put(rel, data, state, actor=actor, new_id=draft.id)

    def _put(
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

    def update_note(
        self,
        note_id: str,
        patch: NotePatch,
        *,
        actor: str,
        base_updated_time: int | None = None,
        session: str | None = None,
    ) -> Note:
        conflict: ConflictError | None = None
        with self.mirror.batch():
            old = self.catch_up(note_id)
            if base_updated_time is not None and base_updated_time != old.updated_time:
                conflict = ConflictError(
                    f'note "{old.title}" changed since it was read; it was saved again meanwhile',
                    current_updated_time=old.updated_time,
                )
            else:
                return self._write_patch(old, patch, actor, session)
        raise conflict

    def catch_up(self, note_id: str) -> Note:
        """The note, after recording (as ``outside``) a change its file had that noted has not seen."""
        row = self._row(note_id)
        state = self.vault.state(row.path)
        if row.hash and (state is None or (state.size, state.mtime_ns) != (row.size, row.mtime_ns)):
            self.follower.apply([row.path])
        return self.mirror.get_note(note_id)

    def _row(self, note_id: str) -> NoteFile:
        row = self.ledger.note(note_id)
        if row is None:
            self.mirror.get_note(note_id)  # NotFoundError names the id
            raise NotFoundError(f'note "{note_id}" has no file in the Markdown folder')
        return row

    def _current_text(self, row: NoteFile, note: Note) -> FileText:
        """The file's text, or (its file gone) one rebuilt from the mirror."""
        if row.hash:
            return FileText.parse(decode(self.vault.read(row.path).data))
        plain = FileText(None, "", note.body)
        inline = {t.casefold() for t in plain.tags()}
        tags = [t.title for t in self.mirror.note_tags(note.id) if t.title.casefold() not in inline]
        ft = _with_todo(plain, note.is_todo, note.todo_due, note.todo_completed, note.source_url)
        return ft.with_tags(tags) if tags else ft

    def _write_patch(self, old: Note, patch: NotePatch, actor: str, session: str | None) -> Note:
        row = self._row(old.id)
        ft = self._current_text(row, old)
        body = ft.body if patch.body is None else check_body(patch.body)
        if patch.prepend is not None:
            body = patch.prepend + ("\n" if body and not patch.prepend.endswith("\n") else "") + body
        if patch.append is not None:
            body = body + ("\n" if body and not body.endswith("\n") else "") + patch.append
        ft = ft.with_body(check_body(body))
        rel, rename = row.path, False
        stem = PurePosixPath(rel).stem
        if patch.title is not None and clean_title(patch.title) != ft.title(stem):
            ft, rename = ft.with_title(clean_title(patch.title) or "Untitled", stem)
        ft = _with_todo(ft, patch.is_todo, patch.todo_due, patch.todo_completed, patch.source_url)
        target = rel
        if not in_trash(rel):
            folder = (
                self.folder_dir(patch.parent_id) if patch.parent_id not in (None, old.parent_id) else None
            )
            if rename or folder is not None:
                here = rel.rpartition("/")[0] if folder is None else folder
                name = safe_name(clean_title(patch.title or old.title)) if rename else stem
                target = self.vault.free_name(here, name) if f"{here}/{name}.md".lstrip("/") != rel else rel
        data = ft.render().encode("utf-8")
        state = self.vault.state(rel)
        if not row.hash or data != self.vault.read(rel).data:
            state = self.vault.write(rel, data)
        if target != rel:
            self.vault.move(rel, target)
            state = self.vault.state(target)
        return self._put(target, data, state, actor=actor, note_id=old.id, session=session, origin=row.origin)

    def restore_revision(self, revision_id: int, *, actor: str) -> Note:
        revision = self.mirror.get_revision(revision_id)
        return self.update_note(
            revision.note_id, NotePatch(title=revision.title, body=revision.body), actor=actor
        )

    def trash_note(self, note_id: str, *, actor: str) -> None:
        with self.mirror.batch():
            self.catch_up(note_id)
            self.mirror.trash_note(note_id, actor=actor)
            self._place([note_id])

    def restore_note(self, note_id: str, *, actor: str) -> Note:
        with self.mirror.batch():
            self.mirror.restore_note(note_id, actor=actor)
            self._place([note_id])
            return self.mirror.get_note(note_id)

    def _place(self, note_ids: list[str]) -> None:
        """Put each note's file where the mirror says it is: in ``.trash/`` while trashed, else in
        its notebook's folder (written back from the mirror when its file went outside noted)."""
        for note_id in note_ids:
            row, note = self.ledger.note(note_id), self.mirror.get_note(note_id)
            if row is None:
                continue
            if note.is_trashed and row.hash and not in_trash(row.path):
                target = self.vault.free_name(
                    f"{TRASH}/{row.path}".rpartition("/")[0], PurePosixPath(row.path).stem
                )
                self._relocate(row, target, origin=row.path)
            elif not note.is_trashed and (in_trash(row.path) or not row.hash):
                folder = self.folder_dir(note.parent_id)
                stem = PurePosixPath(row.origin or row.path).stem
                wanted = f"{folder}/{stem}.md".lstrip("/")
                target = wanted if wanted == row.path and not row.hash else self.vault.free_name(folder, stem)
                if not row.hash:
                    self._rewrite(row, note, target)
                else:
                    self._relocate(row, target, origin="")

    def _relocate(self, row: NoteFile, target: str, *, origin: str) -> None:
        self.vault.move(row.path, target)
        state = self.vault.state(target)
        size, mtime = (state.size, state.mtime_ns) if state else (-1, 0)
        with self.db.write() as conn:
            self.ledger.put_note(conn, NoteFile(row.note_id, target, origin, size, mtime, row.hash))

    def _rewrite(self, row: NoteFile, note: Note, target: str) -> None:
        data = self._current_text(row, note).render().encode("utf-8")
        state = self.vault.write(target, data)
        with self.db.write() as conn:
            self.ledger.put_note(
                conn, NoteFile(row.note_id, target, "", state.size, state.mtime_ns, content_hash(data))
            )

    def empty_trash(self, *, actor: str) -> int:
        """Delete the files noted moved to ``.trash/`` (unchanged since), then the notes for good."""
        with self.mirror.batch():
            for meta in self.mirror.list_notes(trashed=True, order=NoteOrder.ID):
                row = self.ledger.note(meta.id)
                if row is None:
                    continue
                if row.hash and in_trash(row.path):
                    with contextlib.suppress(FileNotFoundError, Exception):
                        if self.vault.read(row.path).digest == row.hash:
                            self.vault.path(row.path).unlink()
                with self.db.write() as conn:
                    self.ledger.drop_note(conn, meta.id)
            return self.mirror.empty_trash(actor=actor)

    # Tags ------------------------------------------------------------------------------------------
    def list_tags(self, *, with_notes_only: bool = False) -> list[Tag]:
        return self.mirror.list_tags(with_notes_only=with_notes_only)

    def get_tag(self, tag_id: str) -> Tag:
        return self.mirror.get_tag(tag_id)

    def find_tag(self, title: str) -> Tag | None:
        return self.mirror.find_tag(title)

    def create_tag(self, title: str, *, actor: str) -> Tag:
        """A tag with no notes lives in the mirror only, until a note carries it."""
        return self.mirror.create_tag(title, actor=actor)

    def note_tags(self, note_id: str) -> list[Tag]:
        return self.mirror.note_tags(note_id)

    def note_tag_titles(self, note_ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        return self.mirror.note_tag_titles(note_ids)

    def tag_note(self, note_id: str, titles: Sequence[str], *, actor: str) -> list[Tag]:
        """Tags missing from the note are added to its front-matter ``tags``."""
        titles = [clean_title(t, "tag") for t in titles]
        if any(not t for t in titles):
            raise InvalidInputError("a tag needs a title")
        return self._retag(note_id, actor, lambda ft: _add_tags(ft, titles), want=titles)

    def untag_note(self, note_id: str, titles: Sequence[str], *, actor: str) -> list[Tag]:
        """Removed from front-matter ``tags`` and as inline ``#tags`` in the text."""
        return self._retag(note_id, actor, lambda ft: _drop_tags(ft, titles), want=None)

    def _retag(
        self, note_id: str, actor: str, edit: Callable[[FileText], FileText], *, want: Sequence[str] | None
    ) -> list[Tag]:
        with self.mirror.batch():
            note = self.catch_up(note_id)
            row = self._row(note_id)
            ft = edit(self._current_text(row, note))
            data = ft.render().encode("utf-8")
            if not row.hash or data != self.vault.read(row.path).data:
                state = self.vault.write(row.path, data)
                self._put(row.path, data, state, actor=actor, note_id=note_id, origin=row.origin)
            tags = self.mirror.note_tags(note_id)
            if want is None:
                return tags
            keys = {t.casefold() for t in want}
            return [t for t in tags if t.title.casefold() in keys]

    def rename_tag(self, tag_id: str, title: str, *, actor: str) -> Tag:
        """Renamed in every note that carries it (front matter and inline), then in the mirror."""
        tag = self.mirror.get_tag(tag_id)
        title = clean_title(title, "tag")
        with self.mirror.batch():
            notes = self._tag_notes(tag_id)
            renamed = self.mirror.rename_tag(tag_id, title, actor=actor)
            for note_id in notes:
                self._retag(note_id, actor, lambda ft: _rename_tag(ft, tag.title, title), want=None)
            return renamed

    def delete_tag(self, tag_id: str, *, actor: str) -> None:
        tag = self.mirror.get_tag(tag_id)
        with self.mirror.batch():
            notes = self._tag_notes(tag_id)
            self.mirror.delete_tag(tag_id, actor=actor)
            for note_id in notes:
                self._retag(note_id, actor, lambda ft: _drop_tags(ft, [tag.title]), want=None)

    def _tag_notes(self, tag_id: str) -> list[str]:
        return [
            m.id
            for trashed in (False, True)
            for m in self.mirror.list_notes(tag_id=tag_id, trashed=trashed, order=NoteOrder.ID)
        ]

    # Change feed and history ----------------------------------------------------------------------
    def changes_since(self, cursor: int, limit: int = 1000) -> ChangePage:
        return self.mirror.changes_since(cursor, limit)

    def latest_cursor(self) -> int:
        return self.mirror.latest_cursor()

    def item_changes(self, item_ids: Sequence[str], *, limit: int = 200) -> list[Change]:
        return self.mirror.item_changes(item_ids, limit=limit)

    def note_history(self, note_id: str) -> list[Revision]:
        return self.mirror.note_history(note_id)

    def get_revision(self, revision_id: int) -> Revision:
        return self.mirror.get_revision(revision_id)


def _with_todo(
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


def _add_tags(ft: FileText, titles: Sequence[str]) -> FileText:
    have = {t.casefold() for t in ft.tags()}
    missing = [t for t in dict.fromkeys(titles) if t.casefold() not in have]
    if not missing:
        return ft
    return ft.with_tags([*front_tags(ft.fields()), *missing])


def _drop_tags(ft: FileText, titles: Sequence[str]) -> FileText:
    drop = {t.casefold() for t in titles}
    kept = [t for t in front_tags(ft.fields()) if t.casefold() not in drop]
    if len(kept) != len(front_tags(ft.fields())):
        ft = ft.with_tags(kept)
    for title in titles:
        ft = ft.replace_inline_tag(title, None)
    return ft


def _rename_tag(ft: FileText, old: str, new: str) -> FileText:
    tags = front_tags(ft.fields())
    if any(t.casefold() == old.casefold() for t in tags):
        ft = ft.with_tags([new if t.casefold() == old.casefold() else t for t in tags])
    return ft.replace_inline_tag(old, new)


__all__ = ["SIDECAR_NAME", "VaultStore", "sync_tags"]

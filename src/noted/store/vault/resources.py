"""Attachments of the Markdown-folder store: files of the folder where they are
(``noted.store.vault.attachments``); one just attached from noted waits in the mirror's
``vault-resources/`` until the note linking it is written, which puts it in the folder. A replace's
or a delete's change to a file of the folder is owed in its row's transaction and made once it
commits (``noted.store.sqlite.steps``), as the embedded store's are."""

from __future__ import annotations

import contextlib
import logging
import os
import stat
from dataclasses import replace
from pathlib import Path

from noted.errors import InvalidInputError, NotedError, NotFoundError
from noted.models import ChangeType, ItemType, Resource, now_ms
from noted.store.durable import write_aside
from noted.store.protocol import FileLink, KeptFile
from noted.store.rules import attachment_name, file_extension
from noted.store.sqlite.feed import file_state, record
from noted.store.sqlite.steps import Step, Taker
from noted.store.vault.base import VaultPart
from noted.store.vault.files import ABSENT, FileChanged, content_hash

log = logging.getLogger(__name__)

WRITE_IN = "vault-write"
"""The step a replace of a file of the folder owes once its row commits (``Resources.write_in``)."""
UNLINK = "vault-unlink"
"""The step a delete of a file noted wrote owes once its row's removal commits."""
ASIDE = ".folder"
"""What names an attachment's new bytes in the profile while its file of the folder waits for them."""


def _digest(data: bytes | None) -> str:
    """What a step expects of a file: its content's hash, or ``-`` for no file."""
    return "-" if data is None else content_hash(data)


class Resources(VaultPart):
    """Attachments: files of the folder where they are, or (just attached) in the mirror."""

    def resource_path(self, resource_id: str) -> Path:
        """The attachment's file; never one that is a symbolic link (``NotFoundError``): what it
        leads to may be outside the folder, and nothing outside it is read (nor opened, nor copied)."""
        known = self.ledger.file(resource_id)
        if known is None:
            return self.mirror.resource_path(resource_id)
        self.mirror.get_resource(resource_id)  # NotFoundError names the id
        path = self.vault.path(known[0])
        with contextlib.suppress(OSError):  # (missing: the caller's FileNotFoundError)
            if not stat.S_ISREG(os.lstat(path).st_mode):
                raise NotFoundError(
                    f'the file of attachment "{resource_id}" is a symbolic link or not a plain file, '
                    f"which noted does not read: {known[0]}"
                )
        return path

    def read_resource(self, resource_id: str) -> bytes:
        known = self.ledger.file(resource_id)
        if known is None:
            return self.mirror.read_resource(resource_id)
        path = self.resource_path(resource_id)
        pending = self._pending(known[0])  # replaced in this batch: the bytes it will have
        if pending is not None:
            return pending
        try:
            if not stat.S_ISREG(os.lstat(path).st_mode):  # (swapped since resource_path looked)
                raise FileNotFoundError(path)
            return path.read_bytes()
        except OSError as exc:
            raise NotFoundError(f'the file of attachment "{resource_id}" is missing: {known[0]}') from exc

    def body_with_ids(self, note_id: str, body: str, *, notes: bool = False) -> str:
        """``body`` with its links to files of the folder (and to notes) written ``:/id`` (``Attachments.with_ids``)."""
        row = self.ledger.note(note_id)
        return body if row is None else self.attachments.with_ids(row.path, body, notes=notes)

    def file_links(self, body: str, *, note_id: str | None = None, folder_id: str = "") -> list[FileLink]:
        """``HasFileLinks.file_links``: ``Attachments.links_of`` from the note's file, or from a new
        one in the folder of notebook ``folder_id`` (nothing is made)."""
        row = self.ledger.note(note_id) if note_id else None
        rel = row.path if row is not None else f"{self.core.folder_rel(folder_id)}/new.md".lstrip("/")
        return self.attachments.links_of(rel, body)

    def keep_beside(self, resource_id: str, note_id: str) -> None:
        """``HasFileLinks.keep_beside``: ``Attachments.keep_beside`` from the note's file."""
        row = self.ledger.note(note_id)
        if row is not None:
            self.attachments.keep_beside(resource_id, row.path)

    def file_notebook(self, resource_id: str) -> str | None:
        """``HasFileLinks.file_notebook`` (None too for one waiting in the profile)."""
        known = self.ledger.file(resource_id)
        if known is None:
            return None
        return self.attachments.notebook_of(known[0], self.attachments.shared_folder())

    def replace_resource(
        self,
        resource_id: str,
        data: bytes,
        *,
        filename: str | None = None,
        mime: str | None = None,
        title: str | None = None,
        actor: str,
    ) -> Resource:
        """New bytes for the attachment; a file of the folder is replaced atomically where it is."""
        known = self.ledger.file(resource_id)
        if known is None:
            return self.mirror.replace_resource(
                resource_id, data, filename=filename, mime=mime, title=title, actor=actor
            )
        old = self.mirror.get_resource(resource_id)
        part = self.mirror.resources
        if self.vault.path(known[0], fresh=True).is_symlink():  # refused now, not after the commit
            raise InvalidInputError(f'"{known[0]}" is a symbolic link; noted does not write through links')
        current = self._bytes(known[0])
        changing = part.steps.pending_source(known[0]) is not None  # replaced earlier in this batch
        version = None if changing else part.versions.keep(old, current, actor, place=known[0])
        # The file changes once the row commits (in a batch, which may still roll back, once the
        # batch does), the bytes waiting in the profile meanwhile; the write into the folder is
        # owed in the row's transaction, so a kill after the commit leaves it to the next open.
        aside = part.resources_dir / f"{resource_id}{ASIDE}"
        part.pending.writing(aside.name)
        partial = write_aside(aside, data)
        now = max(now_ms(), old.updated_time + 1)
        name = attachment_name(filename) if filename else old.filename
        try:
            with self.core.db.write() as conn:
                conn.execute(
                    "UPDATE resources SET size = ?, mime = ?, title = ?, filename = ?, file_extension = ?, "
                    "updated_time = ? WHERE id = ?",
                    (
                        len(data),
                        mime or old.mime,
                        title or old.title,
                        name,
                        file_extension(name),
                        now,
                        resource_id,
                    ),
                )
                was = file_state(old.filename, old.title, None if changing else current)
                after = file_state(name, title or old.title, data, version)
                record(
                    conn, ItemType.RESOURCE, resource_id, ChangeType.UPDATE, actor, now, was=was, state=after
                )
                self.ledger.put_file(conn, resource_id, known[0], content_hash(data) if known[1] else "")
                step = part.steps.owe(
                    conn, WRITE_IN, known[0], source=partial.name, expect=_digest(current), actor=actor
                )
        except BaseException:
            partial.unlink(missing_ok=True)
            part.versions.discard(version)
            raise
        self.core.db.after(
            commit=lambda: part.steps.take(step, self.write_in),
            rollback=lambda: partial.unlink(missing_ok=True),
        )
        part.versions.thin(resource_id)
        return self.mirror.get_resource(resource_id)

    def write_in(self, step: Step) -> None:
        """A replace's row is committed: its bytes (``step.source``, in the profile) go into the
        folder's file ``step.target``, if it still holds what it held then (``step.expect``). One
        another program changed meanwhile (noted was killed before this step, and the file was
        edited before noted started again) is left as it is, and the bytes are kept as a version
        of the attachment instead: nothing noted did not write is overwritten, nothing is lost."""
        part = self.mirror.resources
        aside = part.resources_dir / step.source
        if not aside.exists():
            return  # taken already (or by a later replace of the same file in the batch)
        data = aside.read_bytes()
        state = self.vault.state(step.target)
        try:
            if _digest(self._bytes(step.target)) != step.expect:
                raise FileChanged(f'"{step.target}" changed outside noted since the replace')
            self.vault.write(step.target, data, unchanged=state if state is not None else ABSENT)
        except (FileChanged, InvalidInputError):  # (a folder on the way made a link out of it since)
            resource_id = step.source.split(".", 1)[0]
            with contextlib.suppress(NotFoundError):
                resource = replace(self.mirror.get_resource(resource_id), size=len(data))
                part.versions.keep(resource, data, step.actor or "outside", place=step.target)
                log.warning(
                    "%s changed outside noted: the bytes written meanwhile are kept as a version", step.target
                )
        aside.unlink(missing_ok=True)
        self.attachments.forget()

    def _pending(self, rel: str) -> bytes | None:
        """The bytes a batch still open replaced the folder's file ``rel`` with (None: none did)."""
        part = self.mirror.resources
        aside = part.steps.pending_source(rel)
        return None if aside is None else (part.resources_dir / aside).read_bytes()

    def _bytes(self, rel: str) -> bytes | None:
        """The bytes of the folder's file ``rel`` (None: it is gone or not a regular file)."""
        path = self.vault.path(rel)
        try:
            return path.read_bytes() if stat.S_ISREG(os.lstat(path).st_mode) else None
        except OSError:
            return None

    def delete_resource(self, resource_id: str, *, actor: str) -> KeptFile | None:
        """Forget the attachment, kept as a version (with where its file was); its file in the
        folder is deleted only when noted wrote it and it is unchanged since (nothing deletes a
        file noted did not write), else it stays and is returned. Such a file that stays while a
        note links it is refused (``InvalidInputError``): the note's next write would make it an
        attachment again."""
        known = self.ledger.file(resource_id)
        if known is None:
            self.mirror.delete_resource(resource_id, actor=actor)
            return None
        resource = self.mirror.get_resource(resource_id)
        path, written = known
        data = self._pending(path)  # replaced earlier in this batch: what its row describes
        data = self._bytes(path) if data is None else data
        kept = None
        if data is not None and not (written and content_hash(data) == written):
            self._refuse_linked(resource, path, changed=bool(written))
            kept = KeptFile(path, changed=bool(written))
        steps = self.mirror.resources.steps
        with self.mirror.batch():
            self.mirror.resources.delete_keeping(
                resource, data, actor=actor, place=path, stayed=kept is not None
            )
            with self.core.db.write() as conn:
                self.ledger.drop_file(conn, resource_id)
                # The file goes once the row's removal commits (in a batch, which may still roll
                # back, once the batch does), owed with it so that a kill after the commit does
                # not leave it in the folder, where a note linking it would make it an attachment again.
                mine = written and data is not None and content_hash(data) == written
                step = steps.owe(conn, UNLINK, path, expect=written) if mine else None
            if step is not None:
                self.core.db.after(
                    commit=lambda: steps.take(step, self.unlink_written), rollback=lambda: None
                )
        return kept

    def unlink_written(self, step: Step) -> None:
        """A delete is committed: the folder's file ``step.target`` goes, if it still holds the
        bytes noted wrote (``step.expect``); changed since by another program, it stays."""
        if _digest(self._bytes(step.target)) == step.expect:
            self.vault.path(step.target).unlink(missing_ok=True)
        self.attachments.forget()

    def takers(self) -> dict[str, Taker]:
        """What takes the file steps this part's commits owe (``noted.store.sqlite.steps``)."""
        return {WRITE_IN: self.write_in, UNLINK: self.unlink_written}

    def _refuse_linked(self, resource: Resource, path: str, *, changed: bool) -> None:
        """Refuse to delete ``resource``, whose file ``path`` stays in the folder, while notes link it."""
        notes = self.mirror.resource_notes(resource.id)
        if not notes:
            return  # no note brings it back: it leaves noted, its file stays where it is
        titles = ", ".join(f'"{self.mirror.get_note(n).title}"' for n in notes[:3])
        linking = f"the note {titles} links" if len(notes) == 1 else f"the notes {titles} link"
        if len(notes) > 3:
            linking = f"the notes {titles} and {len(notes) - 3} more link"
        whose = "that changed since noted wrote it" if changed else "that noted did not write"
        raise InvalidInputError(
            f'attachment "{resource.filename}" is {path}, a file of the folder {whose}, so noted does '
            f"not delete it, and {linking} it, which would make it an attachment again. Nothing was "
            "changed: remove the links to it first (its file then stays in the folder)"
        )

    def restore_resource_version(self, resource_id: str, version_id: int, *, actor: str) -> Resource:
        """Put the version back: a file of the folder is replaced where it is; a deleted one comes
        back where it was when that path is free (so the note's link to it works again), else it
        waits in the profile as a file just attached does."""
        part = self.mirror.resources
        version = part.version_of(resource_id, version_id)
        data, was = part.versions.read(version_id), version.resource
        try:
            self.mirror.get_resource(resource_id)
        except NotFoundError:
            pass
        else:
            return self.replace_resource(
                resource_id, data, filename=was.filename, mime=was.mime, title=was.title, actor=actor
            )
        place = part.versions.place(version_id)
        if place:
            self._check_place(resource_id, version_id, place, data)
        resource = part.add_back(was, data, actor=actor)
        if not place:
            return resource  # it was in the profile, linked by its id
        state = self.vault.state(place)
        if state is None:
            self.vault.write(place, data)
        with self.core.db.write() as conn:
            self.ledger.put_file(conn, resource_id, place, content_hash(data) if state is None else "")
        self.mirror.resource_path(resource_id).unlink(missing_ok=True)  # noted's copy, now in the folder
        self.attachments.forget()
        return self.mirror.get_resource(resource_id)

    def _check_place(self, resource_id: str, version_id: int, place: str, data: bytes) -> None:
        """Refuse (``NotedError``) to bring a deleted attachment back where its file was when
        that path holds another attachment or another file now: a copy in the profile would be
        linked by no note (they link the path). Nothing is changed, and the version stays."""
        holder = self.ledger.file_at(place)
        current = self._bytes(place)
        if holder is None and current in (None, data):
            return  # free, or the same file no attachment holds: it is linked again there
        hint = f"`noted history {resource_id}` lists its versions"
        if current == data:
            raise NotedError(
                f"{place} is back in the folder already, as attachment {holder}, with the same bytes "
                f"as version {version_id}: nothing to restore",
                hint=hint,
            )
        kept = self.mirror.resources.versions.file(version_id)
        who = f", attachment {holder}" if holder else ""
        raise NotedError(
            f"{place} holds another file now{who}, which the notes' links to it show: version "
            f"{version_id} was not put back; its bytes stay kept in {kept}",
            hint=hint,
        )

"""Attachments of the Markdown-folder store: files of the folder where they are
(``noted.store.vault.attachments``); one just attached from noted waits in the mirror's
``vault-resources/`` until the note linking it is written, which puts it in the folder."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from noted.errors import NotFoundError
from noted.models import ChangeType, ItemType, Resource, now_ms
from noted.store.rules import attachment_name, file_extension
from noted.store.sqlite.feed import record
from noted.store.vault.base import VaultPart
from noted.store.vault.files import content_hash


class Resources(VaultPart):
    """Attachments: files of the folder where they are, or (just attached) in the mirror."""

    def resource_path(self, resource_id: str) -> Path:
        known = self.ledger.file(resource_id)
        if known is None:
            return self.mirror.resource_path(resource_id)
        self.mirror.get_resource(resource_id)  # NotFoundError names the id
        return self.vault.path(known[0])

    def read_resource(self, resource_id: str) -> bytes:
        known = self.ledger.file(resource_id)
        if known is None:
            return self.mirror.read_resource(resource_id)
        path = self.resource_path(resource_id)
        try:
            if not stat.S_ISREG(os.lstat(path).st_mode):
                raise FileNotFoundError(path)
            return path.read_bytes()
        except OSError as exc:
            raise NotFoundError(f'the file of attachment "{resource_id}" is missing: {known[0]}') from exc

    def body_with_ids(self, note_id: str, body: str) -> str:
        """``body`` with its links to files of the folder written ``:/id`` (``Attachments.with_ids``)."""
        row = self.ledger.note(note_id)
        return body if row is None else self.attachments.with_ids(row.path, body)

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
        self.vault.write(known[0], data)
        now = max(now_ms(), old.updated_time + 1)
        with self.core.db.write() as conn:
            name = attachment_name(filename) if filename else old.filename
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
            record(conn, ItemType.RESOURCE, resource_id, ChangeType.UPDATE, actor, now)
            self.ledger.put_file(conn, resource_id, known[0], content_hash(data) if known[1] else "")
        return self.mirror.get_resource(resource_id)

    def delete_resource(self, resource_id: str, *, actor: str) -> None:
        """Forget the attachment; its file in the folder is deleted only when noted wrote it and it
        is unchanged since (nothing deletes a file noted did not write)."""
        known = self.ledger.file(resource_id)
        with self.mirror.batch():
            self.mirror.delete_resource(resource_id, actor=actor)
            if known is None:
                return
            with self.core.db.write() as conn:
                self.ledger.drop_file(conn, resource_id)
            path, written = known
            if written:
                try:
                    same = content_hash(self.vault.path(path).read_bytes()) == written
                except OSError:
                    same = False
                if same and self.vault.state(path) is not None:
                    self.vault.path(path).unlink()
                    self.attachments.forget()

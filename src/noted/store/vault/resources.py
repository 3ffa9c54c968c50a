"""Attachments of the Markdown-folder store.

For now they are kept as on the embedded store, in the sidecar's ``vault-resources/`` folder under
``:/id`` links; files of the folder that notes link to by path are not attachments yet.
"""

from __future__ import annotations

from pathlib import Path

from noted.models import Resource
from noted.store.sqlite import SqliteStore


class ResourceOps:
    """The attachment half of ``VaultStore``: the mirror's own."""

    mirror: SqliteStore

    def add_resource(self, data: bytes, *, filename: str, mime: str, title: str = "", actor: str) -> Resource:
        return self.mirror.add_resource(data, filename=filename, mime=mime, title=title, actor=actor)

    def get_resource(self, resource_id: str) -> Resource:
        return self.mirror.get_resource(resource_id)

    def resource_path(self, resource_id: str) -> Path:
        return self.mirror.resource_path(resource_id)

    def read_resource(self, resource_id: str) -> bytes:
        return self.mirror.read_resource(resource_id)

    def list_resources(self, *, note_id: str | None = None) -> list[Resource]:
        return self.mirror.list_resources(note_id=note_id)

    def resource_notes(self, resource_id: str) -> list[str]:
        return self.mirror.resource_notes(resource_id)

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
        return self.mirror.replace_resource(
            resource_id, data, filename=filename, mime=mime, title=title, actor=actor
        )

    def delete_resource(self, resource_id: str, *, actor: str) -> None:
        self.mirror.delete_resource(resource_id, actor=actor)

"""Attachments on Joplin: uploaded with ``POST /resources``, read with ``/resources/ID/file``.

Joplin keeps the files in its own profile, which noted may not see (Joplin can run elsewhere), so
``resource_path`` downloads the file once into the sidecar's cache folder and returns that copy.
What a replace or a delete takes away is downloaded and kept in the sidecar first
(``noted.store.history.versions``), so ``restore_resource_version`` can put it back under its id.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from noted.errors import BackendError, InvalidInputError, NotedError, NotFoundError, WriteOutcomeUnknownError
from noted.markdown import linked_ids
from noted.models import ChangeType, ItemState, ItemType, Resource, ResourceVersion, new_id
from noted.store.joplin.base import RESOURCE_FIELDS, JoplinApi, resource_of, safe_id
from noted.store.joplin.half_done import HalfDone
from noted.store.rules import attachment_name, clean_title, file_extension
from noted.store.sqlite.feed import file_state
from noted.tempfiles import replace_with


class Resources:
    """The attachments of the Joplin store, with a local copy of each file read (``cache_dir``)."""

    def __init__(self, api: JoplinApi, cache_dir: Path, half_done: HalfDone) -> None:
        self.api = api
        self.cache_dir = cache_dir
        self.half_done = half_done
        """The attachments a batch uploads or deletes, kept until it ends (``noted.store.joplin.half_done``)."""

    def add_resource(
        self,
        data: bytes,
        *,
        filename: str,
        mime: str,
        title: str = "",
        actor: str,
        made_id: str | None = None,
    ) -> Resource:
        name = attachment_name(filename)
        resource_id = made_id or new_id()
        mime = mime or "application/octet-stream"
        props = {"id": resource_id, "title": clean_title(title or name)}
        self.half_done.deleting(resource_id, actor=actor)  # until the batch links it
        try:
            self._upload("POST", "/resources", resource_id, data, name, mime, props, actor)
        except NotedError as exc:
            raise self._undone(resource_id, exc) from None
        self.api.sidecar.record(ItemType.RESOURCE, [resource_id], ChangeType.CREATE, actor)
        return self.get_resource(resource_id)

    def tidy(self, resource_id: str, actor: str, finish: str) -> str:
        """Tidy an attachment a batch cut short left half done (``noted.store.joplin.half_done``):
        finish its replace, or delete it unless a note links it (kept as a version, as every
        delete's); what was done, in words ("": nothing, or it is gone)."""
        try:
            if finish:
                return self._finish_replace(resource_id, actor, json.loads(finish))
            if self.resource_notes(resource_id):
                return ""
            self.delete_resource(resource_id, actor=actor)
        except NotFoundError:
            return ""
        return f"deleted attachment {resource_id}, linked by no note"

    def _finish_replace(self, resource_id: str, actor: str, finish: dict[str, Any]) -> str:
        """Send a replace's second request again, if the attachment holds the replace's file (a
        replace whose file never reached Joplin left it whole)."""
        props: dict[str, str] = finish["props"]
        now = self.get_resource(resource_id)
        if (now.filename, now.mime, now.file_extension) == (
            props["filename"],
            props["mime"],
            props["file_extension"],
        ):
            return ""
        if hashlib.sha256(self.read_resource(resource_id)).hexdigest() != finish["digest"]:
            return ""
        self.api.send(resource_id, actor, "PUT", f"/resources/{safe_id(resource_id)}", props)
        return f"named attachment {resource_id} {props['filename']!r} ({props['mime']}) after its new file"

    def _undone(self, resource_id: str, exc: NotedError) -> NotedError:
        """What to say of an upload that failed: ``exc`` once what it may have stored is deleted
        again; when that cannot be done, ``exc`` naming the attachment, so nothing is stored twice."""
        try:
            self.api.client.write("DELETE", f"/resources/{safe_id(resource_id)}")
        except NotFoundError:
            pass
        except NotedError:
            return WriteOutcomeUnknownError(
                f"{exc.message}; the attachment may be in Joplin as {resource_id}, linked by no note",
                hint=f"link it as (:/{resource_id}) or delete it in Joplin rather than attaching the file again",
            )
        if isinstance(exc, WriteOutcomeUnknownError):
            return BackendError(
                "Joplin did not answer while it stored the attachment; it was deleted again, nothing was attached"
            )
        return exc

    def _upload(
        self,
        method: str,
        path: str,
        resource_id: str,
        data: bytes,
        name: str,
        mime: str,
        props: dict[str, str],
        actor: str,
    ) -> None:
        """Send the file, then set what Joplin derives on its own (it keeps only ``id`` and ``title``)."""
        files = {"data": (name, data, mime)}
        self.api.send(resource_id, actor, method, path, None, files=files, data={"props": json.dumps(props)})
        self.api.send(resource_id, actor, "PUT", f"/resources/{safe_id(resource_id)}", _named(name, mime))

    def get_resource(self, resource_id: str) -> Resource:
        try:
            item = self.api.client.get(f"/resources/{safe_id(resource_id)}", {"fields": RESOURCE_FIELDS})
        except NotFoundError:
            raise NotFoundError(f'no attachment with id "{resource_id}"') from None
        return resource_of(item)

    def resource_path(self, resource_id: str) -> Path:
        """A local copy of the attachment's file (downloaded on first use)."""
        resource = self.get_resource(resource_id)
        suffix = f".{resource.file_extension}" if resource.file_extension else ""
        path = self.cache_dir / f"{resource.id}-{resource.updated_time}{suffix}"
        if not path.exists():
            data = self.read_resource(resource_id)
            path.parent.mkdir(parents=True, exist_ok=True)
            replace_with(path, data)  # (a kill's leftover swept by the next)
        return path

    def read_resource(self, resource_id: str) -> bytes:
        try:
            return self.api.client.get_bytes(f"/resources/{safe_id(resource_id)}/file")
        except NotFoundError:
            raise NotFoundError(f'no attachment with id "{resource_id}"') from None

    def list_resources(self, *, note_id: str | None = None) -> list[Resource]:
        if note_id is None:
            items = self.api.client.get_all("/resources", {"fields": RESOURCE_FIELDS})
        else:
            items = self.api.client.get_all(
                f"/notes/{safe_id(note_id)}/resources", {"fields": RESOURCE_FIELDS}
            )
        return sorted((resource_of(i) for i in items), key=lambda r: (r.created_time, r.id))

    def resource_notes(self, resource_id: str) -> list[str]:
        """Ids of the notes whose body links the attachment.

        Joplin's own list (``/resources/ID/notes``) is kept by a background service and lags behind
        new links, so the notes are found by a plain search for the id, checked in their bodies.
        That search leaves the trash out, and a trashed note links the file too (restored, it shows
        it again; a scope hides a file a note elsewhere links), so the trash is read as well.
        """
        self.get_resource(resource_id)
        # A leading "/" asks Joplin for its plain substring search, which reads the notes themselves.
        found = self.api.client.get_all("/search", {"query": f"/{resource_id}", "fields": "id,body"})
        found += self._trashed()
        return sorted({str(n["id"]) for n in found if resource_id in linked_ids(str(n.get("body", "")))})

    def _trashed(self) -> list[dict[str, object]]:
        """The notes in Joplin's trash, with their bodies: their ids first (``JoplinApi.trash``),
        then each one's body (the trash is seldom large)."""
        ids = [str(n["id"]) for n in self.api.trash("id,deleted_time")]
        trashed: list[dict[str, object]] = []
        for note_id in ids:
            try:
                trashed.append(self.api.client.get(f"/notes/{safe_id(note_id)}", {"fields": "id,body"}))
            except NotFoundError:  # erased meanwhile
                continue
        return trashed

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
        """New bytes under the same id, so every note that links ``:/id`` shows the new file.

        Joplin takes the file and the title in one request and the name and type in a second; the
        second is recorded as half done first (``noted.store.joplin.half_done``), so a cut between
        them is finished by the next batch or start, never left as the new file under the old name.
        """
        old = self.get_resource(resource_id)
        name = attachment_name(filename) if filename is not None else old.filename
        if not name:
            raise InvalidInputError("an attachment needs a file name")
        props = {"title": old.title if title is None else clean_title(title or name)}
        named = _named(name, mime or old.mime)
        versions = self.api.sidecar.versions
        path = f"/resources/{safe_id(resource_id)}"
        with self.half_done.batch(self.tidy):
            # Kept even when the upload then fails: Joplin may have taken it before the failure.
            before = self.read_resource(resource_id)
            version = versions.keep(old, before, actor)
            finish = {"props": named, "digest": hashlib.sha256(data).hexdigest()}
            self.half_done.finishing(resource_id, actor=actor, finish=json.dumps(finish))
            files = {"data": (name, data, named["mime"])}
            self.api.send(
                resource_id, actor, "PUT", path, None, files=files, data={"props": json.dumps(props)}
            )
            was = file_state(old.filename, old.title, before)
            state = {resource_id: replace(file_state(name, props["title"], data, version), was=was)}
            try:
                self.api.send(resource_id, actor, "PUT", path, named)
            except NotedError as exc:
                raise BackendError(
                    f"the new file is in Joplin, but not yet its name and type: {exc.message}",
                    hint="noted sets them at its next change or start once Joplin answers; nothing to redo",
                ) from None
            finally:  # after the second request (the review reads a later change as another's)
                self.api.sidecar.record(ItemType.RESOURCE, [resource_id], ChangeType.UPDATE, actor, state)
        versions.thin(resource_id)
        return self.get_resource(resource_id)

    def delete_resource(self, resource_id: str, *, actor: str) -> None:
        """Delete an attachment (links in note bodies stay as text), kept in the sidecar first."""
        resource = self.get_resource(resource_id)
        versions = self.api.sidecar.versions
        version = versions.keep(resource, self.read_resource(resource_id), actor, deleted=True)
        path = f"/resources/{safe_id(resource_id)}"
        gone = ItemState(resource.filename, version=version or 0)
        self.api.send(resource_id, actor, "DELETE", path, change=ChangeType.DELETE, state=gone)
        versions.thin(resource_id)

    def resource_versions(self, resource_id: str) -> list[ResourceVersion]:
        return self.api.sidecar.versions.versions(resource_id)

    def kept_resource_ids(self, prefix: str) -> list[str]:
        return self.api.sidecar.versions.ids_starting(prefix)

    def restore_resource_version(self, resource_id: str, version_id: int, *, actor: str) -> Resource:
        """Put the kept version back: the file replaced in Joplin (the current one kept in turn),
        or a deleted attachment made again under its id."""
        versions = self.api.sidecar.versions
        version = versions.get(version_id)
        if version.resource.id != resource_id:
            raise NotFoundError(
                f'no version {version_id} of attachment "{resource_id}"', hint="`noted history ID` lists them"
            )
        data, was = versions.read(version_id), version.resource
        try:
            self.get_resource(resource_id)
        except NotFoundError:
            props = {"id": resource_id, "title": was.title}
            self._upload("POST", "/resources", resource_id, data, was.filename, was.mime, props, actor)
            self.api.sidecar.record(ItemType.RESOURCE, [resource_id], ChangeType.CREATE, actor)
            return self.get_resource(resource_id)
        return self.replace_resource(
            resource_id, data, filename=was.filename, mime=was.mime, title=was.title, actor=actor
        )


def _named(name: str, mime: str) -> dict[str, str]:
    """What Joplin derives from an uploaded file on its own, set as noted means it."""
    return {"filename": name, "mime": mime, "file_extension": file_extension(name)}

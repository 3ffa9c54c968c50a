"""``noted history ID`` for an attachment: its kept versions, and putting one back.

A replace or a delete of an attachment keeps what it takes away (``Store.resource_versions``);
``--restore N`` puts version N back under the same id (``noted.ops.attachments.restore_attachment_version``),
a deleted attachment included, the file it replaces kept as a version in turn.
"""

from __future__ import annotations

import argparse

from noted.cli import render
from noted.cli.context import CliContext
from noted.errors import InvalidInputError, NotFoundError
from noted.models import ACTOR_USER, Resource, ResourceVersion, is_full_id
from noted.ops.attachments import restore_attachment_version
from noted.ops.resolve import attachment_by_prefix
from noted.store.protocol import Store
from noted.wording import local_time


def attachment_named(store: Store, text: str) -> tuple[Resource | None, list[ResourceVersion]] | None:
    """The attachment ``text`` names by its full id or a unique id prefix, as notes are named (None
    when it is live no more), and its kept versions; None when ``text`` names no attachment, live
    or kept."""
    text = text.strip()
    resource_id = text.lower() if is_full_id(text.lower()) else attachment_by_prefix(store, text)
    if resource_id is None:
        return None
    versions = store.resource_versions(resource_id)
    try:
        return store.get_resource(resource_id), versions
    except NotFoundError:
        return (None, versions) if versions else None


def cmd_attachment_history(
    args: argparse.Namespace,
    ctx: CliContext,
    resource: Resource | None,
    versions: list[ResourceVersion],
) -> int:
    """List the attachment's versions, or restore one (``--restore N``)."""
    if args.show is not None:
        raise InvalidInputError(
            "--show prints a note's revision; for an attachment, `noted history ID` lists its "
            "versions and --restore N puts one back"
        )
    resource_id = resource.id if resource is not None else versions[0].resource.id
    if args.restore is not None:
        restored = restore_attachment_version(ctx.services.store, resource_id, args.restore, actor=ACTOR_USER)
        if ctx.json:
            ctx.emit(_resource_json(restored))
        else:
            ctx.out(
                f'restored attachment "{restored.title}" ({restored.filename}) as it was in version {args.restore}'
            )
        return 0
    if ctx.json:
        ctx.emit(
            {
                "attachment": None if resource is None else _resource_json(resource),
                "id": resource_id,
                "versions": [_version_json(v) for v in versions],
            }
        )
        return 0
    if resource is None:
        gone = (
            "is no longer in noted (its file stays in the notes folder)"
            if versions[0].stayed
            else "is deleted"
        )
        ctx.out(
            f'attachment "{versions[0].resource.title}" ({resource_id}) {gone}; --restore N brings it back'
        )
    else:
        ctx.out(f'attachment "{resource.title}" ({resource.filename}, {resource.size:,} bytes) now')
    for version in versions:
        was = version.resource
        what = "forgotten" if version.stayed else "deleted" if version.deleted else "replaced"
        stayed = f"  (its file stays in the notes folder: {version.stayed})" if version.stayed else ""
        ctx.out(
            f"{version.id:>6}  {local_time(version.time)}  {version.actor:<20}  {what:<9}  "
            f"{was.filename}  {was.size:,} bytes{stayed}"
        )
    if not versions:
        ctx.out("No earlier versions.")
    return 0


def _resource_json(resource: Resource) -> render.JsonDict:
    return {
        "id": resource.id,
        "title": resource.title,
        "filename": resource.filename,
        "mime": resource.mime,
        "size": resource.size,
        "updated_time": resource.updated_time,
    }


def _version_json(version: ResourceVersion) -> render.JsonDict:
    return {
        "version": version.id,
        "time": version.time,
        "actor": version.actor,
        "deleted": version.deleted,
        "file_stayed": version.stayed or None,
        **{k: v for k, v in _resource_json(version.resource).items() if k != "id"},
    }

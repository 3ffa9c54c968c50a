"""Review entries of attachments: a model's replace or delete of one (its attaching shows in the
entry of the note that links it), worded from the versions the store kept
(``Store.resource_versions``) and reverted by putting back the version from before the change,
unless the attachment was replaced, deleted or restored since. ``noted.ops.review_items`` holds
the entries of every kind of item but notes; this is its attachment part."""

from __future__ import annotations

from collections.abc import Collection

from noted.errors import NotedError, NotFoundError
from noted.models import ACTOR_USER, Change, ChangeType, ResourceVersion
from noted.ops.attachments import delete_attachment, restore_attachment_version
from noted.store.protocol import Store
from noted.store.review import Detail, EntryRow, Touch
from noted.wording import plural

SKEW_MS = 5_000
"""How far from its feed row the version a replace or a delete kept may be stamped, for the rows
that do not name it (written before the feed kept ``ItemState.version``)."""


def described(store: Store, entry: EntryRow) -> list[str]:
    """What a replace or a delete took away, for ``noted changes show`` and the Changes view."""
    d = entry.detail
    lines = [
        "deleted"
        if d.get("deleted")
        else "replaced by another file"
        if d.get("replaced")
        else "the same file"
    ]
    if (before := version_before(store, entry)) is not None:
        r = before.resource
        lines.append(f'before it: "{r.filename}", {plural(r.size, "byte")} (version {before.id})')
        if "retitled_from" in d:
            lines.append(f'title: "{d["retitled_from"]}" → "{d["retitled_to"]}"')
        else:  # a change recorded before the feed kept titles
            lines += _title_change(store, entry, r.title)
    lines.append(f"`noted history {entry.note_id}` lists every kept version")
    return lines


def touch(change: Change, person: bool) -> Touch | None:
    """A replace or a delete of an attachment; its making (attaching, a restore) is not reviewed."""
    state = change.item
    if state is None or change.change_type is ChangeType.CREATE:
        return None
    detail: Detail = {}
    if not person:
        detail = {"kind": "attachment", "after": {"title": state.title}}
        if state.version:
            detail["version"] = state.version  # the version it kept: its first change's stays
        if change.change_type is ChangeType.DELETE:
            detail["deleted"] = True
        elif (was := state.was) is not None:
            if not (was.digest and was.digest == state.digest):  # not known (an older row): a new file
                detail["replaced"] = True
            if was.title != state.title:
                detail |= {"renamed_from": was.title, "renamed_to": state.title}
            if was.digest and was.label != state.label:  # known only where the digest is
                detail |= {"retitled_from": was.label, "retitled_to": state.label}
        else:
            return None  # a change noted did not make (nothing kept to put back)
    return Touch(change.id, change.item_id, change.actor, change.time, person, state.title, "", detail)


def version_before(store: Store, entry: EntryRow) -> ResourceVersion | None:
    """The attachment's version kept by the entry's first replace or delete: as it was before it
    (None: thinned since)."""
    if kept := entry.detail.get("version"):
        return next((v for v in store.resource_versions(entry.note_id) if v.id == kept), None)
    made = [
        v
        for v in store.resource_versions(entry.note_id)
        if v.actor == entry.actor and entry.first_time - SKEW_MS <= v.time <= entry.last_time + SKEW_MS
    ]
    return made[-1] if made else None  # newest first: the last is the oldest


def _title_change(store: Store, entry: EntryRow, title: str) -> list[str]:
    """The attachment's title change by the entry (its feed keeps only the file name), while the
    attachment is as the entry left it."""
    try:
        now = store.get_resource(entry.note_id)
    except NotFoundError:
        return []
    if now.updated_time > entry.last_time or now.title == title:
        return []
    return [f'title: "{title}" → "{now.title}"']


def revert(store: Store, entry: EntryRow) -> list[str]:
    """Put back the attachment as it was before the entry, unless it changed since."""
    before = version_before(store, entry)
    if before is None:
        raise NotedError(
            f"change {entry.id} cannot be reverted: the version of the attachment from before it is no "
            "longer kept (the history.* settings thinned it)",
            hint=f"`noted history {entry.note_id}` lists the versions kept; `noted changes accept {entry.id}` clears it",
        )
    try:
        now = store.get_resource(entry.note_id)
    except NotFoundError:
        now = None
    if now is not None and (entry.detail.get("deleted") or now.updated_time > entry.last_time):
        return [
            f"it was {'restored' if entry.detail.get('deleted') else 'replaced again'} since: it stays as it is"
        ]
    if now is None and not entry.detail.get("deleted"):
        return [f"it was deleted since: `noted history {entry.note_id}` lists the versions to restore"]
    restore_attachment_version(store, entry.note_id, before.id, actor=ACTOR_USER)
    return []


def drop_attached(store: Store, entry: EntryRow, linked: Collection[str]) -> list[str]:
    """Delete the attachments of ``linked`` (those the note linked before the entry's revert) that
    the entry's actor made during it and that no note links now: the revert took away the link the
    change added, and a deleted attachment is kept as a version (``noted history ID --restore``).
    A Markdown folder's file changed since stays (nothing deletes a file noted did not write), and
    the line says so. An attachment the person made stays, whatever links it lost."""
    kept = []
    for resource_id in linked:
        if store.resource_notes(resource_id):
            continue
        made = [c for c in store.item_changes([resource_id]) if c.change_type is ChangeType.CREATE]
        if made and made[-1].actor == entry.actor and made[-1].time >= entry.first_time - SKEW_MS:
            if (stays := delete_attachment(store, resource_id, actor=ACTOR_USER)) is not None:
                kept.append(stays.line)
    return kept

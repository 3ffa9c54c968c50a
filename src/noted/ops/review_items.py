"""Review entries for what models did to notebooks and tags: how a feed row becomes one, the line
that says what it did, and its revert.

An entry of a notebook or a tag is kept as a note's is (``noted.store.review.EntryRow``, so the
review's tables need no new column): ``note_id`` carries the item's id and ``detail["kind"]``
says what kind of item it is (``ITEM_KINDS``; an entry without ``kind`` is a note's). Its detail
comes from the state the feed keeps with each row (``noted.models.ItemState``: the title, parent
and trash after the change, and before it for an update), so it says what the model did whoever
changed the item after. ``after`` keeps the item's state at the entry's end, which tells a revert
whether the person changed it since: what the person did stays, and the revert says what it kept.

An attachment's entry is a replace or a delete by a model (``noted.ops.review_files``).

On Joplin the sidecar's feed keeps the state of noted's own writes (``noted.store.joplin.sidecar``);
Joplin reports no change to notebooks, tags or attachments, so one made by a sync has no entry.
"""

from __future__ import annotations

from noted.errors import InvalidInputError, NotedError, NotFoundError
from noted.models import (
    ACTOR_USER,
    Change,
    ChangeType,
    Folder,
    ItemType,
    Tag,
    descendants,
)
from noted.ops import notebooks, review_along, review_files
from noted.ops.notes import restore_note
from noted.store.protocol import Store
from noted.store.review import Detail, EntryRow, ReviewRows, Touch
from noted.wording import plural

ITEM_KINDS = {ItemType.FOLDER: "notebook", ItemType.TAG: "tag", ItemType.RESOURCE: "attachment"}
"""The feed's item types reviewed beside notes, and the kind their entries record."""
_GONE_FOR_GOOD = "noted keeps no copy of a notebook deleted for good, nor of the notes deleted with it"
_TRASH_IT = "(trash it yourself, with what it holds, if you want it gone)"


def kind_of(entry: EntryRow) -> str:
    """``note``, ``notebook`` or ``tag``: what ``entry`` changed."""
    return str(entry.detail.get("kind", "note"))


def touch(change: Change, person: bool) -> Touch | None:
    """The review's view of a feed row about a notebook or a tag; None where the feed kept no state."""
    state = change.item
    if state is None:
        return None
    if change.item_type is ItemType.TAG and change.change_type is ChangeType.CREATE and state.notes:
        return review_along.made_by_tagging(change, person)  # the note's entry says "tagged …"
    if change.item_type is ItemType.RESOURCE:
        return review_files.touch(change, person)
    kind = ITEM_KINDS[change.item_type]
    detail: Detail = {}
    if not person:
        detail = {"kind": kind, "after": {"title": state.title, "parent": state.parent_id}}
        detail["after"]["trashed"] = bool(state.deleted_time)
        if change.change_type is ChangeType.CREATE:
            detail["created"] = True
        elif change.change_type is ChangeType.DELETE:
            detail["deleted"] = True
            if kind == "tag":
                detail["notes"] = list(state.notes)
        elif (was := state.was) is not None:
            if was.title != state.title:
                detail |= {"renamed_from": was.title, "renamed_to": state.title}
            if was.parent_id != state.parent_id:
                detail |= {"moved_from": was.parent_id, "moved_to": state.parent_id}
            if bool(was.deleted_time) != bool(state.deleted_time):
                detail["trashed"] = bool(state.deleted_time)
    # A notebook's entry sits in its parent notebook, so that the filter's notebook words find it.
    folder = state.parent_id if kind == "notebook" else ""
    return Touch(change.id, change.item_id, change.actor, change.time, person, state.title, folder, detail)


def merge(out: Detail, new: Detail) -> None:
    """Grow ``out`` (a copy of an item entry's detail) by a later change of its burst."""
    if new.get("replaced"):
        out["replaced"] = True
    for field in ("renamed", "retitled"):
        if f"{field}_to" in new:
            out.setdefault(f"{field}_from", new[f"{field}_from"])
            out[f"{field}_to"] = new[f"{field}_to"]
            if out[f"{field}_from"] == out[f"{field}_to"]:
                del out[f"{field}_from"], out[f"{field}_to"]
    for key in ("after", "notes"):
        if key in new:
            out[key] = new[key]


def label(entry: EntryRow) -> str:
    """How a line names what ``entry`` changed: ``notebook "Work"``, or a note's title in quotes."""
    kind = kind_of(entry)
    return f'"{entry.title}"' if kind == "note" else f'{kind} "{entry.title}"'


def unrevertible(entry: EntryRow) -> str:
    """Why ``entry`` cannot be reverted ('' when it can)."""
    d = entry.detail
    if kind_of(entry) == "notebook" and d.get("deleted") and not d.get("created"):
        return _GONE_FOR_GOOD
    return ""


def summary(entry: EntryRow, folder_titles: dict[str, str] | None = None) -> str:
    """One line on what a notebook's, tag's or attachment's entry did, e.g. ``renamed from "Projects"``
    (shown under a heading that names the item: ``label``)."""
    d = entry.detail
    parts: list[str] = []
    if d.get("created"):
        parts.append("created")
    if "renamed_from" in d and not d.get("replaced"):  # an attachment's: its file name, the same bytes
        file = "file " if kind_of(entry) == "attachment" else ""
        parts.append(f'{file}renamed from "{d["renamed_from"]}"')
    if "moved_to" in d:
        where = (folder_titles or {}).get(d["moved_to"], "another notebook")
        parts.append(f'moved into "{where}"' if d["moved_to"] else "moved to the top level")
    if "trashed" in d:
        parts.append("moved to the trash" if d["trashed"] else "restored from the trash")
    if d.get("replaced"):
        was = f' (was "{d["renamed_from"]}")' if "renamed_from" in d else ""
        parts.append(f"replaced by another file{was}")
    if "retitled_from" in d:
        parts.append(f'retitled from "{d["retitled_from"]}"')
    if d.get("deleted") and kind_of(entry) == "attachment":
        parts.append("deleted (its file is kept: a revert brings it back)")
    elif d.get("deleted"):
        notes = d.get("notes")
        parts.append(
            f"deleted (was on {plural(len(notes), 'note')})" if notes is not None else "deleted for good"
        )
    line = ", ".join(parts) or "changed"  # under a heading naming the item (``label``)
    why = unrevertible(entry)
    return f"{line}; cannot be reverted: {why}" if why else line


def described(store: Store, entry: EntryRow, folder_titles: dict[str, str]) -> str:
    """What a notebook's or tag's entry changed, a line a field, for ``noted changes show`` and
    the Changes view's diff pane (there is no text to diff)."""
    d = entry.detail

    def where(folder_id: str) -> str:
        return f'"{folder_titles.get(folder_id, "?")}"' if folder_id else "the top level"

    lines = [f"{kind_of(entry)} {entry.note_id}"]
    if d.get("created"):
        lines.append("made by this change")
    if "renamed_from" in d:  # an attachment's state is its file name, not its title
        field = "file name" if kind_of(entry) == "attachment" else "title"
        lines.append(f'{field}: "{d["renamed_from"]}" → "{d["renamed_to"]}"')
    if "moved_to" in d:
        lines.append(f"inside: {where(d['moved_from'])} → {where(d['moved_to'])}")
    if "trashed" in d:
        lines.append("moved to the trash" if d["trashed"] else "restored from the trash")
    if kind_of(entry) == "attachment":  # a replace (of its file, or its name or title alone) or a delete
        lines += review_files.described(store, entry)
    if "notes" in d:
        titles = {n.id: n.title for n in store.get_notes(d["notes"])}
        lines += ["it was on:"] + [
            f'  "{titles[n]}"' if n in titles else f"  {n} (deleted since)" for n in d["notes"]
        ]
    if why := unrevertible(entry):
        lines.append(f"cannot be reverted: {why}")
    return "\n".join(lines) + "\n"


def revert(store: Store, rows: ReviewRows, entry: EntryRow) -> list[str]:
    """Undo what ``entry`` did to its notebook or tag; what the person changed since stays, and
    the lines returned say what was kept. ``NotedError`` when there is nothing it can do."""
    d, kind = entry.detail, kind_of(entry)
    if d.get("created") and d.get("deleted"):
        return []  # made and deleted again: nothing of it is left to undo
    if why := unrevertible(entry):
        raise NotedError(
            f"change {entry.id} cannot be reverted: {why}",
            hint=f"`noted changes accept {entry.id}` clears it",
        )
    if kind == "tag" and d.get("deleted"):
        return _put_tag_back(store, entry)
    if kind == "attachment":
        return review_files.revert(store, entry)
    try:
        item: Folder | Tag = (
            store.get_folder(entry.note_id) if kind == "notebook" else store.get_tag(entry.note_id)
        )
    except NotFoundError:
        raise NotedError(
            f"the {label(entry)} of change {entry.id} was deleted for good since; there is nothing to revert",
            hint=f"`noted changes accept {entry.id}` clears it",
        ) from None
    if d.get("created"):
        return _unmake(store, rows, entry, item)
    kept: list[str] = []
    if isinstance(item, Folder):
        if d.get("trashed") is True and item.is_trashed:
            item = notebooks.restore_notebook(store, item.id, actor=ACTOR_USER).folder
        elif d.get("trashed") is True:  # brought back since (restoring a note of it does that)
            _restore_trashed_with(store, rows, entry)
        _rename_back(store, entry, item, kept)
        _move_back(store, entry, store.get_folder(item.id), kept)
        if d.get("trashed") is False and not store.get_folder(item.id).is_trashed:
            if used := _used_since(store, entry, item.id):
                kept.append(f"{used} in it since, so it stays {_TRASH_IT}")
            else:
                notebooks.trash_notebook(store, item.id, actor=ACTOR_USER)
    else:
        _rename_back(store, entry, item, kept)
    return kept


def _restore_trashed_with(store: Store, rows: ReviewRows, entry: EntryRow) -> None:
    """Bring back what went to the trash with the notebook when the notebook itself is back already
    (restoring a note of it does that): the sub-notebooks and notes whose entries came along with
    its trashing and still wait (``noted.ops.review_along``, from the feed), each still in the
    trash. What the person trashed or restored on their own came along with nothing, and is left."""
    came = [e for _, e in rows.along([entry.id])]
    for along in sorted(came, key=lambda e: kind_of(e) != "notebook"):  # notebooks first
        try:
            if kind_of(along) == "notebook":
                if store.get_folder(along.note_id).is_trashed:
                    notebooks.restore_notebook(store, along.note_id, actor=ACTOR_USER)
            elif kind_of(along) == "note" and store.get_note(along.note_id).is_trashed:
                restore_note(store, along.note_id, actor=ACTOR_USER)
        except NotFoundError:  # deleted for good since: nothing to bring back
            continue


def _rename_back(store: Store, entry: EntryRow, item: Folder | Tag, kept: list[str]) -> None:
    d = entry.detail
    if "renamed_to" not in d or item.title == d["renamed_from"]:
        return
    if item.title != d["renamed_to"]:
        kept.append(f'it was renamed again since: it stays "{item.title}"')
        return
    try:
        if isinstance(item, Folder):
            notebooks.update_notebook(store, item.id, title=d["renamed_from"], actor=ACTOR_USER)
        else:
            notebooks.rename_tag(store, item.id, d["renamed_from"], actor=ACTOR_USER)
    except InvalidInputError:  # another tag, or a notebook beside it, has that title now
        what = "a notebook beside it" if isinstance(item, Folder) else "a tag"
        kept.append(f'{what} is named "{d["renamed_from"]}" now: it stays "{item.title}"')


def _move_back(store: Store, entry: EntryRow, folder: Folder, kept: list[str]) -> None:
    d = entry.detail
    if "moved_to" not in d or folder.parent_id == d["moved_from"]:
        return
    here = _where(store, folder.parent_id)
    if folder.parent_id != d["moved_to"]:
        kept.append(f"it was moved again since: it stays {here}")
        return
    if d["moved_from"]:
        try:
            if store.get_folder(d["moved_from"]).is_trashed:
                kept.append(f"the notebook it came from is in the trash: it stays {here}")
                return
        except NotFoundError:
            kept.append(f"the notebook it came from is gone: it stays {here}")
            return
    try:
        notebooks.update_notebook(store, folder.id, parent_id=d["moved_from"], actor=ACTOR_USER)
    except InvalidInputError:  # a notebook there has its name now (refuse_taken)
        kept.append(f'a notebook where it was is named "{folder.title}" now: it stays {here}')


def _where(store: Store, parent_id: str) -> str:
    if not parent_id:
        return "at the top level"
    try:
        return f'in "{store.get_folder(parent_id).title}"'
    except NotFoundError:
        return "where it is"


def _used_since(store: Store, entry: EntryRow, folder_id: str) -> str:
    """What in the notebook (its sub-notebooks and their notes, out of the trash) someone other
    than the entry's actor made, moved in or changed since the entry began: '' for nothing."""
    folders = store.list_folders()
    inner = [f for f in descendants(folders, folder_id) if f != folder_id]
    notes = [n.id for fid in (folder_id, *inner) for n in store.list_notes(folder_id=fid)]
    changed = {
        c.item_id
        for c in store.item_changes([*inner, *notes])
        if c.actor != entry.actor and c.time >= entry.first_time
    }
    counts = [
        (sum(1 for i in ids if i in changed), word) for ids, word in ((notes, "note"), (inner, "notebook"))
    ]
    said = " and ".join(plural(n, word) for n, word in counts if n)
    return f"{said} {'was' if sum(n for n, _ in counts) == 1 else 'were'} put or changed" if said else ""


def _unmake(store: Store, rows: ReviewRows, entry: EntryRow, item: Folder | Tag) -> list[str]:
    """Trash a notebook the entry made, or delete a tag it made, when it is still as the entry
    left it and holds nothing; otherwise it stays, and the line says why."""
    after = entry.detail.get("after", {})
    if isinstance(item, Folder):
        if item.is_trashed:
            return []
        if (item.title, item.parent_id) != (after.get("title"), after.get("parent")):
            return ["it was renamed or moved since it was made, so it stays"]
        notes = store.folder_note_counts().get(item.id, 0)
        inner = sum(1 for f in store.list_folders() if f.parent_id == item.id)
        held = [plural(n, word) for n, word in ((notes, "note"), (inner, "notebook")) if n]
        if held:
            return [f"it holds {' and '.join(held)} now, so it stays {_TRASH_IT}"]
        notebooks.trash_notebook(store, item.id, actor=ACTOR_USER)
        return []
    if item.title != after.get("title"):
        return ["it was renamed since it was made, so it stays"]
    if carried := review_along.holders(store, rows, item.id):
        return [
            f"it is on {plural(carried, 'note')} now, so it stays (delete it yourself if you want it gone)"
        ]
    notebooks.delete_tag(store, item.id, actor=ACTOR_USER)
    return []


def _put_tag_back(store: Store, entry: EntryRow) -> list[str]:
    """Make the deleted tag again (or take the one of that title made since) and put it back on
    the notes that carried it; those deleted for good since are told."""
    wanted = list(dict.fromkeys(entry.detail.get("notes", [])))
    # Its title before the entry: a rename in the same burst as the delete is undone with it.
    title = str(entry.detail.get("renamed_from", entry.title))
    tag = store.find_tag(title) or notebooks.create_tag(store, title, actor=ACTOR_USER)
    found = {n.id for n in store.get_notes(wanted)}
    for note_id in wanted:
        if note_id in found:
            store.tag_note(note_id, [tag.title], actor=ACTOR_USER)
    gone = len(wanted) - len(found)
    if gone:
        return [
            f"{plural(gone, 'note')} that carried it {'was' if gone == 1 else 'were'} deleted for good since"
        ]
    return []

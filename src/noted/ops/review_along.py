"""What comes along with a model's change to a notebook or a tag, in the review: the notes and
sub-notebooks a notebook takes to the trash, the notes a deleted tag comes off, and a tag made by
tagging a note.

A notebook's trashing and a tag's deletion write a feed row for every note they change, and each
of those makes (or grows) that note's own entry ("trashed", "untagged urgent"), so that one note
can still be reverted alone. ``came_with`` finds those rows in the feed: by the same actor, and,
for a notebook, stamped in the trash with it (the stamp its state keeps, between it and the
notebook's row); for a tag, the run of rows just before the tag's, of the notes it was on. The
entry they make keeps ``detail["with"]``: ``[feed id, item id]`` of the notebook's or tag's row,
which the review's table resolves to that item's entry (``noted.store.sqlite.review_sql``). An
entry keeps it only while every row it grew by came along so: a note the model also edited, or
trashed on its own, stands on its own. ``ReviewRows.decide`` settles those entries with the
notebook's or tag's (once nothing they came with waits), and the listings fold them under it.

A tag a model made by tagging a note has no entry of its own: the note's entry keeps it
(``detail["tags_made"]``, its id and title), and reverting that entry deletes the tag again when
no note holds it (``drop_made_tags``). A note in the trash because its making was reverted holds
no tag (``holders``), so a tag and the note it came on, both made by a model, both go.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from noted.errors import NotFoundError
from noted.models import ACTOR_USER, Change, ChangeType, ItemType
from noted.ops import notebooks
from noted.store.protocol import Store
from noted.store.review import Detail, EntryRow, EntryState, ReviewRows, Touch

Link = list[Any]
"""``[feed id, item id]``: the row of a notebook's or a tag's change another row came with."""


def came_with(changes: Sequence[Change], parents: Mapping[str, str]) -> dict[int, Link]:
    """The rows of ``changes`` (a page of the feed, oldest first) that came along with a notebook's
    trashing or a tag's deletion, each with the row it came with. ``parents`` gives a note's
    notebook where the feed keeps no place for it (Joplin's)."""
    found: dict[int, Link] = {}
    for index, change in enumerate(changes):
        state = change.item
        if (
            change.item_type is ItemType.TAG
            and change.change_type is ChangeType.DELETE
            and state
            and state.notes
        ):
            notes = set(state.notes)
            for row in reversed(changes[:index]):  # written just before the tag's own row
                if (row.actor, row.item_type, row.change_type) != (
                    change.actor,
                    ItemType.NOTE_TAG,
                    ChangeType.DELETE,
                ) or row.item_id not in notes:
                    break
                found[row.id] = [change.id, change.item_id]
                notes.discard(row.item_id)
    for group in _trashings(changes):
        _trashed_with(changes, group, parents, found)
    return found


def _trashings(changes: Sequence[Change]) -> list[list[Change]]:
    """The rows of notebooks moved to the trash, one list per trashing (actor and stamp)."""
    groups: dict[tuple[str, int], list[Change]] = {}
    for change in changes:
        state = change.item
        if change.item_type is not ItemType.FOLDER or state is None or state.was is None:
            continue
        if state.deleted_time and not state.was.deleted_time:
            groups.setdefault((change.actor, state.deleted_time), []).append(change)
    return list(groups.values())


def _trashed_with(
    changes: Sequence[Change], group: list[Change], parents: Mapping[str, str], found: dict[int, Link]
) -> None:
    """Link each row of one trashing to the row of the notebook the person trashed (the top one)."""
    rows = {c.item_id: c for c in group}

    def top(folder_id: str) -> Change | None:
        here, seen = rows.get(folder_id), set[str]()
        while here is not None and here.item is not None and here.item.parent_id in rows:
            if here.item_id in seen:
                break
            seen.add(here.item_id)
            here = rows[here.item.parent_id]
        return here

    actor, stamp = group[0].actor, group[0].item.deleted_time if group[0].item else 0
    end = max(c.time for c in group)
    for change in group:
        if (root := top(change.item_id)) is not None and root is not change:
            found[change.id] = [root.id, root.item_id]
    for change in changes:
        if change.actor != actor or (change.item_type, change.change_type) != (
            ItemType.NOTE,
            ChangeType.UPDATE,
        ):
            continue
        if not stamp <= change.time <= end or (change.place is not None and not change.place.deleted_time):
            continue
        parent = change.place.parent_id if change.place is not None else parents.get(change.item_id, "")
        if (root := top(parent)) is not None:
            found[change.id] = [root.id, root.item_id]


def linked(touch: Touch, came: Mapping[int, Link]) -> Touch:
    """``touch`` with the row it came with, if any (a person's touch records nothing)."""
    link = came.get(touch.feed_id)
    if link is None or touch.detail is None:
        return touch
    return dataclasses.replace(touch, detail=touch.detail | {"with": [link]})


def made_by_tagging(change: Change, person: bool) -> Touch | None:
    """A tag made by tagging a note, as a touch of that note's entry (none for the person's)."""
    state = change.item
    if person or state is None or not state.notes:
        return None
    made: Detail = {"tags_made": {change.item_id: state.title}}
    return Touch(change.id, state.notes[0], change.actor, change.time, False, detail=made)


def merge(out: Detail, old: Detail, new: Detail) -> None:
    """Grow ``out`` (a copy of ``old``, an entry's detail) by ``new``, a later row of its burst:
    it came along with a change only while all its rows did."""
    if "with" in old and "with" in new:
        links = [*old["with"], *new["with"]]
        out["with"] = [list(k) for k in dict.fromkeys(tuple(link) for link in links)]
    else:
        out.pop("with", None)
    if "tags_made" in new:
        out["tags_made"] = {**old.get("tags_made", {}), **new["tags_made"]}


def holders(store: Store, rows: ReviewRows, tag_id: str, undone: Collection[str] = ()) -> int:
    """How many notes hold the tag: those out of the trash, and those in it but for the notes
    whose making was reverted (and ``undone``, made by an entry being reverted now)."""
    live = len(store.list_notes(tag_id=tag_id))
    trashed = [m.id for m in store.list_notes(tag_id=tag_id, trashed=True) if m.id not in undone]
    unmade: set[str] = set()
    for start in range(0, len(trashed), 500):
        part = trashed[start : start + 500]
        reverted = rows.entries(state=EntryState.REVERTED, note_ids=part)
        unmade |= {e.note_id for e in reverted if e.detail.get("created")}
    return live + sum(1 for note_id in trashed if note_id not in unmade)


def drop_made_tags(store: Store, rows: ReviewRows, entry: EntryRow, undone: Collection[str]) -> None:
    """Delete the tags ``entry`` made by tagging its note, now reverted, where no note holds
    them and they still have the title it gave them (a tag renamed or used since stays)."""
    for tag_id, title in dict(entry.detail.get("tags_made", {})).items():
        try:
            tag = store.get_tag(tag_id)
        except NotFoundError:
            continue
        if tag.title == title and not holders(store, rows, tag_id, undone):
            notebooks.delete_tag(store, tag_id, actor=ACTOR_USER)

"""The changes the person has not reviewed: what assistants, outside AI apps, syncs and outside
edits did to notes, followed from the change feed.

``Review.refresh`` reads the feed from where it stopped and records each change to a note by an
actor other than the person as part of a *review entry*: the changes one actor made to one note in
a burst (``BURST_MS``), until the person changes that note. The lines added and removed and a new
title come from the revisions; a move, tags and the trash from the note's place (``noted.models.Place``)
the feed keeps after each change, compared with the one before, so a model's move still shows when
the person saved the note after it. Where the feed keeps no place (a change made in Joplin itself,
which Joplin reports without one), the review compares the last place it saw the note in with the
place it is in now, at the note's last change it reads.
What of an entry the person puts back by hand (its text: an edit undone in the editor, its
notebook, a tag, its trashing) no longer waits, and an entry with nothing left waiting is settled
as reverted (``noted.ops.review_texts.put_back``), dropping the tags it made as a revert does.
What other actors did to notebooks and tags makes entries too, in the same list
(``noted.ops.review_items``); the notes such a change took along are linked to it, folded under it
and settled with it (``noted.ops.review_along``).
``noted.ops.review_actions`` shows, accepts and reverts entries; ``noted.tools.proposals`` keeps
the writes that wait.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Sequence

from noted.errors import NotFoundError
from noted.models import ACTOR_IMPORT, ACTOR_JOPLIN, ACTOR_USER, Change, ChangeType, ItemType, Note, now_ms
from noted.ops import review_along, review_items
from noted.ops.review_texts import put_back, still_says, tags_back, versions
from noted.store.protocol import Store
from noted.store.review import Detail, EntryRow, EntryState, Place, ReviewRows, Touch
from noted.wording import plural

PERSON_ACTORS = frozenset({ACTOR_USER, ACTOR_IMPORT, ACTOR_JOPLIN})
"""The actors that are the person: their changes need no review. An edit in the Joplin app on this
machine is the person's (Joplin's sync from another device is ``sync``, and is reviewed)."""
BURST_MS = 10 * 60 * 1000
"""Changes by one actor to one note this close together are one entry."""
PAGE = 500
_NOTE_ITEMS = (ItemType.NOTE, ItemType.NOTE_TAG)
_MADE = frozenset({"created", "deleted"})
"""An entry with one of these is settled whole, never part by part by hand: a note made or deleted
for good. So is one that came along with a notebook's or a tag's change (``detail["with"]``,
``noted.ops.review_along``), though a tag put back on its note is no longer named in it."""


def is_person(actor: str) -> bool:
    """Whether ``actor`` is the person (whose changes are not reviewed)."""
    return actor in PERSON_ACTORS


def merge_detail(old: Detail, new: Detail) -> Detail:
    """One entry's detail grown by a later change of the same burst."""
    out = dict(old)
    for key in ("created", "deleted", "edited", "retagged"):
        if new.get(key):
            out[key] = True
    if "trashed" in new:
        out["trashed"] = new["trashed"]
    if "moved_to" in new:
        out.setdefault("moved_from", new["moved_from"])
        out["moved_to"] = new["moved_to"]
        if out["moved_from"] == out["moved_to"]:
            del out["moved_from"], out["moved_to"]
    if "file_to" in new:
        out.setdefault("file_from", new["file_from"])
        out["file_to"] = new["file_to"]
        if out["file_from"] == out["file_to"]:
            del out["file_from"], out["file_to"]
    added = [*out.get("tags_added", [])]
    removed = [*out.get("tags_removed", [])]
    for tag in new.get("tags_added", []):
        removed.remove(tag) if tag in removed else added.append(tag)
    for tag in new.get("tags_removed", []):
        added.remove(tag) if tag in added else removed.append(tag)
    out["tags_added"], out["tags_removed"] = sorted(set(added)), sorted(set(removed))
    if "revs" in old and "revs" in new:  # the revisions the entry's changes saved, where each says
        out["revs"] = sorted({*old["revs"], *new["revs"]})
    else:
        out.pop("revs", None)
    review_items.merge(out, new)
    review_along.merge(out, old, new)
    return {k: v for k, v in out.items() if v not in ([], None)}


def _kind(change: Change) -> Detail:
    if change.item_type is ItemType.NOTE_TAG:
        return {"retagged": True}  # which tags comes from the places, when the review saw it happen
    if change.change_type is ChangeType.CREATE:
        return {"created": True, "edited": True}
    if change.change_type is ChangeType.DELETE:
        return {"deleted": True}
    return {"edited": True}


def _place_detail(before: Place | None, after: Place | None) -> Detail:
    if before is None or after is None:
        return {}
    detail: Detail = {}
    if before.parent_id != after.parent_id:
        detail |= {"moved_from": before.parent_id, "moved_to": after.parent_id}
    if bool(before.deleted_time) != bool(after.deleted_time):
        detail["trashed"] = bool(after.deleted_time)
    added = sorted(set(after.tags) - set(before.tags))
    removed = sorted(set(before.tags) - set(after.tags))
    return detail | ({"tags_added": added} if added else {}) | ({"tags_removed": removed} if removed else {})


def line_counts(old: str, new: str) -> tuple[int, int]:
    """Lines added and removed from ``old`` to ``new``."""
    added = removed = 0
    matcher = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            removed += i2 - i1
            added += j2 - j1
    return added, removed


def lines_words(added: int, removed: int) -> str:
    """``+1 −0 lines``: what a change or a proposal does to a note's lines; '' for none."""
    return f"+{added} −{removed} lines" if added or removed else ""


def summary(entry: EntryRow, folder_titles: dict[str, str] | None = None) -> str:
    """One line on what ``entry`` did: lines added and removed, retitled, moved, tagged, trashed,
    and who wrote a text that came by sync when noted wrote it on another machine."""
    if review_items.kind_of(entry) != "note":
        return review_items.summary(entry, folder_titles)
    d = entry.detail
    parts: list[str] = []
    if d.get("created"):
        parts.append("created")
    if d.get("added") or d.get("removed"):
        parts.append(lines_words(d.get("added", 0), d.get("removed", 0)))
    if d.get("old_title") is not None:
        parts.append(f'retitled from "{d["old_title"]}"')
    if "moved_to" in d:
        where = (folder_titles or {}).get(d["moved_to"], "another notebook")
        parts.append(f'moved to "{where}"')
    if "file_to" in d:
        parts.append(f'file renamed from "{d["file_from"]}" to "{d["file_to"]}"')
    if d.get("tags_added"):
        parts.append("tagged " + ", ".join(d["tags_added"]))
    if d.get("tags_removed"):
        parts.append("untagged " + ", ".join(d["tags_removed"]))
    if "trashed" in d:
        parts.append("trashed" if d["trashed"] else "restored from the trash")
    if d.get("deleted"):
        parts.append("deleted for good")
    if d.get("retagged") and not (d.get("tags_added") or d.get("tags_removed")):
        parts.append("tags changed")
    if not parts:
        parts.append("saved with no change to its text" if d.get("edited") else "changed")
    if d.get("by"):
        parts.append(f"written by {d['by']} on another machine")
    return "; ".join(parts)


class Review:
    """The review of one profile: its store and the rows the review keeps beside it."""

    def __init__(self, store: Store, rows: ReviewRows) -> None:
        self.store = store
        self.rows = rows
        self._seeded = 0
        """The feed's end when this process first read it: an older change without a place of its
        own shows no move or trashing (there is nothing to compare it with)."""
        self._fed: set[str] = set()
        """The notes whose place before their next change is one the feed kept (``Change.place``),
        not the one the first read saw: a change after it is compared with it, however old."""

    def refresh(self) -> int:
        """Read the feed up to its end; how many entries were made or grown."""
        if self.rows.cursor() == 0:
            self._seed()
            self._skip_the_persons()
        grown = 0
        while True:
            more, count = self._page()
            grown += count
            if not more:
                return grown

    def pending(
        self,
        *,
        actor: str | None = None,
        since: int | None = None,
        folder_id: str | None = None,
        along: bool = True,
    ) -> list[EntryRow]:
        """The entries that wait, newest first (``refresh`` first to see the latest); ``along``
        False leaves out those folded under another (``noted.ops.review_along``)."""
        return self.rows.entries(
            state=EntryState.PENDING, actor=actor, since=since, folder_id=folder_id, along=along
        )

    def _seed(self) -> None:
        """Note where every note is before the first read, so that a later move or trashing by
        another actor shows; the feed's older changes are read without it (nothing to compare)."""
        self._seeded = self.store.latest_cursor()
        metas = [*self.store.list_notes(), *self.store.list_notes(trashed=True)]
        places: dict[str, Place] = {}
        for start in range(0, len(metas), PAGE):
            part = metas[start : start + PAGE]
            tags = self.store.note_tag_titles([m.id for m in part])
            places |= {m.id: Place(m.parent_id, m.deleted_time, tags.get(m.id, ())) for m in part}
        self.rows.apply(0, 0, [], places, merge=merge_detail, burst_ms=BURST_MS)

    def _skip_the_persons(self) -> None:
        """Pass over the feed the seed already covers when only the person wrote it (a profile of
        their own notes, an import): its rows would make no entry, and leave each note's place
        where the seed found it. Reading them took seconds at 10,000 notes."""
        other = self.store.first_change_not_by(0, PERSON_ACTORS)
        if self._seeded and (other is None or other > self._seeded):
            self.rows.apply(0, self._seeded, [], {}, merge=merge_detail, burst_ms=BURST_MS)

    def _page(self) -> tuple[bool, int]:
        cursor = self.rows.cursor()
        changes, more = self._read(cursor)
        if not changes:
            return False, 0
        rows = [c for c in changes if c.item_type in _NOTE_ITEMS]
        ids = list(dict.fromkeys(c.item_id for c in rows))
        notes = {n.id: n for n in self.store.get_notes(ids)}
        tags = self.store.note_tag_titles(list(notes))
        before = self.rows.places(ids)
        for c in rows:  # a note made here starts with no tags, where it was made
            if c.item_type is ItemType.NOTE and c.change_type is ChangeType.CREATE and c.item_id in notes:
                before.setdefault(c.item_id, Place(notes[c.item_id].parent_id, 0, ()))
        after = {i: Place(n.parent_id, n.deleted_time, tags.get(i, ())) for i, n in notes.items()}
        last = {c.item_id: c.id for c in rows}
        # A tag renamed is the same tag: the places kept before a rename name it by its new title.
        renames = _tag_renames(changes)
        kept = {
            c.item_id: _renamed(c.place, [r for r in renames if r[0] > c.id])
            for c in rows
            if c.id == last[c.item_id] and c.place is not None
        }
        # A note deleted for good that the review never saw (nor its text) leaves nothing to review.
        known = set(before) | set(notes)
        seen = dict(before)  # each note's place as of the change read last, where the feed says it
        touches, done = [], 0
        for c in (c for c in rows if c.item_id in known):
            while done < len(renames) and renames[done][0] < c.id:
                seen = {note: _renamed(place, renames[done : done + 1]) for note, place in seen.items()}
                done += 1
            touches.append(self._touch(c, notes.get(c.item_id), seen, after, last))
        items = (c for c in changes if c.item_type in review_items.ITEM_KINDS)
        touches += [t for c in items if (t := review_items.touch(c, is_person(c.actor))) is not None]
        came = review_along.came_with(changes, {i: n.parent_id for i, n in notes.items()})
        touches = sorted((review_along.linked(t, came) for t in touches), key=lambda t: t.feed_id)
        # (sorted: a person's change ends a burst only after what came before)
        end = changes[-1].id
        # Where the feed kept the place of a note's last change, the next read starts from it: the
        # note may have changed again between the feed's page and the read of the notes.
        touched = self.rows.apply(
            cursor,
            end,
            touches,
            after | kept,
            merge=merge_detail,
            burst_ms=BURST_MS,
            renames=[(old, new) for _, old, new in renames],
        )
        for entry_id in touched or ():
            self._count_lines(self.rows.entry(entry_id))
        if touched is not None:
            self._undone([t.note_id for t in touches if t.person])
        return more, len(touched or ())

    def _read(self, cursor: int) -> tuple[Sequence[Change], bool]:
        """The feed's rows after ``cursor``, a page of them or more, ending where a change ends:
        its last rows by one actor may be part of one change whose other rows follow (a
        notebook's trashing and the notes it takes along), read together with those; and
        whether more rows follow."""
        limit = PAGE
        while True:
            page = self.store.changes_since(cursor, limit)
            if not page.has_more:
                return page.changes, False
            if whole := _whole(page.changes):
                return whole, True
            limit *= 2  # one actor's rows fill the page: read on to where they end

    def _touch(
        self,
        change: Change,
        note: Note | None,
        seen: dict[str, Place],
        after: dict[str, Place],
        last: dict[str, int],
    ) -> Touch:
        """The review's view of ``change``; ``seen`` (each note's place as of the change before)
        moves on to the place the feed keeps for it."""
        person = is_person(change.actor)
        detail: Detail = {} if person else _kind(change)
        if not person and change.revision is not None:
            detail["revs"] = [change.revision]  # 0: it saved none (its text stayed)
        if not person and change.renamed is not None:
            detail["file_from"], detail["file_to"] = change.renamed
        note_id = change.item_id
        placed = not person and change.id > self._seeded
        if change.place is not None:
            # The place this very change left: what the actor moved, tagged or trashed is its own,
            # whoever changed the note next. A note's making starts it where it was made.
            made = change.item_type is ItemType.NOTE and change.change_type is ChangeType.CREATE
            if (placed or (not person and note_id in self._fed)) and not made:
                detail |= _place_detail(seen.get(note_id), change.place)
            seen[note_id] = change.place
            self._fed.add(note_id)
        elif placed and last[note_id] == change.id:
            # No place kept: what changed is seen once per page, at the note's last change in it.
            detail |= _place_detail(seen.get(note_id), after.get(note_id))
        title, folder = (note.title, note.parent_id) if note else ("", "")
        return Touch(change.id, note_id, change.actor, change.time, person, title, folder, detail)

    def _undone(self, note_ids: Sequence[str]) -> None:
        """Settle what the person put back by hand of the waiting entries of the notes they changed
        (``put_back``): an entry with nothing left waiting is settled as reverted."""
        ids = list(dict.fromkeys(note_ids))
        entries = [e for i in range(0, len(ids), PAGE) for e in self.rows.entries(note_ids=ids[i : i + PAGE])]
        waiting = [e for e in entries if review_items.kind_of(e) == "note" and not e.detail.keys() & _MADE]
        if not waiting:
            return
        notes = {n.id: n for n in self.store.get_notes(list({e.note_id for e in waiting}))}
        tags = self.store.note_tag_titles(list(notes))
        undone = []
        for entry in (e for e in waiting if e.note_id in notes):
            if "with" in entry.detail:  # settled whole with what it came with; its tags said truly
                told = tags_back(entry.detail, tags.get(entry.note_id, ()))
                if told != entry.detail and still_says(told):
                    self.rows.set_detail(entry.id, told)
                continue
            note = notes[entry.note_id]
            history = self.store.note_history(note.id) if entry.detail.get("edited") else []
            detail, settled = put_back(entry, note, tags.get(note.id, ()), versions(history, entry))
            if settled:
                undone.append(entry)
            elif detail != entry.detail:
                self.rows.set_detail(entry.id, detail)
        if undone:
            self.rows.decide([e.id for e in undone], EntryState.REVERTED, now_ms())
        for entry in undone:  # as a revert does: the tags it made go where nothing holds them
            review_along.drop_made_tags(self.store, self.rows, entry, ())

    def _count_lines(self, entry: EntryRow) -> None:
        if not entry.detail.get("edited"):
            return
        try:
            history = self.store.note_history(entry.note_id)
        except NotFoundError:  # deleted for good before the feed was read: its text is gone too
            return
        found = versions(history, entry)
        detail = {k: v for k, v in entry.detail.items() if k not in ("added", "removed", "old_title", "by")}
        if found is not None:
            old_title, old_body = (found.before.title, found.before.body) if found.before else ("", "")
            detail["added"], detail["removed"] = line_counts(old_body, found.after.body)
            if found.after.actor != entry.actor:  # a sync's text, noted's on another machine
                detail["by"] = found.after.actor
            if found.before is not None and old_title != found.after.title:
                detail["old_title"] = old_title
        if detail != entry.detail:
            self.rows.set_detail(entry.id, detail)


def _tag_renames(changes: Sequence[Change]) -> list[tuple[int, str, str]]:
    """The tags renamed in ``changes``, in the feed's order: (feed id, old title, new title)."""
    return [
        (c.id, c.item.was.title, c.item.title)
        for c in changes
        if c.item_type is ItemType.TAG and c.item and c.item.was and c.item.was.title != c.item.title
    ]


def _renamed(place: Place, renames: Sequence[tuple[int, str, str]]) -> Place:
    """``place`` with its tags' titles as they are after ``renames``."""
    tags = place.tags
    for _, old, new in renames:
        tags = tuple(new if t == old else t for t in tags)
    return place if tags == place.tags else dataclasses.replace(place, tags=tags)


def _whole(changes: Sequence[Change]) -> Sequence[Change]:
    """``changes`` without its last rows by the last row's actor (none when they are all of it)."""
    cut = len(changes)
    while cut > 0 and changes[cut - 1].actor == changes[-1].actor:
        cut -= 1
    return changes[:cut]


def pending_line(count: int) -> str:
    """The status bar's words for ``count`` waiting changes ('' for none)."""
    return f"{plural(count, 'change')} to review" if count else ""

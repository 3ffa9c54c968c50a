"""Which notes carry each tag on Joplin, as last read, kept while noted's feed shows no change to them.

Joplin's ``/tags/ID/notes`` loads every note of the tag at each page of 100 it serves (a page of a
tag of 1,000 notes: 0.7 s, so ten of them to count it), and the notebook tree counts every tag at
each refresh, which follows each change. So the notes (not in the trash) of each tag read are kept
here with noted's feed cursor. Before an answer the feed after that cursor is read (with Joplin's
new events, as the feed's pace allows): each note changed since, by noted or in Joplin, is asked
whether it is in the trash and which tags it carries (two light requests) and the kept tags follow;
a tag made or deleted is read again. Past ``CHECK_NOTES`` changed notes every tag is
read again, which then costs less.

Joplin's events report no tag link: one added or removed in Joplin itself (or by its sync) with
no change of the note is seen when the tag is read again, so a tag is kept ``KEEP_SECONDS`` at most.
The rows of a page of notes take their tags from here too, while every tag is kept (``kept_of``).

Joplin's ``/tags/ID/notes`` leaves the notes in the trash out: the tags of each one are read by
itself (``trashed_of``) and kept until the feed shows a change of it (or ``KEEP_SECONDS``), so the
trash's page asks for its rows' tags once, not at each load.

The tree's notebook and to-do counts listed every note (ten pages for 1,000) at each refresh: each
note's notebook and whether it is a to-do (``places``) are kept the same way, read whole once and
then followed through the feed (Joplin's events report every change of a note, its move, its
trashing, in Joplin itself too, as the feed's pace allows), read again after ``KEEP_SECONDS``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable

from noted.errors import NotFoundError
from noted.models import ChangeType, ItemType
from noted.store.joplin.base import JoplinApi, safe_id

CHECK_NOTES = 50
"""Up to this many notes changed since the last answer, each is asked for its tags; past it, the tags
are read again."""
KEEP_SECONDS = 60.0
"""How long a tag's notes are kept at most (a tag link made in Joplin itself is seen after it)."""
_ROWS = 1000


class TagNotes:
    """The notes of each tag as Joplin has them, each tag read once while nothing changes it."""

    def __init__(self, api: JoplinApi, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.api = api
        self._clock = clock
        self._lock = threading.Lock()
        self._kept: dict[str, tuple[float, frozenset[str]]] = {}
        """Tag id → (when it was read, the ids of its notes not in the trash)."""
        self._places: tuple[float, dict[str, tuple[str, bool]]] | None = None
        """When they were read, and each note's (notebook, is a to-do), of the notes Joplin lists
        (not in the trash, no conflict copy)."""
        self._trashed: dict[str, tuple[float, frozenset[str]]] = {}
        """Note id → (when it was read, the ids of its tags), of notes in the trash."""
        self._cursor: int | None = None
        """noted's feed cursor the kept tags are true at."""

    def note_ids(self, tag_id: str) -> frozenset[str]:
        """The ids of the notes not in the trash that carry the tag (``NotFoundError``: no such tag)."""
        return self.note_ids_of([tag_id])[tag_id]

    def note_ids_of(self, tag_ids: Iterable[str]) -> dict[str, frozenset[str]]:
        """``note_ids`` of each tag, the feed followed once for them all."""
        mark = self.mark()
        found: dict[str, frozenset[str]] = {}
        for tag_id in dict.fromkeys(tag_ids):
            with self._lock:
                kept = self._kept.get(tag_id)
            if kept is not None and self._clock() - kept[0] < KEEP_SECONDS:
                found[tag_id] = kept[1]
                continue
            items = self.api.client.get_all(f"/tags/{safe_id(tag_id)}/notes", {"fields": "id"})
            found[tag_id] = frozenset(str(item["id"]) for item in items)
            self.keep(tag_id, found[tag_id], mark)
        return found

    def places(self) -> dict[str, tuple[str, bool]]:
        """Each note not in the trash nor a conflict copy: its notebook's id and whether it is a to-do.

        Joplin's new events are read first, paced or not: writes decide on these counts (a notebook
        left alone while it holds notes), and a read before a write sees Joplin as it is now."""
        self.api.feed.pull()
        mark = self.mark()
        with self._lock:
            if self._places is not None and self._clock() - self._places[0] < KEEP_SECONDS:
                return dict(self._places[1])
        items = self.api.client.get_all("/notes", {"fields": "id,parent_id,is_todo"})
        found = {str(i["id"]): (str(i.get("parent_id") or ""), bool(i.get("is_todo"))) for i in items}
        with self._lock:
            if self._cursor == mark:  # else a change may be missing: read again next time
                self._places = (self._clock(), found)
        return dict(found)

    def kept_of(self, tag_ids: Iterable[str]) -> dict[str, frozenset[str]] | None:
        """``note_ids`` of each tag when every one is kept (the feed followed), else None: no tag is read."""
        self.mark()
        with self._lock:
            now = self._clock()
            kept = {tag_id: self._kept.get(tag_id) for tag_id in tag_ids}
            if any(k is None or now - k[0] >= KEEP_SECONDS for k in kept.values()):
                return None
            return {tag_id: k[1] for tag_id, k in kept.items() if k is not None}

    def trashed_of(self, note_ids: Iterable[str]) -> dict[str, frozenset[str]]:
        """The ids of the tags of each note in the trash kept (the feed followed); the others are
        left out: read them, then ``keep_trashed``."""
        self.mark()
        with self._lock:
            now = self._clock()
            kept = {n: self._trashed.get(n) for n in note_ids}
            return {n: k[1] for n, k in kept.items() if k is not None and now - k[0] < KEEP_SECONDS}

    def keep_trashed(self, tags: dict[str, Iterable[str]], mark: int) -> None:
        """Keep the ids of the tags of notes in the trash read just now, ``mark`` taken before."""
        with self._lock:
            if self._cursor == mark:
                self._trashed |= {n: (self._clock(), frozenset(ids)) for n, ids in tags.items()}

    def mark(self) -> int:
        """Bring the kept tags up to noted's feed, and return its cursor, for ``keep``."""
        with self._lock:
            self._follow()
            assert self._cursor is not None
            return self._cursor

    def keep(self, tag_id: str, note_ids: Iterable[str], mark: int) -> None:
        """Keep the notes of the tag read just now (not in the trash), ``mark`` taken before the read:
        if the feed moved on meanwhile, a change may be missing from them, and they are not kept."""
        with self._lock:
            if self._cursor == mark:
                self._kept[tag_id] = (self._clock(), frozenset(note_ids))

    def _follow(self) -> None:
        """Apply the feed's changes after the cursor to the kept tags (under the lock)."""
        if self._cursor is None or (not self._kept and not self._trashed and self._places is None):
            self._cursor = self.api.feed.latest_cursor()
            return
        notes: set[str] = set()
        tags: set[str] = set()
        while True:
            page = self.api.feed.changes_since(self._cursor, _ROWS)
            for change in page.changes:
                if change.item_type in (ItemType.NOTE, ItemType.NOTE_TAG):
                    notes.add(change.item_id)
                elif change.item_type is ItemType.TAG and change.change_type is not ChangeType.UPDATE:
                    tags.add(change.item_id)  # made or deleted (a rename leaves its notes)
            self._cursor = page.cursor
            if not page.has_more or len(notes) > CHECK_NOTES:
                break
        if len(notes) > CHECK_NOTES or page.has_more:
            self._kept.clear()
            self._trashed.clear()
            self._places = None
            self._cursor = self.api.feed.latest_cursor()
            return
        for tag_id in tags:
            self._kept.pop(tag_id, None)
        for note_id in notes:
            self._trashed.pop(note_id, None)  # read again when asked
            self._check(note_id)

    def _check(self, note_id: str) -> None:
        """Put the note in the kept tags it carries now, and take it out of the others; keep its place."""
        carried: set[str] = set()
        place: tuple[str, bool] | None = None
        try:
            fields = "id,parent_id,is_todo,is_conflict,deleted_time"
            item = self.api.client.get(f"/notes/{safe_id(note_id)}", {"fields": fields})
            if not item.get("deleted_time") and not int(item.get("is_conflict") or 0):
                place = (str(item.get("parent_id") or ""), bool(item.get("is_todo")))
            if not item.get("deleted_time") and self._kept:
                tags = self.api.client.get_all(f"/notes/{safe_id(note_id)}/tags", {"fields": "id"})
                carried = {str(t["id"]) for t in tags}
        except NotFoundError:  # erased
            pass
        if self._places is not None:
            if place is None:
                self._places[1].pop(note_id, None)
            else:
                self._places[1][note_id] = place
        for tag_id, (read, ids) in list(self._kept.items()):
            if (note_id in ids) != (tag_id in carried):
                self._kept[tag_id] = (read, ids - {note_id} if note_id in ids else ids | {note_id})

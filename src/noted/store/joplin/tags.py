"""Tags on Joplin, and the links between notes and tags.

Joplin's ``/events`` reports neither tags nor links, so noted appends a ``note_tag`` row (keyed by
the note, as in the embedded store) for each link it adds or removes, and a ``tag`` row for each
tag it creates, renames or deletes, when Joplin answers. A tag's ``note_count`` is the number of
its notes kept by ``noted.store.joplin.tag_notes``, read again only when they may have changed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from noted.errors import BackendError, InvalidInputError, NotFoundError, PartlyDoneError
from noted.models import ChangeType, ItemState, ItemType, Place, Tag, new_id
from noted.store.joplin.base import TAG_FIELDS, JoplinApi, safe_id, tag_of
from noted.store.joplin.tag_notes import TagNotes
from noted.store.rules import clean_tag_title

TAG_READERS = 4
"""Requests for the tags of a page of notes in flight at once (measured on a 2-core machine: 1 s
for 100 notes one by one, 0.3 to 0.45 s with 2 to 8)."""


class Tags:
    """The tags of the Joplin store, and their links to notes."""

    def __init__(self, api: JoplinApi) -> None:
        self.api = api
        self.notes = TagNotes(api)

    def list_tags(self, *, with_notes_only: bool = False, counted: bool = True) -> list[Tag]:
        items = self.api.client.get_all("/tags", {"fields": TAG_FIELDS})
        tags = self._all_counted(items) if counted or with_notes_only else [tag_of(i) for i in items]
        if with_notes_only:
            tags = [t for t in tags if t.note_count > 0]
        return sorted(tags, key=lambda t: (t.title.casefold(), t.id))

    def _counted(self, item: dict[str, Any]) -> Tag:
        return self._all_counted([item])[0]

    def _all_counted(self, items: Sequence[dict[str, Any]]) -> list[Tag]:
        notes = self.notes.note_ids_of(str(i["id"]) for i in items)
        return [tag_of(i, len(notes[str(i["id"])])) for i in items]

    def get_tag(self, tag_id: str) -> Tag:
        return self._counted(self._item(tag_id))

    def _item(self, tag_id: str) -> dict[str, Any]:
        try:
            return dict(self.api.client.get(f"/tags/{safe_id(tag_id)}", {"fields": TAG_FIELDS}))
        except NotFoundError:
            raise NotFoundError(f'no tag with id "{tag_id}"') from None

    def _find(self, title: str) -> dict[str, Any] | None:
        wanted = title.strip().casefold()
        if not wanted:
            return None
        # Joplin's tag search is a LIKE on the title, where "*" is the only wildcard it maps.
        for item in self.api.client.get_all(
            "/search", {"type": "tag", "query": title.strip(), "fields": TAG_FIELDS}
        ):
            if str(item.get("title", "")).casefold() == wanted:
                return dict(item)
        for item in self.api.client.get_all("/tags", {"fields": TAG_FIELDS}):
            if str(item.get("title", "")).casefold() == wanted:
                return dict(item)
        return None

    def find_tag(self, title: str) -> Tag | None:
        item = self._find(title)
        return None if item is None else self._counted(item)

    def ensure_tag(self, title: str, actor: str, note_id: str = "") -> str:
        """The tag's id, made when missing (for ``note_id``: its feed row says so, and the review
        leaves it to the note's entry)."""
        return self._ensure(title, actor, note_id)[0]

    def _ensure(self, title: str, actor: str, note_id: str) -> tuple[str, str]:
        """``ensure_tag``'s id, and the tag's title as Joplin keeps it."""
        title = clean_tag_title(title)
        found = self._find(title)
        if found is not None:
            return str(found["id"]), str(found.get("title", title))
        tag_id = new_id()
        made = ItemState(title, notes=(note_id,) if note_id else ())
        body = {"id": tag_id, "title": title}
        answer = self.api.send(tag_id, actor, "POST", "/tags", body, change=ChangeType.CREATE, state=made)
        return tag_id, str(answer.get("title", title)) if isinstance(answer, dict) else title

    def create_tag(self, title: str, *, actor: str) -> Tag:
        return self.get_tag(self.ensure_tag(title, actor))

    def rename_tag(self, tag_id: str, title: str, *, actor: str) -> Tag:
        title = clean_tag_title(title)
        old = self.get_tag(tag_id)
        clash = self._find(title)
        if clash is not None and clash["id"] != tag_id:
            raise InvalidInputError(f'a tag named "{title}" exists already')
        state = ItemState(title, was=ItemState(old.title))
        path = f"/tags/{safe_id(tag_id)}"
        self.api.send(tag_id, actor, "PUT", path, {"title": title}, change=ChangeType.UPDATE, state=state)
        return self.get_tag(tag_id)

    def delete_tag(self, tag_id: str, *, actor: str) -> None:
        """Delete a tag for good and unlink it from every note."""
        title = str(self._item(tag_id).get("title", ""))  # its notes are read once, as they are now
        linked = [
            str(n["id"]) for n in self.api.client.get_all(f"/tags/{safe_id(tag_id)}/notes", {"fields": "id"})
        ]
        # Those in the trash too, which Joplin unlinks as well: a revert puts the tag back on them.
        linked += [str(n["id"]) for n in self.api.trashed_with_tag(self.api.trash("id,deleted_time"), tag_id)]
        self.api.send(tag_id, actor, "DELETE", f"/tags/{safe_id(tag_id)}")
        self.api.sidecar.record(ItemType.NOTE_TAG, linked, ChangeType.DELETE, actor)
        gone = {tag_id: ItemState(title, notes=tuple(linked))}
        self.api.sidecar.record(ItemType.TAG, [tag_id], ChangeType.DELETE, actor, gone)

    def note_tags(self, note_id: str) -> list[Tag]:
        items = self.api.client.get_all(f"/notes/{safe_id(note_id)}/tags", {"fields": TAG_FIELDS})
        return sorted(self._all_counted(items), key=lambda t: (t.title.casefold(), t.id))

    def note_tag_titles(self, note_ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """The titles only (``note_tags`` would also count each tag's notes). For a page of notes,
        from the kept notes of the tags when every tag is kept (the tree keeps them): the tags'
        listing and the feed, a few requests, not one a note. A tag link made in Joplin itself
        without a change of the note is then seen within ``tag_notes.KEEP_SECONDS``, as in the
        tags' counts. Otherwise one request a note. The notes in the trash (which no tag keeps)
        each have their tags read once, then kept while the feed shows no change of them."""
        kept = self._kept_titles(note_ids) if len(note_ids) > 1 else None
        if kept is None:
            return _titles(self._read_tags(note_ids))
        found, unknown, items = kept
        if unknown:  # untagged, or in the trash, where only the note's own read tells
            trashed = {str(i["id"]) for i in self.api.trash("id,deleted_time")}
            found |= self._trashed_titles([n for n in unknown if n in trashed], items)
        return {note_id: found[note_id] for note_id in note_ids if note_id in found}

    def _kept_titles(
        self, note_ids: Sequence[str]
    ) -> tuple[dict[str, tuple[str, ...]], list[str], list[Any]] | None:
        """The notes' tag titles from the kept tags, the notes that carry none of them, and every
        tag (A to Z); None when a tag is not kept."""
        items = self.api.client.get_all("/tags", {"fields": "id,title"})
        items.sort(key=lambda i: (str(i["title"]).casefold(), str(i["id"])))
        kept = self.notes.kept_of(str(i["id"]) for i in items)
        if kept is None:
            return None
        wanted = set(note_ids)
        found: dict[str, list[str]] = {}
        for item in items:
            for note_id in kept[str(item["id"])] & wanted:
                found.setdefault(note_id, []).append(str(item["title"]))
        unknown = [n for n in note_ids if n not in found]
        return {n: tuple(titles) for n, titles in found.items()}, unknown, items

    def _trashed_titles(self, note_ids: Sequence[str], tags: Sequence[Any]) -> dict[str, tuple[str, ...]]:
        """The tag titles of notes in the trash: those kept, and the others read (then kept)."""
        mark = self.notes.mark()
        kept = self.notes.trashed_of(note_ids)
        read = self._read_tags([n for n in note_ids if n not in kept])
        self.notes.keep_trashed({n: (str(t["id"]) for t in items) for n, items in read.items()}, mark)
        kept |= {n: frozenset(str(t["id"]) for t in items) for n, items in read.items()}
        found = {n: tuple(str(t["title"]) for t in tags if str(t["id"]) in ids) for n, ids in kept.items()}
        return {n: titles for n, titles in found.items() if titles}

    def _read_tags(self, note_ids: Sequence[str]) -> dict[str, list[Any]]:
        """Each note's tags (id, title), A to Z, one request a note (``/tags/ID/notes`` loads every
        note of the tag at each page: 1.6 s for a tag of 1,000 notes). ``TAG_READERS`` are in
        flight at once: half the time for a page."""

        def tags(note_id: str) -> list[Any]:
            items = self.api.client.get_all(f"/notes/{safe_id(note_id)}/tags", {"fields": "id,title"})
            return sorted(items, key=lambda i: (str(i["title"]).casefold(), str(i["id"])))

        if len(note_ids) < 2:
            return {note_id: tags(note_id) for note_id in note_ids}
        with ThreadPoolExecutor(TAG_READERS, thread_name_prefix="joplin-tags") as pool:
            return dict(zip(note_ids, pool.map(tags, note_ids), strict=True))

    def _linked_ids(self, note_id: str) -> set[str]:
        try:
            items = self.api.client.get_all(f"/notes/{safe_id(note_id)}/tags", {"fields": "id"})
        except NotFoundError:
            raise NotFoundError(f'no note with id "{note_id}"') from None
        return {str(i["id"]) for i in items}

    def tag_note(self, note_id: str, titles: Sequence[str], *, actor: str) -> list[Tag]:
        """Add tags (created when missing) to a note; returns the note's tags afterwards."""
        self.link(note_id, titles, actor=actor)
        return self.note_tags(note_id)

    def link(self, note_id: str, titles: Sequence[str], *, actor: str, made: Place | None = None) -> None:
        """``tag_note`` without its answer, which counts the notes of each of the note's tags (for
        a note being created: an import of many notes of one tag would read them again and again).
        ``made``: the place of a note this process has just made (no tag yet): it is not read
        again, before or after each link (``JoplinApi.send``'s ``known``)."""
        linked: set[str] = set()
        if made is None:
            self.api.note_item(note_id, "id")
            linked = self._linked_ids(note_id)
        done: list[str] = []
        place = made
        for index, title in enumerate(titles):
            try:
                tag_id, stored = self._ensure(title, actor, note_id)
                if tag_id in linked:
                    continue
                path = f"/tags/{tag_id}/notes"
                known = None
                if place is not None:
                    tags = tuple(sorted((*place.tags, stored), key=str.casefold))
                    known = (place, dataclasses.replace(place, tags=tags))
                self.api.send(
                    note_id, actor, "POST", path, {"id": note_id}, change=ChangeType.CREATE, known=known
                )
                place = known[1] if known else None
            except BackendError as exc:  # Joplin's: a retry must know what was written
                raise _stopped(("added", "adding"), titles, done, index, exc) from None
            linked.add(tag_id)
            done.append(title)

    def untag_note(self, note_id: str, titles: Sequence[str], *, actor: str) -> list[Tag]:
        """Remove tags from a note (unknown titles are ignored); returns the note's tags afterwards."""
        self.api.note_item(note_id, "id")
        linked = self._linked_ids(note_id)
        done: list[str] = []
        for index, title in enumerate(titles):
            try:
                found = self._find(title)
                if found is None or found["id"] not in linked:
                    continue
                tag_id = str(found["id"])
                path = f"/tags/{tag_id}/notes/{safe_id(note_id)}"
                self.api.send(note_id, actor, "DELETE", path, change=ChangeType.DELETE)
            except BackendError as exc:  # Joplin's: a retry must know what was written
                raise _stopped(("taken off", "taking off"), titles, done, index, exc) from None
            linked.discard(tag_id)
            done.append(title)
        return self.note_tags(note_id)


def _titles(tags: dict[str, list[Any]]) -> dict[str, tuple[str, ...]]:
    """The titles of each note's tags, for the notes that carry any."""
    return {note_id: tuple(str(t["title"]) for t in items) for note_id, items in tags.items() if items}


def _stopped(
    words: tuple[str, str], titles: Sequence[str], done: Sequence[str], index: int, exc: BackendError
) -> BackendError:
    """``exc`` for a change of one tag; for several, what it says of the tags written before it
    stopped, so that a retry does not redo them: the tags ``done``, and ``titles[index]`` on."""
    if len(titles) == 1:
        return exc
    rest = f" ({', '.join(titles[index + 1 :])} not tried)" if titles[index + 1 :] else ""
    done_line = f"tags {words[0]}: {', '.join(done)}" if done else f"no tag was {words[0]}"
    return PartlyDoneError(done_line, f"{words[1]} {titles[index]} stopped{rest}", exc)

"""A page of a tag's notes on Joplin, found in a listing Joplin sorts itself.

Joplin's ``/tags/ID/notes`` loads every note of the tag at each page it serves, and its sort
(``collectionToPaginatedResults``) uses a comparator that never answers "after", so its pages are
in no useful order: the whole tag was read to show one page (ten pages, each loading all 1,000
notes, for a tag of 1,000). When the tag's notes are kept (``noted.store.joplin.tag_notes``, which
the tree's counts keep) and more than one page of them, the notebook's or the store's listing,
which Joplin sorts and pages in SQL, is read from its start instead, and only its notes of the tag
are taken, until the page is full and every note tied with its last is seen (Joplin breaks ties
by id in the listing's direction, noted by id ascending). Titles are sorted by Joplin without
case for ASCII letters only, by noted with ``str.casefold``: a title order reads the tag whole.

A walk costs a request for every 100 notes before the page's last: a tag on the oldest notes of a
large store was walked to the listing's end (3,500 notes: 36 requests, 0.85 s, where reading the
tag of 150 whole took 2 requests, 0.24 s). A walk therefore stops after ``walk_budget`` pages, about
what reading the tag whole costs, and the tag is read whole instead; ``Walks`` remembers it, so the
next pages of that tag go straight to the whole read rather than each paying the budget first.
"""

from __future__ import annotations

import threading
from collections.abc import Collection
from typing import Any

from noted.store.joplin.base import META_FIELDS, safe_id
from noted.store.joplin.client import PAGE_LIMIT, JoplinClient
from noted.store.joplin.tag_notes import TagNotes
from noted.store.protocol import NoteOrder

WALKED = {
    NoteOrder.UPDATED: ("user_updated_time", "DESC"),
    NoteOrder.CREATED: ("user_created_time", "DESC"),
    NoteOrder.ID: ("id", "ASC"),
}
"""The orders in which Joplin's listing and noted agree but for ties (not titles)."""


class Walks:
    """Where walking a listing for a tag's page gave up, in this process: a page of the same tag,
    notebook and order that wants as many notes or more would give up too (it must walk at least
    as far), so it is read whole at once. Not forgotten: at worst a page that a walk would now
    find costs the whole read, which the budget keeps near the walk's own cost."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._gave_up: dict[tuple[str, str | None, NoteOrder], float] = {}
        """(tag, notebook, order) → the fewest notes wanted (``inf``: all) of a walk that gave up."""

    def hopeless(self, tag_id: str, folder_id: str | None, order: NoteOrder, wanted: int | None) -> bool:
        """Whether a walk for this page would give up, as one wanting no more did."""
        with self._lock:
            fewest = self._gave_up.get((tag_id, folder_id, order))
        return fewest is not None and _count(wanted) >= fewest

    def gave_up(self, tag_id: str, folder_id: str | None, order: NoteOrder, wanted: int | None) -> None:
        with self._lock:
            key = (tag_id, folder_id, order)
            self._gave_up[key] = min(self._gave_up.get(key, float("inf")), _count(wanted))


def _count(wanted: int | None) -> float:
    return float("inf") if wanted is None else float(wanted)


def tag_items(
    client: JoplinClient,
    kept: TagNotes,
    walks_seen: Walks,
    tag_id: str,
    folder_id: str | None,
    order: NoteOrder,
    wanted: int | None,
) -> list[Any]:
    """The tag's notes (not in the trash; of the notebook, if given) with ``META_FIELDS``: at least
    the first ``wanted`` in ``order`` (None: all), in any order. Read whole, the tag's notes are kept."""
    known = kept.kept_of([tag_id])
    note_ids = None if known is None else known[tag_id]
    if walks(note_ids, order) and not walks_seen.hopeless(tag_id, folder_id, order, wanted):
        assert note_ids is not None
        walked = walk(client, folder_id, note_ids, order, wanted)
        if walked is not None:
            return walked
        walks_seen.gave_up(tag_id, folder_id, order, wanted)
    mark = kept.mark()
    items = client.get_all(f"/tags/{safe_id(tag_id)}/notes", {"fields": META_FIELDS})
    kept.keep(tag_id, (str(i["id"]) for i in items), mark)
    return items


def walks(note_ids: Collection[str] | None, order: NoteOrder) -> bool:
    """Whether a page of the tag is read by walking a listing: its notes are kept, more than a
    page of them (a page of ``/tags/ID/notes`` holds them all), in an order Joplin sorts alike."""
    return note_ids is not None and len(note_ids) > PAGE_LIMIT and order in WALKED


def walk_budget(tag_size: int) -> int:
    """The pages of a listing a walk may read for a tag of ``tag_size`` notes: each of the tag's own
    pages loads all its notes (measured on the terminal app: 0.12 s a page for 150 notes, 0.7 s for
    1,000), a listing's page of 100 about 24 ms; so, about what reading the tag whole takes."""
    return -(-tag_size // PAGE_LIMIT) * (2 + tag_size // 40)


def walk(
    client: JoplinClient,
    folder_id: str | None,
    note_ids: Collection[str],
    order: NoteOrder,
    wanted: int | None,
) -> list[Any] | None:
    """The items of ``note_ids`` in the notebook's listing (or the store's, conflict copies included,
    as ``/tags/ID/notes`` holds them), at least the first ``wanted`` in ``order`` (None: all); None
    when they are not found within ``walk_budget`` pages."""
    by, direction = WALKED[order]
    if folder_id is None:
        path, params = "/notes", {"include_conflicts": "1"}
    else:
        path, params = f"/folders/{safe_id(folder_id)}/notes", {}
    params |= {"fields": META_FIELDS, "order_by": by, "order_dir": direction}
    out: list[Any] = []
    budget = walk_budget(len(note_ids))
    for number, page in enumerate(client.pages(path, params), start=1):
        out += [item for item in page if str(item.get("id")) in note_ids]
        if wanted is not None and 0 < wanted <= len(out) and page[-1].get(by) != out[wanted - 1].get(by):
            break  # past the last tie of the page's last note
        if number >= budget and len(page) == PAGE_LIMIT:  # (a shorter page is the last)
            return None
    return out

"""The texts a review entry of a note lies between (``versions``), and what of the entry the
person put back by hand (``put_back``).

The rule for putting back by hand: each part of a note's entry that the person puts back as it was
before the entry (its text and title, its notebook, each tag, its trashing) is settled: the entry
no longer lists, shows or reverts it. Once no part waits, ``noted.ops.review.Review`` settles the
entry as reverted. An entry that made or deleted a note, or came along with a notebook's or a tag's
change, is settled whole only; one that came along no longer names a tag put back on its note
(reverting a tag's deletion puts it back) while something else of it still waits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from noted.models import ACTOR_SYNC, SYNCED_LABEL, Note, Revision
from noted.store.review import Detail, EntryRow

SKEW_MS = 5_000
"""How much earlier than its feed row a revision may be stamped (Joplin stamps the note's time), where
the feed does not name the revision a change saved (Joplin's feed, older rows)."""
_TEXT_KEYS = frozenset({"edited", "added", "removed", "old_title", "by"})
"""The keys of an entry that say it changed the note's text (and title)."""
_PLACE_KEYS = frozenset({"moved_to", "trashed", "tags_added", "tags_removed", "retagged"})
"""The keys of an entry that say it moved, trashed or tagged the note."""


def same_text(one: Note | Revision, other: Note | Revision) -> bool:
    """Whether two states of a note have the same title and text, final newlines aside (``noted
    edit`` hands ``$EDITOR`` the note ending in one, and the editor saves it)."""
    return one.title == other.title and one.body.rstrip("\n") == other.body.rstrip("\n")


@dataclass(frozen=True, slots=True)
class Versions:
    """The revisions an entry lies between: the one before its first (None for a new note), the
    state before the actor started, and its last."""

    before: Revision | None
    after: Revision


def _made(revision: Revision, entry: EntryRow) -> bool:
    """Whether ``revision`` is one of ``entry``'s: one its changes saved, where the feed names them
    (``Change.revision``); else (Joplin's feed, older rows) its actor's in its time."""
    if (revs := entry.detail.get("revs")) is not None:
        return revision.id in revs
    # A sync's change that noted wrote on another machine is recorded as its writer's.
    by = revision.actor == entry.actor or (entry.actor == ACTOR_SYNC and revision.label == SYNCED_LABEL)
    return by and entry.first_time - SKEW_MS <= revision.time <= entry.last_time


def versions(history: Sequence[Revision], entry: EntryRow) -> Versions | None:
    """Find ``entry``'s revisions in the note's ``history`` (newest first); None when the entry
    changed no text (or its revisions were thinned away). An entry of several saves that were not
    collapsed into one revision (two tool calls, say) lies between the revision before its oldest
    and its newest, so its diff, counts and revert take in every save, not only the last. None
    too once the person put its text back by hand (``put_back``)."""
    if entry.detail.get("text_back"):
        return None
    for index, revision in enumerate(history):
        if _made(revision, entry):
            first = index
            while first + 1 < len(history) and _made(history[first + 1], entry):
                first += 1
            before = history[first + 1] if first + 1 < len(history) else None
            return Versions(before, revision)
    return None


def put_back(entry: EntryRow, note: Note, tags: Sequence[str], found: Versions | None) -> tuple[Detail, bool]:
    """``entry``'s detail without the parts the person put back as they were before it (its text,
    notebook, each tag, trashing), and whether that settles it: a part was put back and none is
    left (a text it changed whose versions are not found still waits). A text put back is marked
    ``text_back``: the entry no longer shows, counts or reverts it (``versions`` finds none)."""
    d = dict(entry.detail)
    saved = d.get("revs")  # 0: a change that saved no revision (a move, say)
    text = bool(d.get("edited")) and (saved is None or any(saved))
    if found is not None and found.before is not None:
        text = not same_text(found.after, found.before)
        if text and same_text(note, found.before):
            d = {k: v for k, v in d.items() if k not in _TEXT_KEYS} | {"text_back": True}
            text = False
    if "moved_to" in d and note.parent_id == d["moved_from"]:
        del d["moved_from"], d["moved_to"]
    if "trashed" in d and bool(note.deleted_time) != d["trashed"]:
        del d["trashed"]
    d = tags_back(d, tags)
    return d, d != entry.detail and not text and not d.keys() & _PLACE_KEYS


def tags_back(detail: Detail, tags: Sequence[str]) -> Detail:
    """``detail`` without the tags it added that the note no longer has, or took off that it
    has again (``tags``: the note's now)."""
    d = dict(detail)
    named = d.get("tags_added") or d.get("tags_removed")
    d["tags_added"] = [t for t in d.get("tags_added", []) if t in tags]
    d["tags_removed"] = [t for t in d.get("tags_removed", []) if t not in tags]
    if named and not (d["tags_added"] or d["tags_removed"]):
        d.pop("retagged", None)  # its tags were those named, all put back
    return {k: v for k, v in d.items() if v != []}


def still_says(detail: Detail) -> bool:
    """Whether an entry's detail says it still changed something of the note."""
    return bool(detail.keys() & (_PLACE_KEYS | _TEXT_KEYS))

"""What the person does with a review entry: see its diff, accept it, or revert it.

Accepting only marks the entry reviewed. Reverting restores the version before the entry as a new
revision by the person (the entry's own version stays in the history), and undoes its move, its
trashing and its tags. When the note changed again since the entry, the text before it is
carried over that change by the one rule of a write that waited (``noted.ops.conflicts.carried_text``,
as an accepted proposal's: a change on other lines is merged). Where the two clash, the text is not
overwritten: ``revert`` hands back a ``noted.ops.conflicts.Conflict`` whose sides are the note as
it is now and the text before the entry, for the front end to settle the usual way (*Keep both* by default); a
note moved again since stays where it was put, a note made by the entry and edited since is not
trashed, and ``Reverted.kept`` says so. An entry of a notebook or a tag is reverted by
``noted.ops.review_items``, which keeps what the person changed since in the same way.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from noted.errors import ConflictError, NotedError, NotFoundError
from noted.models import ACTOR_USER, Note, NotePatch, Revision, now_ms
from noted.ops import review_along, review_files, review_items
from noted.ops.conflicts import Choice, Conflict, Resolved, carried_text, resolve
from noted.ops.diffs import text_diff
from noted.ops.review import Review, summary
from noted.ops.review_texts import same_text, versions
from noted.store.review import EntryRow, EntryState
from noted.store.revisions import labelled


@dataclass(frozen=True, slots=True)
class EntryDiff:
    """An entry with the text before it and after it (None where there is no such version)."""

    entry: EntryRow
    before: tuple[str, str] | None
    after: tuple[str, str] | None
    words: str = ""
    """What a notebook's or a tag's entry did, in place of a diff."""

    @property
    def text(self) -> str:
        """A unified diff of the title (as a ``#`` line) and the body."""
        if self.words:
            return self.words
        if self.after is None or self.after == self.before:
            return "(no change to the text)\n"
        return text_diff(self.before, self.after, ("before", self.entry.actor))


@dataclass(frozen=True, slots=True)
class Reverted:
    """What ``revert`` did: the note as it is now, the conflict left to settle, if any, and what
    was kept as someone changed it after the entry (one line each)."""

    entry: EntryRow
    note: Note | None
    conflict: Conflict | None = None
    kept: tuple[str, ...] = ()
    along: tuple[int, ...] = ()
    """The entries settled with it, that came along with its change (``noted.ops.review_along``)."""


def show(review: Review, entry_id: int) -> EntryDiff:
    """The diff of one entry against the version before it."""
    entry = review.rows.entry(entry_id)
    if review_items.kind_of(entry) != "note":
        folders = {f.id: f.title for f in review.store.list_folders(include_trashed=True)}
        return EntryDiff(entry, None, None, review_items.described(review.store, entry, folders))
    try:
        history = review.store.note_history(entry.note_id)
    except NotFoundError:
        history = []
    found = versions(history, entry)
    before = (found.before.title, found.before.body) if found and found.before else None
    after = (found.after.title, found.after.body) if found else None
    if after is None or after == before:  # trashed, moved, tagged: no text to diff, but words
        return EntryDiff(entry, before, after, _what_it_did(review, entry))
    return EntryDiff(entry, before, after)


def _what_it_did(review: Review, entry: EntryRow) -> str:
    """A note's entry that left its text as it was, in words, a line each: ``Moved to the trash``,
    ``Moved to "Work"``, ``Tagged urgent``."""
    folders = {f.id: f.title for f in review.store.list_folders(include_trashed=True)}
    lines = []
    for part in summary(entry, folders).split("; "):
        part = "moved to the trash" if part == "trashed" else part
        lines.append(part[:1].upper() + part[1:])
    return "\n".join(lines) + "\n"


def waiting(review: Review, entry_ids: Sequence[int]) -> list[EntryRow]:
    """The entries, all of them waiting, or an error that names the first that is not (so a
    refused call marks nothing)."""
    entries = [review.rows.entry(i) for i in entry_ids]
    for entry in entries:
        if entry.state is not EntryState.PENDING:
            raise NotedError(
                f"change {entry.id} was {entry.state.value} already",
                hint="`noted changes` lists those that wait",
            )
    return entries


def accept(review: Review, entry_ids: Sequence[int]) -> list[int]:
    """Mark the entries reviewed; refuses all when one is unknown or reviewed already."""
    waiting(review, entry_ids)
    return review.rows.decide(entry_ids, EntryState.ACCEPTED, now_ms())


def in_order(review: Review, entry_ids: Sequence[int]) -> list[int]:
    """The entries in the order to revert them together: what they trashed is brought back parents
    first (a notebook before the notes that went with it), then the rest, then what they made or
    restored is undone children first (a note before its notebook, a notebook before the one
    holding it), so that a notebook the model made and filled is empty when its turn comes. The
    entries of one item go newest first, in the places that order leaves them: each is undone on the
    state it left, as an undo would (the older, first, would meet the newer's change on top)."""
    entries = [review.rows.entry(i) for i in entry_ids]
    parents = {f.id: f.parent_id for f in review.store.list_folders(include_trashed=True)}

    def depth(entry: EntryRow) -> int:
        kind = review_items.kind_of(entry)
        if kind == "tag":
            return 0  # a tag holds notes: it goes after them, as a notebook does
        level, seen, here = 1, set[str](), entry.note_id if kind == "notebook" else entry.folder_id
        while (here := parents.get(here, "")) and here not in seen:
            seen.add(here)
            level += 1
        return level + (kind == "note")

    def key(entry: EntryRow) -> tuple[int, int]:
        d = entry.detail
        if d.get("created") or d.get("trashed") is False:
            return 2, -depth(entry)
        if d.get("trashed") is True or (d.get("deleted") and review_items.kind_of(entry) == "tag"):
            return 0, depth(entry)
        return 1, 0

    ordered = sorted(entries, key=key)  # stable: as given where the order is free
    turns: dict[str, list[int]] = {}
    for entry in sorted(ordered, key=lambda e: (e.last_time, e.id)):  # oldest first: popped last
        turns.setdefault(entry.note_id, []).append(entry.id)
    return [turns[e.note_id].pop() for e in ordered]


def revert(review: Review, entry_id: int) -> Reverted:
    """Restore the note as it was before the entry; a conflict to settle when it changed since
    (the entry is marked reverted once ``finish`` is called for it)."""
    (entry,) = waiting(review, [entry_id])
    store, detail = review.store, entry.detail
    if review_items.kind_of(entry) != "note":
        kept = review_items.revert(store, review.rows, entry)
        return Reverted(entry, None, None, tuple(kept), tuple(finish(review, entry.id)))
    try:
        note = store.get_note(entry.note_id)
    except NotFoundError:
        raise NotedError(
            f'the note of change {entry.id} ("{entry.title}") was deleted for good; there is nothing to revert',
            hint=f"`noted changes accept {entry.id}` clears it",
        ) from None
    conflict, kept = None, list[str]()
    if detail.get("created"):
        if _edited_since(review, entry, note):  # nothing is lost: the note stays as it is now
            kept.append(
                "it was edited after it was made, so it stays (trash it yourself if you want it gone)"
            )
        elif not note.is_trashed:
            store.trash_note(note.id, actor=ACTOR_USER)
    else:  # the text first: undoing a tag may change the text on a Markdown folder (an inline #tag)
        linked = [r.id for r in store.list_resources(note_id=note.id)]
        conflict = _undo_text(review, entry, note)
        if conflict is None:  # the attachments the change attached, now linked by no note
            kept += review_files.drop_attached(store, entry, linked)
        note = _undo_place(review, entry, store.get_note(note.id), kept)
        if conflict is not None:  # settled against the note as the place's undo left it
            conflict = dataclasses.replace(conflict, theirs=note)
    unmade = {note.id} if detail.get("created") and not kept else set()
    review_along.drop_made_tags(store, review.rows, entry, unmade)
    if conflict is None:
        finish(review, entry.id)
    return Reverted(entry, _current(review, entry.note_id), conflict, tuple(kept))


def revert_together(review: Review, entry_ids: Sequence[int]) -> Iterator[Reverted]:
    """Revert the entries in the order that undoes them whole (``in_order``), refusing them all
    first when one does not wait. Each is handed over before the next is reverted, so a conflict
    it left is settled first; an entry settled meanwhile with the change it came along with (a
    note with the notebook it went to the trash with) is passed over."""
    waiting(review, entry_ids)
    for entry_id in in_order(review, entry_ids):
        if review.rows.entry(entry_id).state is EntryState.PENDING:
            yield revert(review, entry_id)


def settle(
    review: Review, entry_id: int, conflict: Conflict, choice: Choice, merged: tuple[str, str] | None = None
) -> tuple[Resolved, list[str]]:
    """Settle the conflict a revert of the entry left (the person's ``choice``), mark the entry
    reverted, and delete what the change attached that no note links now, as a revert without a
    conflict does (``review_files.drop_attached``); the lines saying what stayed, and why."""
    store = review.store
    linked = [r.id for r in store.list_resources(note_id=conflict.base.id)]
    settled = resolve(store, conflict, choice, actor=ACTOR_USER, merged=merged)
    finish(review, entry_id)
    return settled, review_files.drop_attached(store, review.rows.entry(entry_id), linked)


def finish(review: Review, entry_id: int) -> list[int]:
    """Mark a reverted entry (after its conflict, if any, was settled); the ids of the entries
    settled with it, that came along with its change."""
    return [i for i in review.rows.decide([entry_id], EntryState.REVERTED, now_ms()) if i != entry_id]


def _current(review: Review, note_id: str) -> Note | None:
    try:
        return review.store.get_note(note_id)
    except NotFoundError:
        return None


def _edited_since(review: Review, entry: EntryRow, note: Note) -> bool:
    """Whether the note's text is no longer the one the entry left."""
    found = versions(review.store.note_history(entry.note_id), entry)
    return found is not None and not same_text(note, found.after)


def _undo_text(review: Review, entry: EntryRow, note: Note) -> Conflict | None:
    found = versions(review.store.note_history(entry.note_id), entry)
    if found is None or found.before is None:
        return None
    before, after = found.before, found.after
    if same_text(note, before):
        return None
    if (text := _reverted_text(note, before, after)) is not None:
        try:
            with labelled(f"undid change {entry.id} (by {entry.actor})"):
                review.store.update_note(
                    note.id,
                    NotePatch(title=text[0], body=text[1]),
                    actor=ACTOR_USER,
                    base_updated_time=note.updated_time,
                )
            return None
        except ConflictError:
            note = review.store.get_note(note.id)
    # The same lines changed since: both sides are kept, as a save that met a newer note keeps them.
    base = dataclasses.replace(note, title=after.title, body=after.body)
    why = f"the text from before change {entry.id} (by {entry.actor}), not put back as the note changed after it"
    return Conflict(base, before.title, before.body, note, why)


def _reverted_text(note: Note, before: Revision, after: Revision) -> tuple[str, str] | None:
    """The (title, body) reverting the change from ``before`` to ``after`` gives ``note`` now: the
    text before it, carried over what changed since by the one rule of a write that waited
    (``noted.ops.conflicts.carried_text``, with ``after`` as the text it was made on: other lines
    merge); None when the two clash (both retitled it, or changed the same lines)."""
    if same_text(note, after):
        return before.title, before.body
    title = before.title if before.title != after.title else None
    body = before.body if before.body != after.body else None
    text = carried_text((after.title, after.body), after.time, note, title, body)
    if text is None:
        return None
    return note.title if text[0] is None else text[0], note.body if text[1] is None else text[1]


def _undo_place(review: Review, entry: EntryRow, note: Note, kept: list[str]) -> Note:
    """Undo the entry's move, trashing and tags where the note still shows them; where it was
    moved again since, or its notebook is gone, it stays, and ``kept`` says so."""
    store, d = review.store, entry.detail
    if d.get("trashed") is True and note.is_trashed:
        note = store.restore_note(note.id, actor=ACTOR_USER)
    elif d.get("trashed") is False and not note.is_trashed:
        store.trash_note(note.id, actor=ACTOR_USER)
    if "moved_to" in d and note.parent_id != d["moved_from"]:
        if note.parent_id != d["moved_to"]:
            kept.append(
                f'it was moved again since the change: it stays in "{_folder_title(review, note.parent_id)}"'
            )
        else:
            try:
                store.get_folder(d["moved_from"])
                note = store.update_note(note.id, NotePatch(parent_id=d["moved_from"]), actor=ACTOR_USER)
            except NotFoundError:
                kept.append(
                    f'the notebook it came from is gone: it stays in "{_folder_title(review, note.parent_id)}"'
                )
    if d.get("tags_added"):
        store.untag_note(note.id, d["tags_added"], actor=ACTOR_USER)
    if d.get("tags_removed"):
        store.tag_note(note.id, d["tags_removed"], actor=ACTOR_USER)
    return store.get_note(note.id)


def _folder_title(review: Review, folder_id: str) -> str:
    try:
        return review.store.get_folder(folder_id).title
    except NotFoundError:
        return "?"

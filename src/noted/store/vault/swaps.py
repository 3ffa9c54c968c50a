"""Files that took each other's place outside noted: which note each one is.

A changed file at a note's path is that note edited, unless it holds another note's content:
``mv a.md t; mv b.md a.md; mv t b.md`` leaves at ``a.md`` what ``b.md`` held. Taken as edits, each
note would get the other's text and its history would show the other's past. So, within one batch
of changed files (a watcher's, or a start-up scan's), a file is the note whose content it holds:

- exactly the content noted last knew of another note whose file changed in the batch too;
- else (a batch of at most ``MAX_TEXTS`` such files) a text unambiguously that other note's,
  edited, rather than its own (``noted.store.vault.renames.pair_texts``).

A file is given another note only when that note's own file is given one in turn (names swapped,
or rotated among several), or when that note's file went in the batch (``mv b.md a.md`` over an
existing ``a.md``): the file is then ``b.md``'s note, and the note of its path, left without a file,
is ``displaced``: deleted outside noted, as if its file went (restored beside: ``NAME 2.md``). Taking
a gone note's place needs the file to hold exactly its content, or a text unambiguously its, edited,
and unlike the path's own note's. Whatever noted cannot tell stays its path's note, edited, as
before. New paths taking a gone note are ``Follower._moved``'s and ``renames``'.

A swap seen step by step (``mv a t``, then ``mv b a``, then ``mv t b``, in three watcher batches)
puts at the path of a gone note exactly the content of a note whose file went in the same batch:
that is this other note moved, and the gone note is ``set_aside``, found again by its content.

An editor's save-as the other way round (``c.md`` written with ``a.md``'s text, ``a.md`` deleted
later, apart: ``copy_taking``): the gone note takes the file of the one note made as its exact
copy since its last change, by nothing but that file, whose own note is then deleted outside noted
(as a displaced one). A copy anyone changed in noted, or two copies, stay notes of their own, and
so does a copy beside a file git removed (``noted.store.vault.git_removed``: a checkout, not a save-as).
"""

from __future__ import annotations

from collections.abc import Container, Mapping
from typing import TYPE_CHECKING

from noted.errors import InvalidInputError
from noted.models import ACTOR_OUTSIDE, ChangeType, now_ms
from noted.store.vault.files import TRASH, decode, file_at
from noted.store.vault.git_removed import removed_by_git
from noted.store.vault.ledger import NoteFile
from noted.store.vault.renames import alike, pair_texts
from noted.store.vault.text import FileText
from noted.store.vault.trash import in_trash

if TYPE_CHECKING:
    from noted.store.vault.base import VaultCore

MAX_TEXTS = 200
"""Above this many changed notes' files in one batch (a checkout), only exact content counts."""


def swapped(store: VaultCore, paths: set[str], gone: Mapping[str, NoteFile]) -> dict[str, str]:
    """Each path of ``paths`` that holds another note's content → that note's id (a note of the
    batch's changed files, or one of the ``gone``, whose file went in the batch)."""
    changed: dict[str, tuple[NoteFile, int]] = {}
    for rel in paths:
        row, state = store.ledger.note_at(rel), store.vault.state(rel)
        if row is not None and row.present and not in_trash(rel) and state is not None:
            if (state.size, state.mtime_ns) != (row.size, row.mtime_ns):
                changed[rel] = row, state.size
    went = [row for row in gone.values() if not in_trash(row.path)]
    if len(changed) + min(len(went), 1) < 2:
        return {}
    by_hash: dict[str, list[str]] = {}
    sizes: dict[int, int] = {}
    for row in [r for r, _ in changed.values()] + went:
        by_hash.setdefault(row.hash, []).append(row.note_id)
        sizes[row.size] = sizes.get(row.size, 0) + 1
    texts: dict[str, str] = {}
    claims: dict[str, str] = {}
    for rel, (row, size) in changed.items():
        if len(changed) > MAX_TEXTS and not sizes.get(size):
            continue  # (no note's content had that size: only an edit, or a text pass there is not)
        try:
            read = store.vault.read(rel)
            body = FileText.parse(decode(read.data)).body
        except (OSError, InvalidInputError):  # (a file noted skips: ``Skipped``)
            continue
        same = by_hash.get(read.digest, [])
        if read.digest != row.hash and len(same) == 1:
            claims[rel] = same[0]
        elif not same:
            texts[rel] = body
    own = {rel: row.note_id for rel, (row, _) in changed.items()}
    if texts and len(changed) <= MAX_TEXTS:
        ids = [*own.values(), *(r.note_id for r in went)]
        was = {n.id: n.body for n in store.mirror.get_notes(ids)}
        for rel, note_id in pair_texts(texts, was).items():
            if note_id not in gone or not alike(texts[rel], was.get(own[rel], "")):
                claims[rel] = note_id
    return closed({rel: note_id for rel, note_id in claims.items() if note_id != own[rel]}, own, gone)


def displaced(store: VaultCore, swaps: Mapping[str, str]) -> set[str]:
    """The notes whose path ``swaps`` gives another note and whose file no path takes."""
    owners = {row.note_id for rel in swaps if (row := store.ledger.note_at(rel)) is not None}
    return owners - set(swaps.values())


def closed(claims: dict[str, str], own: dict[str, str], gone: Container[str]) -> dict[str, str]:
    """The claims whose path's own note (``own``) is claimed by another path in turn, or whose
    claimed note's file went (``gone``), each note once."""
    while True:
        counts: dict[str, int] = {}
        for note_id in claims.values():
            counts[note_id] = counts.get(note_id, 0) + 1
        kept = {
            rel: note_id
            for rel, note_id in claims.items()
            if counts[note_id] == 1 and (note_id in gone or counts.get(own[rel]) == 1)
        }
        if kept == claims:
            return kept
        claims = kept


def set_aside(store: VaultCore, row: NoteFile, *, actor: str | None = None) -> None:
    """The gone note of ``row`` gives its path up to the note whose file is there now: its row
    keeps its content's hash (so its file found elsewhere is that note: ``Follower._moved``) under a
    path of its own in ``.trash/``, where no file is (a restore writes it beside: ``NAME 2.md``).
    With ``actor``, a note still live (``displaced``) is deleted by it, as when its file goes."""
    note = next(iter(store.mirror.get_notes([row.note_id])), None) if actor else None
    if actor and note is not None and not note.is_trashed:
        store.mirror.trash_note(row.note_id, actor=actor)
    with store.db.write() as conn:
        aside = NoteFile(row.note_id, f"{TRASH}/{row.note_id}.md", row.origin or row.path, -1, 0, row.hash)
        store.ledger.put_note(conn, aside)
        if note is not None and not note.is_trashed:  # a save based on it as it was meets a conflict
            conn.execute(
                "UPDATE notes SET updated_time = max(?, updated_time + 1) WHERE id = ?",
                (now_ms(), row.note_id),
            )


def copy_taking(store: VaultCore, row: NoteFile) -> NoteFile | None:
    """The file of the gone note of ``row`` that is its save-as: the one note whose file holds
    exactly the gone note's last content, made from that file (``outside``) after the gone note's
    last change and changed by nothing else since. None when unsure (keep them apart)."""
    rows = [
        r
        for r in store.ledger.notes_with_hash(row.hash)
        if r.note_id != row.note_id
        and r.present
        and not in_trash(r.path)
        and file_at(store.vault.root / r.path)
    ]
    if not row.hash or len(rows) != 1:
        return None
    notes = {n.id: n for n in store.mirror.get_notes([row.note_id, rows[0].note_id])}
    gone, made = notes.get(row.note_id), notes.get(rows[0].note_id)
    if gone is None or made is None or made.is_trashed or made.created_time <= gone.updated_time:
        return None
    changes = store.mirror.item_changes([made.id])
    if any(c.actor != ACTOR_OUTSIDE for c in changes) or ChangeType.CREATE not in {
        c.change_type for c in changes
    }:
        return None
    return None if removed_by_git(store.vault.root, row.path) else rows[0]

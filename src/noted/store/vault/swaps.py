"""Files that took each other's place outside noted: which note each one is.

A changed file at a note's path is that note edited, unless it holds another note's content:
``mv a.md t; mv b.md a.md; mv t b.md`` leaves at ``a.md`` what ``b.md`` held. Taken as edits, each
note would get the other's text and its history would show the other's past. So, within one batch
of changed files (a watcher's, or a start-up scan's), a file is the note whose content it holds:

- exactly the content noted last knew of another note whose file changed in the batch too;
- else (a batch of at most ``MAX_TEXTS`` such files) a text unambiguously that other note's,
  edited, rather than its own (``noted.store.vault.renames.pair_texts``).

A file is given another note only when that note's own file is given one in turn (names swapped,
or rotated among several): no note is left without its file. Whatever noted cannot tell stays its
path's note, edited, as before. Notes whose file went are ``Follower._moved``'s and ``renames``'.

A swap seen step by step (``mv a t``, then ``mv b a``, then ``mv t b``, in three watcher batches)
puts at the path of a gone note exactly the content of a note whose file went in the same batch:
that is this other note moved, and the gone note is ``set_aside``, found again by its content.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noted.errors import InvalidInputError
from noted.store.vault.files import TRASH, decode
from noted.store.vault.ledger import NoteFile
from noted.store.vault.renames import pair_texts
from noted.store.vault.text import FileText
from noted.store.vault.trash import in_trash

if TYPE_CHECKING:
    from noted.store.vault.base import VaultCore

MAX_TEXTS = 200
"""Above this many changed notes' files in one batch (a checkout), only exact content counts."""


def swapped(store: VaultCore, paths: set[str]) -> dict[str, str]:
    """Each path of ``paths`` that holds another note's content → that note's id."""
    changed: dict[str, tuple[NoteFile, int]] = {}
    for rel in paths:
        row, state = store.ledger.note_at(rel), store.vault.state(rel)
        if row is not None and row.present and not in_trash(rel) and state is not None:
            if (state.size, state.mtime_ns) != (row.size, row.mtime_ns):
                changed[rel] = row, state.size
    if len(changed) < 2:
        return {}
    by_hash: dict[str, list[str]] = {}
    sizes: dict[int, int] = {}
    for row, _ in changed.values():
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
    if texts and len(changed) <= MAX_TEXTS:
        was = {n.id: n.body for n in store.mirror.get_notes([r.note_id for r, _ in changed.values()])}
        claims |= pair_texts(texts, was)
    own = {rel: row.note_id for rel, (row, _) in changed.items()}
    return _closed({rel: note_id for rel, note_id in claims.items() if note_id != own[rel]}, own)


def _closed(claims: dict[str, str], own: dict[str, str]) -> dict[str, str]:
    """The claims whose path's own note (``own``) is claimed by another path in turn, each note once."""
    while True:
        counts: dict[str, int] = {}
        for note_id in claims.values():
            counts[note_id] = counts.get(note_id, 0) + 1
        kept = {
            rel: note_id
            for rel, note_id in claims.items()
            if counts[note_id] == 1 and counts.get(own[rel]) == 1
        }
        if kept == claims:
            return kept
        claims = kept


def set_aside(store: VaultCore, row: NoteFile) -> None:
    """The gone note of ``row`` gives its path up to the note whose file is there now: its row
    keeps its content's hash (so its file found elsewhere is that note: ``Follower._moved``) under a
    path of its own in ``.trash/``, where no file is (a restore writes it beside: ``NAME 2.md``)."""
    with store.db.write() as conn:
        aside = NoteFile(row.note_id, f"{TRASH}/{row.note_id}.md", row.origin or row.path, -1, 0, row.hash)
        store.ledger.put_note(conn, aside)

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
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noted.errors import InvalidInputError
from noted.store.vault.files import decode
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
    changed: dict[str, NoteFile] = {}
    for rel in paths:
        row = store.ledger.note_at(rel)
        state = store.vault.state(rel)
        if row is not None and row.present and not in_trash(rel) and state is not None:
            if (state.size, state.mtime_ns) != (row.size, row.mtime_ns):
                changed[rel] = row
    if len(changed) < 2:
        return {}
    texts: dict[str, str] = {}
    claims: dict[str, str] = {}
    by_hash = {row.hash: [r for r in changed.values() if r.hash == row.hash] for row in changed.values()}
    for rel, row in changed.items():
        try:
            read = store.vault.read(rel)
            body = FileText.parse(decode(read.data)).body
        except (OSError, InvalidInputError):  # (a file noted skips: ``Skipped``)
            continue
        if read.digest == row.hash:
            continue
        same = by_hash.get(read.digest, [])
        if len(same) == 1:
            claims[rel] = same[0].note_id
        elif not same:
            texts[rel] = body
    if texts and len(changed) <= MAX_TEXTS:
        was = {n.id: n.body for n in store.mirror.get_notes([r.note_id for r in changed.values()])}
        claims |= pair_texts(texts, was)
    return _closed(
        {rel: note_id for rel, note_id in claims.items() if note_id != changed[rel].note_id}, changed
    )


def _closed(claims: dict[str, str], changed: dict[str, NoteFile]) -> dict[str, str]:
    """The claims whose path's own note is claimed by another path in turn, each note once."""
    while True:
        counts: dict[str, int] = {}
        for note_id in claims.values():
            counts[note_id] = counts.get(note_id, 0) + 1
        kept = {
            rel: note_id
            for rel, note_id in claims.items()
            if counts[note_id] == 1 and counts.get(changed[rel].note_id) == 1
        }
        if kept == claims:
            return kept
        claims = kept

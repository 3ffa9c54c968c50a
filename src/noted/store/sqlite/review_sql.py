"""The SQL the review's tables share (``noted.store.sqlite.review``): the filter of a listing or a
count, and what tells an entry that came along with another's change.

An entry that came with a change to a notebook or a tag (a note the notebook took to the trash, a
note the deleted tag came off: ``noted.ops.review_along``) keeps ``detail["with"]``, a list of
``[feed id, item id]``: the rows it came with. Such a row belongs to the newest entry of that item
at or before it (an item's entries follow one another in the feed's order), its *carrier*. The
entry is *folded* under a carrier while that carrier waits: the listings show it there, not on its
own, and settling the carrier settles it.
"""

from __future__ import annotations

from collections.abc import Sequence

from noted.store.review import EntryState, ProposalState, Word

_HOLDING = (
    "FROM review_entries c WHERE c.note_id = json_extract(w.value, '$[1]') "
    "AND c.id <= json_extract(w.value, '$[0]') ORDER BY c.id DESC LIMIT 1"
)
CARRIER = f"(SELECT c.id {_HOLDING})"
"""The id of the entry holding the row ``w.value`` names (``[feed id, item id]``)."""
FOLDED = (
    "(json_extract(e.detail, '$.with') IS NOT NULL AND EXISTS (SELECT 1 FROM json_each(e.detail, '$.with') w "
    f"WHERE (SELECT c.state {_HOLDING}) = 'pending'))"
)
"""Whether entry ``e`` came along with a change whose entry waits (the query names its table ``e``)."""


def where(
    state: EntryState | ProposalState | tuple[ProposalState, ...] | None,
    actor: str | None,
    since: int | None,
    folder_id: str | None,
    words: Sequence[Word],
    *,
    who: str = "actor",
    along: bool = True,
    note_ids: Sequence[str] | None = None,
) -> tuple[str, list[object]]:
    """The WHERE clause (with its leading space, or '') of a listing or a count, and its arguments;
    ``who`` is the column ``actor`` matches (a proposal's is ``client``); ``along`` False leaves
    out the entries folded under a waiting one (``FOLDED``: the table is then named ``e``);
    ``note_ids`` keeps the entries of these notes (or items) only."""
    clauses: list[str] = []
    args: list[object] = []
    if isinstance(state, tuple):
        clauses.append(f"state IN ({','.join('?' * len(state))})")
        args += [s.value for s in state]
    elif state is not None:
        clauses.append("state = ?")
        args.append(state.value)
    if actor:
        clauses.append(f"({who} = ? OR {who} LIKE ? ESCAPE '\\')")
        args += [actor, like_prefix(actor)]
    if since is not None:
        clauses.append("last_time >= ?")
        args.append(since)
    if folder_id is not None:
        clauses.append("folder_id = ?")
        args.append(folder_id)
    for word in words:  # in the actor, the title, or the name of the notebook (given as its ids)
        pattern = f"%{escaped(word.text)}%"
        marks = ",".join("?" * len(word.folder_ids))
        in_folder = f" OR folder_id IN ({marks})" if marks else ""
        clauses.append(f"(actor LIKE ? ESCAPE '\\' OR title LIKE ? ESCAPE '\\'{in_folder})")
        args += [pattern, pattern, *word.folder_ids]
    if note_ids is not None:
        clauses.append(f"note_id IN ({','.join('?' * len(note_ids))})")
        args += list(note_ids)
    if not along:
        clauses.append(f"NOT {FOLDED}")
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", args


def escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def like_prefix(actor: str) -> str:
    return f"{escaped(actor)}:%"

"""What the Changes view lists: the review entries and the proposals that wait, as plain rows, and
the filter typed above them. No Textual here: the view renders these rows, the benchmark times them.

A filter is words: ``since:X`` (the dates of search filters: ``day-1``, ``2026-12``…) keeps what came
since then; any other word must be found in the row's actor, notebook or note title.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from noted.errors import QueryError
from noted.ops.review import Review, summary
from noted.search.dates import resolve_date
from noted.store.review import EntryRow, ProposalRow


@dataclass(frozen=True, slots=True)
class ReviewItem:
    """One row of the Changes view: a change made, or a proposal (a write that waits)."""

    ref: str
    """``123`` for a change, ``p5`` for a proposal (as ``noted changes`` takes them)."""
    note_id: str
    title: str
    notebook: str
    actor: str
    time: int
    summary: str
    proposal: bool = False

    @property
    def haystack(self) -> str:
        return f"{self.actor}\n{self.notebook}\n{self.title}".casefold()


def items(review: Review) -> list[ReviewItem]:
    """Everything that waits, proposals first, then the changes newest first (``refresh`` first)."""
    folders = {f.id: f.title for f in review.store.list_folders(include_trashed=True)}
    out = [_proposal(p, folders) for p in review.rows.proposals()]
    out += [_entry(e, folders) for e in review.pending()]
    return out


def _entry(entry: EntryRow, folders: dict[str, str]) -> ReviewItem:
    return ReviewItem(
        str(entry.id),
        entry.note_id,
        entry.title,
        folders.get(entry.folder_id, ""),
        entry.actor,
        entry.last_time,
        summary(entry, folders),
    )


def _proposal(proposal: ProposalRow, folders: dict[str, str]) -> ReviewItem:
    del folders  # a proposal names its note only
    what = f"waits for you: {proposal.tool.replace('_', ' ')}"
    return ReviewItem(
        f"p{proposal.id}", proposal.note_id, proposal.title, "", proposal.client, proposal.time, what, True
    )


def parse_filter(text: str) -> tuple[list[str], int | None]:
    """The words of a filter and its ``since:`` time; ``QueryError`` for a date it cannot read."""
    words: list[str] = []
    since: int | None = None
    for word in text.split():
        if word.lower().startswith("since:"):
            since = resolve_date(word[6:])
        else:
            words.append(word.casefold())
    return words, since


def filtered(rows: Sequence[ReviewItem], text: str) -> list[ReviewItem]:
    """The rows the filter keeps, in order (all of them for an unreadable date, which the view
    reports through ``parse_filter``)."""
    try:
        words, since = parse_filter(text)
    except QueryError:
        return list(rows)
    if not words and since is None:
        return list(rows)
    return [r for r in rows if (since is None or r.time >= since) and all(w in r.haystack for w in words)]


def grouped(rows: Sequence[ReviewItem]) -> list[tuple[str, list[ReviewItem]]]:
    """Rows grouped by note, the notes in the order of their first row."""
    groups: dict[str, list[ReviewItem]] = {}
    for row in rows:
        groups.setdefault(row.note_id or row.ref, []).append(row)
    return list(groups.items())

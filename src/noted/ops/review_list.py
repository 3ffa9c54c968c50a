"""What the Changes view lists: the review entries and the proposals that wait, as plain rows, and
the filter typed above them. No Textual here: the view renders these rows, the benchmark times them.

A filter is words: ``since:X`` (the dates of search filters: ``day-1``, ``2026-12``…) keeps what came
since then; any other word must be found in the row's actor, notebook or note title. The filter runs
in SQL and the view shows the newest ``VIEW_LIMIT`` rows, so opening and filtering take the same
time with 100 changes waiting or 10,000 (``tests/bench/bench_changes.py``). What went along with a
change (the notes a notebook took to the trash: ``noted.ops.review_along``) is a row under it
(``ReviewItem.under``), not one of those counted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from noted.models import NotePatch, now_ms
from noted.ops import review_items
from noted.ops.review import Review, line_counts, lines_words, summary
from noted.ops.tool_words import tool_words
from noted.search.dates import resolve_date
from noted.store.review import EntryRow, ProposalRow, ProposalState, Word, stuck


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
    kind: str = "note"
    """What the row changed: ``note``, ``notebook`` or ``tag`` (``note_id`` is then that item's id)."""
    under: str = ""
    """The ref of the row this one is folded under: its change came along with that one's (a note
    the notebook took to the trash), and is settled with it. Its ``summary`` names it."""

    @property
    def haystack(self) -> str:
        return f"{self.actor}\n{self.notebook}\n{self.title}".casefold()


VIEW_LIMIT = 200
"""The most rows the view shows at once, newest first; the filter reaches the others."""


@dataclass(frozen=True, slots=True)
class Listing:
    """What the view shows for one filter: up to ``VIEW_LIMIT`` rows, and how many match in all."""

    rows: tuple[ReviewItem, ...]
    total: int


def items(review: Review, text: str = "", *, limit: int = VIEW_LIMIT) -> Listing:
    """What waits and matches the filter ``text``: proposals first, then changes newest first
    (``refresh`` first). ``QueryError`` for a ``since:`` it cannot read."""
    words, since = parse_filter(text)
    folders = {f.id: f.title for f in review.store.list_folders(include_trashed=True)}
    matching = [Word(w, tuple(i for i, t in folders.items() if w in t.casefold())) for w in words]
    waiting = [_proposal(p) for p in review.rows.proposals()]
    waiting = [
        p for p in waiting if (since is None or p.time >= since) and all(w in p.haystack for w in words)
    ]
    entries = review.rows.entries(
        since=since, words=matching, limit=max(0, limit - len(waiting)), along=False
    )
    total = len(waiting) + review.rows.count(since=since, words=matching, along=False)
    rows: list[ReviewItem] = []
    room = limit  # the rows folded under others have as many again
    for entry, along in folded(review, entries):
        rows += [_entry(entry, folders), *(_entry(e, folders, str(entry.id)) for e in along[: max(0, room)])]
        room -= len(along)
    return Listing(tuple(waiting[:limit]) + tuple(rows), total)


def folded(review: Review, entries: Sequence[EntryRow]) -> list[tuple[EntryRow, list[EntryRow]]]:
    """Each of ``entries`` (listed without those that came along: ``along=False``) with the
    waiting entries that came along with its change, each under the first of them it came with."""
    order = {e.id: i for i, e in enumerate(entries)}
    came = sorted(review.rows.along(list(order)), key=lambda c: order[c[0]])  # stable: newest first
    placed: set[int] = set()
    under: dict[int, list[EntryRow]] = {}
    for carrier, entry in came:
        if entry.id not in placed:
            placed.add(entry.id)
            under.setdefault(carrier, []).append(entry)
    return [(e, under.get(e.id, [])) for e in entries]


def along_line(entry: EntryRow, folders: dict[str, str]) -> str:
    """What a folded entry did, naming what it changed: ``"Plan": trashed``."""
    return f"{review_items.label(entry)}: {summary(entry, folders)}"


def _entry(entry: EntryRow, folders: dict[str, str], under: str = "") -> ReviewItem:
    return ReviewItem(
        str(entry.id),
        entry.note_id,
        entry.title,
        folders.get(entry.folder_id, ""),
        entry.actor,
        entry.last_time,
        along_line(entry, folders) if under else summary(entry, folders),
        kind=review_items.kind_of(entry),
        under=under,
    )


def _proposal(proposal: ProposalRow) -> ReviewItem:
    """A proposal's row: it names its note only (no notebook)."""
    what = waiting_words(proposal, now_ms()) or f"waits for you: {proposal_summary(proposal)}"
    return ReviewItem(
        f"p{proposal.id}", proposal.note_id, proposal.title, "", proposal.client, proposal.time, what, True
    )


def action_words(proposal: ProposalRow) -> str:
    """What ``proposal`` does, in a person's words (``update note``, not the tool's ``update_note``):
    the Changes view and ``noted changes`` say it alike, as the chat does (``noted.ops.tool_words``)."""
    return tool_words(proposal.tool).to_do


def proposal_summary(proposal: ProposalRow) -> str:
    """What ``proposal`` does and the lines it counts: ``update note; +1 −1 lines`` (its row's
    words, and its ``summary`` in ``noted changes --json``, as a change's summary is)."""
    words = line_words(proposal)
    return f"{action_words(proposal)}{erased_words(proposal)}" + (f"; {words}" if words else "")


def line_words(proposal: ProposalRow) -> str:
    """The lines an ``update_note`` or ``create_note`` proposal adds and removes (``+1 −1 lines``,
    as a change's row says), against the text it was proposed on; '' for another, for one kept
    without that text, or for no change of lines."""
    args, base = proposal.detail.get("arguments", {}), proposal.detail.get("base")
    if proposal.tool == "create_note":
        before, after = "", str(args.get("body", ""))
    elif proposal.tool == "update_note" and isinstance(base, list) and len(base) == 2:
        before = str(base[1])
        after = applied(proposal, (str(base[0]), before))[1]
    else:
        return ""
    return lines_words(*line_counts(before, after))


def applied(proposal: ProposalRow, text: tuple[str, str]) -> tuple[str, str]:
    """The (title, body) an ``update_note`` proposal makes of ``text``."""
    args = proposal.detail.get("arguments", {})
    title, body = text
    patch = NotePatch(body=args.get("body"), append=args.get("append"), prepend=args.get("prepend"))
    body = patch.body_after(body)
    if isinstance(args.get("replace_text"), dict):
        swap = args["replace_text"]
        body = body.replace(str(swap.get("find", "")), str(swap.get("replace", "")), 1)
    return str(args.get("title", title)), body


def erased_words(proposal: ProposalRow) -> str:
    """What a listing adds for a proposal made on a note erased outside noted whose revisions are
    kept (``noted.ops.erased``; only ``restore_note`` is proposed on one): accepting writes it again."""
    seen = proposal.detail.get("seen")
    erased = isinstance(seen, Mapping) and seen.get("erased") is True
    return " (an erased note: accepting writes it again)" if erased else ""


def waiting_words(proposal: ProposalRow, now: int) -> str:
    """What to say of a proposal accepted and being applied, left so by a process that stopped,
    or put back to wait with a reason (an accept whose answer was lost); '' for one that just waits."""
    if proposal.state is ProposalState.PENDING:
        return proposal.reason
    if proposal.state is not ProposalState.APPLYING:
        return ""
    if stuck(proposal, now):
        return "accepted, but noted stopped while applying it: accept it again (nothing is written twice) or reject it"
    return "accepted: being applied"


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


def grouped(rows: Sequence[ReviewItem]) -> list[tuple[str, list[ReviewItem]]]:
    """Rows grouped by note, the notes in the order of their first row; a folded row stays under
    the row it is folded under."""
    groups: dict[str, list[ReviewItem]] = {}
    key: dict[str, str] = {}
    for row in rows:
        key[row.ref] = key.get(row.under, "") if row.under else row.note_id or row.ref
        groups.setdefault(key[row.ref], []).append(row)
    return list(groups.items())

"""What the Changes view keeps: changes by actors other than the person, and proposals that wait.

``noted.ops.review`` follows the change feed and turns every change an assistant, an outside AI
app, a sync or an outside edit made to a note into a *review entry* (the changes one actor made to
one note in a burst); the person accepts or reverts each. A *proposal* is a write a client in
review mode asked for, kept until the person accepts (it is applied then) or rejects it.

A backend keeps these rows in the profile's local database, beside the chats (the embedded store's
own database, Joplin's sidecar, the Markdown folder's mirror: ``noted.store.sqlite.review``), so
the marks survive a restart on every backend. The rest of noted sees only ``ReviewRows``.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from noted.models import Place as Place  # where the review saw a note last
from noted.store.processes import gone

Detail = dict[str, Any]
"""What an entry or proposal records beyond its columns, kept as JSON (``noted.ops.review`` reads it)."""


class EntryState(enum.StrEnum):
    """Where a review entry stands."""

    PENDING = "pending"
    ACCEPTED = "accepted"
    REVERTED = "reverted"


class ProposalState(enum.StrEnum):
    """Where a proposal stands."""

    PENDING = "pending"
    APPLYING = "applying"
    """Accepted (or being turned down) by one process, which claimed it so that no other runs it
    too; settled as soon as the write is done. A claim a stopped process left is taken again at
    once when that process ran on this machine (``noted.store.processes.gone``), else after
    ``STUCK_MS``."""
    APPLIED = "applied"
    REJECTED = "rejected"
    CONFLICT = "conflict"
    """Accepted when its note had changed since, and settled in the conflict view by keeping the
    note's text (the proposal's is in its history or a conflict copy). The person may still reject it."""
    FAILED = "failed"
    """Accepted, but it can never be applied, for a reason that is not the person's answer (its
    note was deleted for good, the tool refused it): nothing was written, ``reason`` says why."""


WAITING = (ProposalState.PENDING, ProposalState.APPLYING)
"""The proposals the person still sees: those that wait, and those being applied."""
STUCK_MS = 5 * 60 * 1000
"""A proposal claimed this long ago and still ``applying`` was left by a process that stopped
(a tool call takes seconds): it shows as such, and accepting or rejecting it again takes it over.
One whose claimant is known to be gone is so at once."""


@dataclass(frozen=True, slots=True)
class Touch:
    """One feed row about a note, as the review sees it."""

    feed_id: int
    note_id: str
    actor: str
    time: int
    person: bool
    """Made by the person: it ends the burst an entry of that note may still grow by."""
    title: str = ""
    folder_id: str = ""
    detail: Detail | None = None


@dataclass(frozen=True, slots=True)
class EntryRow:
    """A review entry as stored: the changes one actor made to one note in one burst."""

    id: int
    """The feed id of its first change."""
    note_id: str
    title: str
    folder_id: str
    actor: str
    first_time: int
    last_time: int
    state: EntryState
    detail: Detail
    reviewed_time: int = 0


@dataclass(frozen=True, slots=True)
class ProposalRow:
    """A write that waits for the person."""

    id: int
    client: str
    """The actor the write is made as once accepted (``mcp:NAME``, ``assistant:…``)."""
    tool: str
    note_id: str
    """The note it changes ('' for a new note)."""
    title: str
    base_updated_time: int
    """The note's ``updated_time`` when the write was proposed (0 for a new note)."""
    time: int
    state: ProposalState
    detail: Detail
    reason: str = ""
    decided_time: int = 0
    result_note_id: str = ""
    claimant: str = ""
    """The process that claimed it while ``applying`` (``noted.store.processes.this_process``)."""


Merge = Callable[[Detail, Detail], Detail]


@dataclass(frozen=True, slots=True)
class Word:
    """A word of the Changes view's filter: found in an entry's actor or title (case aside), or
    naming its notebook (``folder_ids``: the notebooks whose title holds it)."""

    text: str
    folder_ids: tuple[str, ...] = ()


class ReviewRows(Protocol):
    """The review entries, the proposals and the follower's cursor of one profile."""

    def cursor(self) -> int:
        """The feed id the review has read up to (0 before its first read)."""
        ...

    def places(self, note_ids: Sequence[str]) -> dict[str, Place]:
        """The last place seen of each of these notes (notes not seen yet are left out)."""
        ...

    def apply(
        self,
        cursor_from: int,
        cursor_to: int,
        touches: Sequence[Touch],
        places: Mapping[str, Place],
        *,
        merge: Merge,
        burst_ms: int,
        renames: Sequence[tuple[str, str]] = (),
    ) -> list[int] | None:
        """Record ``touches`` in one transaction and move the cursor from ``cursor_from`` to
        ``cursor_to``; the ids of the entries made or grown, or None when another process moved
        the cursor first (it recorded them). ``renames`` (old and new title, in order) are the
        tags renamed meanwhile: the kept places name them anew, then ``places`` are written."""
        ...

    def entries(
        self,
        *,
        state: EntryState | None = EntryState.PENDING,
        actor: str | None = None,
        since: int | None = None,
        folder_id: str | None = None,
        limit: int | None = None,
        words: Sequence[Word] = (),
        along: bool = True,
        note_ids: Sequence[str] | None = None,
    ) -> list[EntryRow]:
        """Entries newest first; ``actor`` matches whole or as the part before ``:``; each of
        ``words`` must match (``Word``). ``along`` False leaves out those that came along with a
        change whose entry waits (they are folded under it: ``along``); ``note_ids`` keeps the
        entries of these notes or items only."""
        ...

    def entry(self, entry_id: int) -> EntryRow:
        """One entry, or ``NotFoundError``."""
        ...

    def along(self, entry_ids: Sequence[int]) -> list[tuple[int, EntryRow]]:
        """The waiting entries that came along with the changes of ``entry_ids`` (a note a
        notebook took to the trash: ``noted.ops.review_along``), each with the id of the one it
        came with, newest first."""
        ...

    def set_detail(self, entry_id: int, detail: Detail) -> None: ...

    def decide(self, entry_ids: Sequence[int], state: EntryState, time: int) -> list[int]:
        """Mark the pending ones among ``entry_ids`` ``state``, and with them the entries that
        came along with their changes once nothing those came with waits; the ids it marked
        (those of ``entry_ids`` first)."""
        ...

    def count(
        self,
        *,
        actor: str | None = None,
        since: int | None = None,
        folder_id: str | None = None,
        words: Sequence[Word] = (),
        along: bool = True,
    ) -> int:
        """How many entries wait for review (with these filters, as ``entries`` takes them)."""
        ...

    # Proposals --------------------------------------------------------------------------
    def propose(
        self,
        *,
        client: str,
        tool: str,
        note_id: str,
        title: str,
        base_updated_time: int,
        time: int,
        detail: Detail,
    ) -> ProposalRow: ...

    def proposal(self, proposal_id: int) -> ProposalRow:
        """One proposal, or ``NotFoundError``."""
        ...

    def proposals(
        self, *, state: ProposalState | tuple[ProposalState, ...] | None = WAITING, client: str | None = None
    ) -> list[ProposalRow]:
        """Proposals newest first, in ``state`` (one or several; None: any)."""
        ...

    def claim(
        self, proposal_id: int, *, time: int, stuck_before: int, also: tuple[ProposalState, ...] = ()
    ) -> bool:
        """Mark a pending proposal (or one in a state of ``also``) ``applying``, in one write
        transaction, so that this caller alone goes on to settle it, naming this process as its
        claimant; one claimed before ``stuck_before``, or by a process known to be gone, is taken
        over. False when another caller has it, or it was settled."""
        ...

    def release(self, proposal_id: int, *, time: int, reason: str = "") -> None:
        """Put back a proposal claimed at ``time`` that was not settled: it waits again, with
        ``reason`` when there is something to say of it (its accept's answer was lost)."""
        ...

    def settle(
        self, proposal_id: int, state: ProposalState, *, time: int, reason: str = "", result_note_id: str = ""
    ) -> bool:
        """Mark a pending or claimed proposal settled; False when it was settled already (by
        another process)."""
        ...


def stuck(proposal: ProposalRow, now: int) -> bool:
    """Whether ``proposal`` was claimed by a process that stopped before settling it: one known
    to be gone (it ran on this machine), or one claimed longer than ``STUCK_MS`` ago."""
    if proposal.state is not ProposalState.APPLYING:
        return False
    return proposal.decided_time < now - STUCK_MS or gone(proposal.claimant)

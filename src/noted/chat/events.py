"""The typed events a chat run yields; front ends only render them (``match`` on the type).

TextDelta*  (ToolCallStarted ToolCallFinished)*  [EditsProposed -> answered]  EditsApplied|EditsRefused
A round with several writes to approve asks once (``BatchApproval``, an ``Approval`` with a tick per
change) and ends in ``BatchApplied``, which ``ChatEngine.undo_batch`` undoes at once.
Usage*  then exactly one of Done, Failed, Cancelled; Waiting while no answer has begun
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from noted.models import Note, ToolStatus
from noted.ops.batch_capture import Batch
from noted.providers.base import TextDelta as TextDelta

# ``TextDelta`` is the provider's event: a piece of the answer passes on as the model sent it.


@dataclass(frozen=True, slots=True)
class ToolCallStarted:
    """The model called a tool; ``summary`` is a one-line description for people."""

    call_id: str
    name: str
    arguments: dict[str, Any]
    summary: str


@dataclass(frozen=True, slots=True)
class ToolCallFinished:
    """A tool call ended: ``status`` ok, error, refused, conflict or internal."""

    call_id: str
    name: str
    status: ToolStatus
    result: dict[str, Any]
    """What the model is given (``ToolResult.for_model``)."""
    reason: str = ""
    """Why it did not work, in the person's words (``ToolResult.for_person``); empty when it did."""

    @property
    def ok(self) -> bool:
        return self.status is ToolStatus.OK


@dataclass(slots=True)
class Approval:
    """A question the person must answer before a write happens: ``decide(True|False)``.

    The engine waits on it; the UI (keys) or ``noted ask`` (a prompt) answers.
    """

    title: str
    detail: str
    diff: str = ""
    _answer: asyncio.Future[bool] | None = field(default=None, repr=False)

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._answer = loop.create_future()

    def decide(self, yes: bool) -> None:
        if self._answer is not None and not self._answer.done():
            self._answer.get_loop().call_soon_threadsafe(self._set, yes)

    def _set(self, yes: bool) -> None:
        if self._answer is not None and not self._answer.done():
            self._answer.set_result(yes)

    async def wait(self) -> bool:
        assert self._answer is not None
        return await self._answer


@dataclass(frozen=True, slots=True)
class ApprovalRequested:
    """The engine waits until ``approval.decide`` is called."""

    approval: Approval
    tool: str


@dataclass(frozen=True, slots=True)
class EditsProposed:
    """The model's edits of the open note, as a unified diff (before approval or saving)."""

    note_id: str
    diff: str
    edits: int


@dataclass(frozen=True, slots=True)
class EditsApplied:
    """The edits were saved. ``before`` is the note as it was, for ``ChatEngine.undo``; the edit
    itself is also a revision in the note's history with the conversation as its actor."""

    note_id: str
    edits: int
    message: str
    before: Note
    after_updated_time: int


@dataclass(frozen=True, slots=True)
class EditsRefused:
    """The edits were not saved: declined by the person (``declined``), or the note was changed,
    deleted or moved to the trash meanwhile."""

    note_id: str
    edits: int
    message: str
    declined: bool = False


@dataclass(frozen=True, slots=True)
class UsageReport:
    """Tokens used by one request, and the conversation's size after it.

    Attributes:
        input_tokens: What the request sent, as the provider counted it.
        output_tokens: What its answer took.
        conversation_tokens: The conversation's size now: the request and its answer, which the
            next request sends again (what ``ai.budgetTokens`` limits; not a sum over requests).
    """

    input_tokens: int
    output_tokens: int
    conversation_tokens: int


@dataclass(frozen=True, slots=True)
class Waiting:
    """No answer has begun yet: sent about once a second, and before each retry.

    Attributes:
        elapsed: Seconds waited so far, every try included.
        limit: Seconds the person waits in all (``ai.timeoutSeconds``).
        retry: 0 on the first try, then which retry is under way (or about to be).
        retries: How many retries there may be.
        reason: Why the last try failed, when this announces a retry.
    """

    elapsed: float
    limit: float
    retry: int = 0
    retries: int = 0
    reason: str | None = None

    def describe(self) -> str:
        """``Waiting for the model… 12 s of 120 s · retry 1 of 2 (the server answered 503)``."""
        text = f"Waiting for the model… {int(self.elapsed)} s of {self.limit:g} s"
        if self.retry:
            text += f" · retry {self.retry} of {self.retries}"
        if self.reason:
            text += f" ({self.reason})"
        return text + " · Esc stops"


@dataclass(frozen=True, slots=True)
class Done:
    """The answer is complete."""

    text: str


@dataclass(frozen=True, slots=True)
class Failed:
    """The run stopped on an error; ``remedy`` says what the person can do."""

    message: str
    remedy: str | None = None


@dataclass(frozen=True, slots=True)
class Busy(Failed):
    """Nothing ran: another window answers in the conversation, and nothing of this message was
    saved (a ``Failed`` to a front end that needs no more)."""


@dataclass(frozen=True, slots=True)
class Cancelled:
    """The person stopped the answer; what was said so far is saved."""

    text: str


@dataclass(slots=True)
class BatchApproval(Approval):
    """Several writes put to the person at once; ``items`` has one line per change."""

    items: tuple[str, ...] = ()
    diffs: tuple[str, ...] = ()
    """Each change's diff where one can be shown before it runs (an edit of a note's text), else ''."""
    ticked: frozenset[int] | None = None
    """The changes to apply (indexes into ``items``); None until the person answers."""

    def choose(self, ticked: Iterable[int]) -> None:
        """Apply the changes at these indexes, and none of the others."""
        self.ticked = frozenset(i for i in ticked if 0 <= i < len(self.items))
        self.decide(bool(self.ticked))

    def chosen(self, yes: bool) -> frozenset[int]:
        """The indexes to apply, given the yes or no the engine got."""
        if not yes:
            return frozenset()
        return self.ticked if self.ticked is not None else frozenset(range(len(self.items)))


@dataclass(frozen=True, slots=True)
class BatchApplied:
    """The ticked changes of a batch ran, ``applied`` of them (none when one failed: ``message``
    says which). ``ChatEngine.undo_batch`` undoes ``batch``, but for its ``final`` changes."""

    message: str
    batch: Batch | None = None
    applied: int = 0

    @property
    def final(self) -> tuple[str, ...]:
        """The changes no undo can take back (a write tool without an ``Undo``), as the card listed them."""
        return self.batch.final if self.batch is not None else ()


ChatEvent: TypeAlias = (
    TextDelta
    | ToolCallStarted
    | ToolCallFinished
    | ApprovalRequested
    | EditsProposed
    | EditsApplied
    | BatchApplied
    | EditsRefused
    | UsageReport
    | Waiting
    | Done
    | Failed
    | Cancelled
)

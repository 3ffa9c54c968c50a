"""The tool calls of one chat round: approvals, running each call, saving the open note's edits.

``ChatEngine`` streams a round's answer and hands its tool calls here. A call runs through the
one tool registry; a write outside the open note is put to the person first when
``ai.approveWrites`` is on (unless the registry would refuse it anyway, or it would change
nothing: then it gets direct mode's answer at once), and the edits of the
open note made during the round are saved once at its end, shown to the person as a diff first
under the same setting (and always in review mode, ``ai.writes`` review, where the other writes
wait as proposals). A cancel while the person is being asked raises ``Stopped``.
"""

from __future__ import annotations

import asyncio
import difflib
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from noted.chat.asked import as_approved, asked_on
from noted.chat.events import (
    Approval,
    ApprovalRequested,
    BatchApplied,
    BatchApproval,
    ChatEvent,
    EditsApplied,
    EditsProposed,
    EditsRefused,
    ToolCallFinished,
    ToolCallStarted,
)
from noted.chat.turns import DECLINED, FINAL, NOT_OFFERED, PAUSED, SEND_AGAIN, mark_edits, summary
from noted.chat.waiting import Stopped
from noted.errors import NotedError
from noted.models import Note, ToolStatus
from noted.ops.batch_capture import Snapshot, capture, settled
from noted.ops.session import CommitResult, CommitStatus, EditorSession
from noted.ops.tool_words import tool_words
from noted.providers import ToolCallReady
from noted.store.protocol import Store
from noted.tools import Tool, ToolContext, ToolRegistry, ToolResult
from noted.tools.editor import amend
from noted.tools.proposals import note_key
from noted.tools.registry import NOT_APPROVED
from noted.wording import plural


@dataclass(frozen=True, slots=True)
class RoundCalls:
    """What running a round's tool calls needs; one per run, as its context never changes."""

    registry: ToolRegistry
    ctx: ToolContext
    approve_writes: Callable[[], bool]
    """``ai.approveWrites``, read at each question so a change applies to the next one."""
    cancel: asyncio.Event
    editor: EditorSession | None
    """The open note's editing session, whose edits ``commit_edits`` saves."""
    actor: str
    refresh: Callable[[], None] = lambda: None
    """Brings the settings and ``ctx`` up to the config file as it is now (``ChatSetup.refresh``):
    run in a worker thread before each call is decided, so a switch flipped by another process
    holds from the next call."""

    async def _now(self) -> None:
        await asyncio.to_thread(self.refresh)

    @staticmethod
    def _ask(approval: Approval, tool: str) -> ApprovalRequested:
        """The question to yield; then ``_answer`` waits for the person's answer to it."""
        approval.bind(asyncio.get_running_loop())
        return ApprovalRequested(approval, tool)

    async def _answer(self, approval: Approval) -> bool:
        stop = asyncio.ensure_future(self.cancel.wait())
        answer = asyncio.ensure_future(approval.wait())
        try:
            await asyncio.wait({stop, answer}, return_when=asyncio.FIRST_COMPLETED)
            if not answer.done():
                raise Stopped()
            return answer.result()
        finally:
            stop.cancel()
            answer.cancel()

    async def run_calls(
        self, calls: list[ToolCallReady], results: list[ToolResult], *, paused: bool
    ) -> AsyncIterator[ChatEvent]:
        """Run a round's ``calls`` in order, appending each result to ``results`` as it comes.

        Under ``paused`` (too many failed rounds) no call runs. A call that would run and writes
        outside the open note waits for the person's yes when ``ai.approveWrites`` is on, unless
        its rehearsal answers it already (``_foretold``): one that changes nothing is answered so,
        and one that would be refused refuses the round's writes, all or none, with no question.
        """
        registry = self.registry
        await self._now()
        asked = [i for i, call in enumerate(calls) if not paused and self._asks(call)]
        unchanging = await self._foretold(calls, asked)
        asked = [i for i in asked if i not in unchanging]
        if any(not r.ok for r in unchanging.values()):
            unchanging |= _refused_together(calls, asked, unchanging)
            asked = []
        batch: BatchApplied | None = None
        outcomes: dict[int, ToolResult] = {}
        lines = [await self._line(call) for call in calls]
        seen = await asyncio.to_thread(asked_on, registry, self.ctx.store, calls, asked)
        if len(asked) > 1:  # several writes: one question, each change ticked
            items = tuple(self._item(calls[i], lines[i]) for i in asked)
            question = BatchApproval(f"Apply {len(asked)} changes?", "", items=items)
            yield self._ask(question, "batch")
            yes = await self._answer(question)
            ticked = sorted(asked[i] for i in question.chosen(yes))
            if ticked:
                await self._now()  # the person may have taken a while
                chosen = [calls[i] for i in ticked]
                before = await self._capture(chosen)
                given = [await self._approved(calls[i], seen.get(i)) for i in ticked]
                together = await registry.call_together(
                    [(c.name, a) for c, a in zip(chosen, given, strict=True)], self.ctx, before
                )
                outcomes = dict(zip(ticked, together, strict=True))
                batch = await self._settled(before, chosen, together)
        for index, call in enumerate(calls):
            arguments = dict(call.arguments)
            yield ToolCallStarted(call.id, call.name, arguments, lines[index])
            tool = registry.get(call.name)
            if index:
                await self._now()  # the calls before may have taken a while
            if call.arguments_error:
                result = ToolResult(call.name, ToolStatus.ERROR, message=call.arguments_error)
            elif paused:
                result = ToolResult(call.name, ToolStatus.REFUSED, message=PAUSED, person=NOT_OFFERED)
            elif index in unchanging:  # answered by its rehearsal (or a refusal's): not asked about
                result = unchanging[index]
            elif len(asked) > 1 and index in asked:
                result = outcomes.get(index) or _declined(call.name)
            elif tool is not None and self._needs_approval(tool, arguments):
                approval = Approval(f"Allow: {lines[index]}?", "")
                yield self._ask(approval, call.name)
                allowed = await self._answer(approval)
                if allowed:
                    await self._now()
                    approved = await self._approved(call, seen.get(index))
                    result = await registry.call(call.name, approved, self.ctx)
                else:
                    result = _declined(call.name)
            else:
                result = await registry.call(call.name, arguments, self.ctx)
            results.append(result)
            yield ToolCallFinished(call.id, call.name, result.status, result.for_model(), result.for_person())
        if batch is not None:
            yield batch

    async def _approved(self, call: ToolCallReady, seen: Note | None) -> dict[str, Any]:
        """The call's arguments for the note as it was when the person was asked (``noted.chat.asked``)."""
        return await asyncio.to_thread(as_approved, self.ctx.store, call.arguments, seen)

    async def _foretold(self, calls: list[ToolCallReady], asked: list[int]) -> dict[int, ToolResult]:
        """The ``asked`` calls whose rehearsal answers them (``ToolRegistry.foretold``): one that
        would change nothing (a tag the note has, its own text), or be refused (a note in the
        trash, a notebook that is not there), with direct mode's answer: the person is not asked.

        Each is told on the notes as they are now, so a call after a write of the round that may
        change what it finds is put to the person as before: after one on the same note, or one
        that names more than notes (a notebook, a tag, a file) or does not say what it names."""
        found: dict[int, ToolResult] = {}
        touched: set[str] = set()
        writes = wide = False  # an earlier call of the round writes; one of them names more than notes
        for index in asked:
            call = calls[index]
            notes = _notes(self.registry.get(call.name), call.arguments)
            if not writes or (not wide and notes is not None and not notes & touched):
                answer = await self.registry.foretold(call.name, dict(call.arguments), self.ctx)
                if answer is not None:
                    found[index] = answer
                    continue
            writes, wide = True, wide or notes is None
            touched |= notes or set()
        return found

    def _asks(self, call: ToolCallReady) -> bool:
        tool = self.registry.get(call.name)
        return (
            not call.arguments_error and tool is not None and self._needs_approval(tool, dict(call.arguments))
        )

    def _item(self, call: ToolCallReady, line: str) -> str:
        """A change's line on the batch's card, saying whether an undo can take it back."""
        tool = self.registry.get(call.name)
        return line if tool is not None and tool.undo is not None else f"{line} {FINAL}"

    async def _line(self, call: ToolCallReady) -> str:
        return await asyncio.to_thread(call_line, self.registry, self.ctx.store, call.name, call.arguments)

    async def _capture(self, calls: list[ToolCallReady]) -> Snapshot:
        """What the ticked calls name, as it is before any runs, for the undo."""
        named: tuple[list[str], list[str], list[str], list[str]] = ([], [], [], [])
        for call in calls:
            tool = self.registry.get(call.name)
            if tool is not None and tool.undo is not None:
                for kept, more in zip(named, tool.undo.named(call.arguments), strict=True):
                    kept += more
        notes, folders, tags, files = named
        store = self.ctx.store
        return await asyncio.to_thread(capture, store, notes=notes, folders=folders, tags=tags, files=files)

    async def _settled(
        self, before: Snapshot, calls: list[ToolCallReady], results: list[ToolResult]
    ) -> BatchApplied:
        """What the batch did, as the card and its undo need it."""
        failed = next((r.for_person() for r in results if not r.ok), None)
        if failed is not None:
            return BatchApplied(f"{failed[:1].upper()}{failed[1:]}.")
        final = tuple(
            summary(c.name, dict(c.arguments))
            for c in calls
            if (tool := self.registry.get(c.name)) is None or tool.undo is None
        )
        batch = await asyncio.to_thread(settled, self.ctx.store, before, self.actor, final)
        return BatchApplied(f"Applied {plural(len(calls), 'change')} together.", batch, len(calls))

    def _needs_approval(self, tool: Tool, arguments: dict[str, Any]) -> bool:
        """Whether to ask the person before a global write. A call the registry would refuse anyway
        (switched off, bad arguments) is not put to the person: a yes could not make it run, and a
        note that talks the model into calling a switched-off tool must not reach the person as a
        question."""
        if not tool.is_write or tool.editor or not self.approve_writes():
            return False
        registry = self.registry
        return (
            registry.enabled(tool)
            and registry.available(tool, self.ctx)
            and registry.validate(tool, arguments) is None
        )

    async def commit_edits(self, results: list[ToolResult]) -> AsyncIterator[ChatEvent]:
        """Save the round's edits of the open note once, after the person's yes if one is asked
        (when ``ai.approveWrites`` is on, and always in review mode).

        ``results`` are rewritten in place to say whether the edits were saved, declined or lost.
        """
        session = self.editor
        if session is None:
            return
        if not session.dirty:
            # Edits that cancelled out: commit writes nothing but clears them, so the next
            # round's count starts from zero.
            session.commit(self.ctx.store, self.actor)
            return
        diff = "".join(
            difflib.unified_diff(
                _lines(session.original),
                _lines(session.text),
                fromfile="before",
                tofile="after",
            )
        )
        count = len(session.edits)
        if (in_trash := session.in_trash) is not None:  # nothing to ask: it could not be saved
            session.discard()
            outcome = CommitResult(CommitStatus.FAILED, count, in_trash)
            results[:] = [amend(outcome, r) for r in results]
            yield EditsRefused(session.note_id, count, in_trash)
            return
        yield EditsProposed(session.note_id, diff, count)
        # In review mode (``ai.writes`` review) no write goes in unasked. The open note's edits have
        # no tool of their own a proposal could be accepted through (editor tools need the open
        # note), so they are asked about here, their diff shown, whatever ``ai.approveWrites`` says.
        if self.approve_writes() or self.ctx.writes_wait:
            approval = Approval(f"Apply {plural(count, 'edit')} to “{session.title}”?", "", diff)
            yield self._ask(approval, "edit_current")
            allowed = await self._answer(approval)
            if not allowed:
                session.discard()
                results[:] = [mark_edits(r, DECLINED, NOT_APPROVED) for r in results]
                yield EditsRefused(
                    session.note_id, count, "You declined the edits; nothing was written.", declined=True
                )
                return
        # The commit says what became of a note deleted, trashed or changed while the person was
        # asked; it reads the note it writes over, for the undo, in the same step.
        outcome = await asyncio.to_thread(session.commit, self.ctx.store, self.actor)
        results[:] = [amend(outcome, r) for r in results]
        if outcome.written and outcome.note is not None and outcome.before is not None:
            after = outcome.note.updated_time
            yield EditsApplied(session.note_id, count, outcome.message, outcome.before, after)
        elif outcome.lost:
            yield EditsRefused(session.note_id, count, outcome.message)


def call_line(registry: ToolRegistry, store: Store, name: str, arguments: Mapping[str, Any]) -> str:
    """A tool call's one line for people, naming the note it is about by its title, as the other
    tool lines name what they are about (an id that names no note is shown as it is). Blocking."""
    tool = registry.get(name)
    key = note_key(tool) if tool is not None else None
    note_id = arguments.get(key) if key else None
    title = None
    if key and isinstance(note_id, str):
        try:
            title = store.get_note(note_id).title or None
        except NotedError:
            pass
    return summary(name, dict(arguments), {key: title} if key and title else None)


def _notes(tool: Tool | None, arguments: Mapping[str, Any]) -> set[str] | None:
    """The notes a write names (none for one that only makes something new), or None when it
    names more than notes, or its tool does not say (``Tool.undo``)."""
    if tool is None or tool.undo is None:
        return None
    notes, *others = tool.undo.named(arguments)
    return None if any(others) else set(notes)


def _lines(text: str) -> list[str]:
    """``text``'s lines for a diff, each ending in a newline (a last line without one would run
    into the next line of the diff)."""
    return [line if line.endswith("\n") else line + "\n" for line in text.splitlines(keepends=True)]


def _refused_together(
    calls: list[ToolCallReady], asked: list[int], foretold: dict[int, ToolResult]
) -> dict[int, ToolResult]:
    """The answers of the writes still to be asked about when one of the round's would be refused:
    the person approves a round's writes as one unit, all written or none, so none is put to them,
    and each says which write would be refused and why."""
    index, refused = next((i, r) for i, r in sorted(foretold.items()) if not r.ok)

    def why(name: str, reason: str) -> str:
        return (
            f"not asked about nor run: {name} (change {index + 1} of this round) would be refused "
            f"({reason}), and this round's changes are approved all or none; nothing was written"
        )

    message = f"{why(calls[index].name, refused.message or '')}: {SEND_AGAIN}"
    person = why(tool_words(calls[index].name).to_do, refused.for_person())
    return {i: ToolResult(calls[i].name, ToolStatus.REFUSED, message=message, person=person) for i in asked}


def _declined(name: str) -> ToolResult:
    """The answer of a write the person declined."""
    return ToolResult(name, ToolStatus.REFUSED, message=DECLINED, person=NOT_APPROVED)

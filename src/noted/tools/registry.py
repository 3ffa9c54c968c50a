"""The one registry of tools: what is offered, what is switched on, and how a call runs.

The assistant and the MCP server both call ``ToolRegistry.call``; neither has its own path to the
store. A call checks the tool's switch (read from settings at call time, so a toggle applies at
once), validates the arguments against the tool's JSON Schema, asks the person first when
``ai.approveWrites`` is on and the caller can ask, runs the handler in a worker thread with the
caller's actor and scope, and returns a ``ToolResult``; in review mode a write is rehearsed instead
(refused as the direct call would be, answered as it when it would change nothing) and stored as a
proposal, and one that would change nothing is not asked about either (``no_change``).
``call_together`` runs the writes of one approval (the chat's batch) the same way, as one unit: all
written or none. Text inside notes cannot change any of this: switches live in settings, and no tool
writes settings.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from noted.errors import ConflictError, Interruption, NotedError, PartlyDoneError, WriteOutcomeUnknownError
from noted.models import ToolStatus
from noted.ops.batch_capture import Snapshot
from noted.ops.batch_undo import all_or_none
from noted.ops.tool_words import tool_words
from noted.settings import Settings
from noted.settings.handles import AI_APPROVE_WRITES, AI_WRITES
from noted.tools.arguments import describe_validation_error, field_of, normal_ids, short
from noted.tools.base import IMAGES, ImageData, Payload, Tool, ToolContext, ToolError
from noted.tools.rehearsal import WouldWrite, rehearsal

log = logging.getLogger(__name__)

MAX_ARGUMENT_CHARS = 16 * 1024 * 1024
"""No call's arguments, as JSON, may be longer than this (each field has its own, smaller cap): room
for one 10 MiB attachment in base64 (13,981,016 characters) and the fields around it."""

NOT_APPROVED = "not approved, so nothing was written"
"""What the person is told of a write they declined (the model is told not to try it again)."""


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The outcome of one call.

    ``status`` says how it ended (``ToolStatus``: ok, error, refused, conflict or internal).
    A ``conflict`` is an editor edit not saved because the note changed
    (see ``ops.session.CommitResult``). ``field`` names the input field at fault, when known.
    ``images`` are images returned beside the payload (``read_attachment``), which describes them.
    ``landed`` is set on an error after which the write may have landed, whole or in part (the
    backend took it in and never answered, or stopped partway): it is not "nothing was written".
    ``message`` is written for the model (and MCP clients), with what to do next; ``person`` is
    what went wrong as the person is told it, decided where the result is made, when the model's
    advice is not theirs (``for_person``).
    """

    name: str
    status: ToolStatus
    payload: Payload | None = None
    message: str | None = None
    field: str | None = None
    images: tuple[ImageData, ...] = ()
    landed: bool = False
    person: str | None = None

    @property
    def ok(self) -> bool:
        return self.status is ToolStatus.OK

    def for_model(self) -> Payload:
        """What the model (or MCP client) is shown."""
        if self.ok and self.payload is not None:
            return self.payload
        return {"error": self.message or "failed", "status": self.status}

    def for_person(self) -> str:
        """Why the call did not work, in the person's words (the chat's cards and lines, ``noted
        ask``, the Changes view); empty when it worked."""
        if self.ok:
            return ""
        return self.person or self.message or str(self.status)


class ToolRegistry:
    """The tools of this process, their switches in ``settings``, and the call path.

    Args:
        settings: Where each tool's switch is read at call time; every tool's switch is declared
            in its registry (read tools on, write tools off, unless the tool says otherwise).
        tools: The tools, each name once. Every successful payload is checked against its tool's
            output schema: one that does not fit is a bug, reported as an internal error.
    """

    def __init__(self, settings: Settings, tools: Iterable[Tool]) -> None:
        self.settings = settings
        self._tools: dict[str, Tool] = {}
        self._validators: dict[str, Draft202012Validator] = {}
        self._output_validators: dict[str, Draft202012Validator] = {}
        for tool in tools:
            if tool.name in self._tools:
                raise ValueError(f"tool {tool.name} is declared twice")
            _check_schema(tool.input_schema)
            _check_schema(tool.output_schema)
            self._tools[tool.name] = tool
            self._validators[tool.name] = Draft202012Validator(tool.input_schema)
            self._output_validators[tool.name] = Draft202012Validator(tool.output_schema)
            # A shared switch (edit_current) is declared in settings.handles, which wins.
            settings.register_tool_setting(
                tool.setting_id or tool.name,
                title=tool.title,
                default=tool.enabled_by_default,
                write=tool.is_write,
            )

    # What is there -----------------------------------------------------------------------
    def all(self) -> list[Tool]:
        return list(self._tools.values())

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def enabled(self, tool: Tool) -> bool:
        return self.settings.get(tool.setting)

    def available(self, tool: Tool, ctx: ToolContext | None) -> bool:
        """Whether ``tool`` makes sense for this caller: editor tools need an open note, and
        ``editor_replace_selection`` a selection in it."""
        if not tool.editor:
            return True
        session = ctx.editor if ctx is not None else None
        return session is not None and (not tool.needs_selection or session.selection is not None)

    def offered(self, ctx: ToolContext | None = None) -> list[Tool]:
        """The tools switched on that make sense for ``ctx`` (None: a caller with no open note,
        such as an MCP client)."""
        return [t for t in self._tools.values() if self.enabled(t) and self.available(t, ctx)]

    def refusal(self, tool: Tool) -> ToolResult:
        """The answer to a call of a tool that is switched off: the model is told only the person can
        switch it on, and the person where."""
        spec = self.settings.registry.spec(tool.setting_key)
        where = (
            f'Settings → {spec.section} → "{spec.label}" (setting {tool.setting_key}), '
            f"or `noted config set {tool.setting_key} true`"
        )
        return ToolResult(
            tool.name,
            ToolStatus.REFUSED,
            message=f'The tool "{tool.name}" is switched off. Only the person can switch it on: {where}. '
            "Ask them if you need it.",
            person=f'the tool "{tool.name}" is switched off; it is switched on in {where}',
        )

    # Calling -------------------------------------------------------------------------------
    async def call(self, name: str, arguments: Mapping[str, Any] | None, ctx: ToolContext) -> ToolResult:
        """Run one tool call for the caller described by ``ctx``; never raises for tool failures."""
        checked = self._check(name, arguments, ctx)
        if isinstance(checked, ToolResult):
            return checked
        tool, args = checked
        if tool.is_write and not tool.editor and ctx.writes_wait:
            return await asyncio.to_thread(self._propose, tool, args, ctx)
        if tool.is_write and ctx.approve is not None and self.asks():
            foretold = None if tool.editor else await asyncio.to_thread(self.rehearse, tool, args, ctx)
            if foretold is not None:
                return foretold  # refused, or changing nothing: nothing to ask about
            if not await ctx.approve(tool, args):
                message = "The person declined this change. Do not retry it unless they ask for it."
                return ToolResult(name, ToolStatus.REFUSED, message=message, person=NOT_APPROVED)
        return await asyncio.to_thread(self._run, tool, args, ctx)

    async def call_together(
        self, calls: Sequence[tuple[str, Mapping[str, Any]]], ctx: ToolContext, before: Snapshot
    ) -> list[ToolResult]:
        """Run writes the person approved at once as one unit (``ops.batch_undo.all_or_none``):
        all are written, or none, and the results say which call failed. ``before`` is what the
        calls name, as it is now (put back on a store without transactions).

        In review mode each is a proposal of its own, as ``call`` makes it.
        """
        if ctx.writes_wait:
            return [await self.call(name, arguments, ctx) for name, arguments in calls]
        checked = [self._check(name, arguments, ctx) for name, arguments in calls]
        if any(isinstance(c, ToolResult) for c in checked):
            return _none_written([c if isinstance(c, ToolResult) else None for c in checked], calls)
        ready = [c for c in checked if not isinstance(c, ToolResult)]
        return await asyncio.to_thread(self._run_together, ready, ctx, before)

    def _run_together(
        self, ready: list[tuple[Tool, Payload]], ctx: ToolContext, before: Snapshot
    ) -> list[ToolResult]:
        results: list[ToolResult | None] = [None] * len(ready)
        try:
            with all_or_none(ctx.store, before, actor=ctx.actor):
                for index, (tool, args) in enumerate(ready):
                    results[index] = result = self._run(tool, args, ctx)
                    if not result.ok:
                        raise _CallFailed(
                            f"change {index + 1} ({tool_words(tool.name).to_do}) failed: {result.message}"
                        )
        except _CallFailed:
            return _none_written(results, [(t.name, a) for t, a in ready])
        except NotedError as exc:  # the transaction itself failed (a full disk…), or Joplin's undo
            message = f"this batch of {len(ready)} changes failed: {exc}"
            return [ToolResult(t.name, ToolStatus.ERROR, message=message) for t, _ in ready]
        return [r for r in results if r is not None]

    def _check(
        self, name: str, arguments: Mapping[str, Any] | None, ctx: ToolContext
    ) -> ToolResult | tuple[Tool, Payload]:
        """The tool and its arguments when the call may run, else the result that refuses it."""
        tool = self._tools.get(name)
        if tool is None:
            known = ", ".join(sorted(t.name for t in self.offered(ctx)))
            return ToolResult(
                name, ToolStatus.ERROR, message=f'there is no tool "{name}"; available: {known}'
            )
        if not self.enabled(tool):
            return self.refusal(tool)
        if not self.available(tool, ctx):
            why = "an open note with a selection" if ctx.editor is not None else "a chat about an open note"
            return ToolResult(name, ToolStatus.REFUSED, message=f'"{name}" works only in {why}')
        if arguments is not None and not isinstance(arguments, Mapping):
            return ToolResult(name, ToolStatus.ERROR, message="the arguments must be a JSON object")
        args = dict(arguments or {})
        problem = self.validate(tool, args)
        if problem is not None:
            return ToolResult(name, ToolStatus.ERROR, message=problem[0], field=problem[1])
        return tool, normal_ids(args)

    def asks(self) -> bool:
        """Whether the assistant's writes are asked about first (``ai.writes`` ask, with
        ``ai.approveWrites`` on)."""
        return self.settings.get(AI_WRITES) == "ask" and self.settings.get(AI_APPROVE_WRITES)

    async def foretold(self, name: str, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult | None:
        """Direct mode's answer to a global write that its rehearsal (``rehearse``) ends before its
        first write: a refusal (made by the tool's own checks, a note out of the caller's scope
        among them), or the answer of a call that would change nothing (a tag the note has, its
        own text); None for any other call. The person is not asked about such a call."""
        checked = self._check(name, arguments, ctx)
        if isinstance(checked, ToolResult) or not checked[0].is_write or checked[0].editor:
            return None
        return await asyncio.to_thread(self.rehearse, *checked, ctx)

    def rehearse(self, tool: Tool, args: Payload, ctx: ToolContext) -> ToolResult | None:
        """Direct mode's answer to a write that ends before its first write, a refusal or a call
        that changes nothing, from its handler run over a store that stops at the first write
        (``noted.tools.rehearsal``; in a worker thread); None when it reaches one."""
        try:
            return self._run(tool, args, rehearsal(ctx))
        except WouldWrite:
            return None

    def _propose(self, tool: Tool, args: Payload, ctx: ToolContext) -> ToolResult:
        """The call stored as a proposal (in a worker thread), unless its rehearsal ended before
        its first write: then direct mode's answer, a refusal or that of a call that changes
        nothing, and no proposal."""
        from noted.tools.proposals import propose

        answered = self.rehearse(tool, args, ctx)
        if answered is not None:
            return answered
        try:
            payload = propose(tool, args, ctx)
        except ToolError as exc:
            return _refused(tool.name, exc)
        except NotedError as exc:
            return ToolResult(tool.name, ToolStatus.ERROR, message=str(exc))
        return ToolResult(tool.name, ToolStatus.OK, payload=payload)

    def _run(self, tool: Tool, args: Payload, ctx: ToolContext) -> ToolResult:
        """Run the handler (in a worker thread: it blocks on the store)."""
        name = tool.name
        if not self.enabled(tool):  # switched off while the call waited (for the person, for a thread)
            return self.refusal(tool)
        try:
            payload = tool.handler(ctx, args)
        except WouldWrite:  # a rehearsal's end, for _propose
            raise
        except ToolError as exc:
            return _refused(name, exc)
        except ConflictError as exc:
            advice = f"{exc.message}; read the note again and redo the change"
            return ToolResult(name, ToolStatus.ERROR, message=advice, person=exc.message)
        except NotedError as exc:
            landed = isinstance(exc, (WriteOutcomeUnknownError, PartlyDoneError))
            return ToolResult(name, ToolStatus.ERROR, message=str(exc), landed=landed)
        except Exception:
            log.exception("tool %s failed with arguments %s", name, short(args))
            return ToolResult(
                name, ToolStatus.INTERNAL, message=f'internal error in tool "{name}"; it was logged'
            )
        images = payload.pop(IMAGES, ())
        if not isinstance(images, tuple) or not all(isinstance(i, ImageData) for i in images):
            log.error("tool %s returned something other than images under %s", name, IMAGES)
            return ToolResult(
                name, ToolStatus.INTERNAL, message=f'internal error in tool "{name}"; it was logged'
            )
        wrong = best_match(self._output_validators[name].iter_errors(payload))
        if wrong is not None:
            log.error("tool %s returned a payload outside its output schema: %s", name, wrong.message)
            return ToolResult(
                name, ToolStatus.INTERNAL, message=f'internal error in tool "{name}"; it was logged'
            )
        return ToolResult(name, ToolStatus.OK, payload=payload, images=images)

    def validate(self, tool: Tool, args: Payload) -> tuple[str, str | None] | None:
        """What is wrong with ``args`` in one line naming the field, and the field; None if fine."""
        try:
            size = len(json.dumps(args, ensure_ascii=False))
        except (TypeError, ValueError):
            return "the arguments are not plain JSON", None
        if size > MAX_ARGUMENT_CHARS:
            return f"the arguments are too large ({size:,} characters; at most {MAX_ARGUMENT_CHARS:,})", None
        error = best_match(self._validators[tool.name].iter_errors(args))
        if error is None:
            return None
        return describe_validation_error(error), field_of(error)


class _CallFailed(Interruption):
    """A call of a batch failed: the batch stops, and its writes are undone."""


def _none_written(
    results: Sequence[ToolResult | None], calls: Sequence[tuple[str, Mapping[str, Any]]]
) -> list[ToolResult]:
    """The results of a batch of which nothing was written: each says which call failed and why,
    to the model and to the person (the failed call keeps its status and field)."""
    index, failed = next((i, r) for i, r in enumerate(results) if r is not None and not r.ok)
    head = (
        f"nothing of this batch of {len(calls)} changes was written: "
        f"change {index + 1} ({tool_words(calls[index][0]).to_do}) failed: "
    )
    message, person = head + (failed.message or "failed"), head + failed.for_person()
    return [
        dataclasses.replace(failed, message=message, person=person)
        if i == index
        else ToolResult(name, ToolStatus.ERROR, message=message, person=person)
        for i, (name, _) in enumerate(calls)
    ]


def _refused(name: str, exc: ToolError) -> ToolResult:
    """The answer of a call its tool refused, to the model and (where it differs) to the person."""
    return ToolResult(name, ToolStatus.ERROR, message=exc.message, field=exc.field, person=exc.person)


def _check_schema(schema: Payload) -> None:
    """Check a schema against the JSON Schema meta-schema, once per process per distinct schema
    (the check costs tens of milliseconds, and every registry declares the same tools)."""
    _check_schema_text(json.dumps(schema, sort_keys=True))


@functools.cache  # a schema that fails raises, so it is checked again next time
def _check_schema_text(text: str) -> None:
    Draft202012Validator.check_schema(json.loads(text))

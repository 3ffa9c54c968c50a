"""Chat with Anthropic's Messages API (or a server speaking it) through the official ``anthropic`` SDK.

The raw event stream is translated here rather than through the SDK's accumulating helper, so each
``input_json_delta`` reaches the engine as it arrives. Tool results travel as ``tool_result`` blocks
in a user message; the system prompt is a top-level block marked ``cache_control: ephemeral``, which
caches the tools and the system prompt together (they come first in the prompt).

Usage is split over ``message_start`` (the prompt) and ``message_delta`` (the answer so far); the
prompt's cached parts are counted separately by the API and summed here.

The Messages API of this SDK generation takes no ``temperature``, so ``ChatRequest.temperature``
is not sent.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, cast

import anthropic
import httpx2
from anthropic import types as wire
from anthropic.types import MessageParam, TextBlockParam, ToolParam

from noted.providers.base import (
    AssistantMessage,
    ChatRequest,
    Finished,
    ProviderCapabilities,
    ProviderEvent,
    StopReason,
    TextDelta,
    ToolCallArgsDelta,
    ToolCallReady,
    ToolCallStarted,
    ToolResultMessage,
    Usage,
    UserMessage,
    parse_tool_arguments,
)
from noted.providers.config import Endpoint, ProviderConfig
from noted.providers.errors import ProviderError, connection_error, status_error, stream_error

DEFAULT_BASE_URL = "https://api.anthropic.com"

_STOP_REASONS = {
    "end_turn": StopReason.END,
    "stop_sequence": StopReason.END,
    "tool_use": StopReason.TOOL_CALLS,
    "max_tokens": StopReason.MAX_TOKENS,
    "model_context_window_exceeded": StopReason.MAX_TOKENS,
    "refusal": StopReason.REFUSED,
}
_HINTS = {404: "check ai.model, and that ai.baseUrl is the server's root: the SDK adds /v1/messages"}
_RETRYABLE_STREAM_ERRORS = frozenset({"overloaded_error", "api_error", "rate_limit_error"})


def to_anthropic_system(system: str) -> list[dict[str, Any]]:
    """The system prompt as one cacheable text block (none when empty)."""
    if not system:
        return []
    return [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}]


def to_anthropic_messages(request: ChatRequest) -> list[dict[str, Any]]:
    """The history as Messages-API turns; consecutive user-side blocks share one user message."""
    wire_messages: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        if not blocks:
            return  # the API refuses empty content
        if wire_messages and wire_messages[-1]["role"] == role:
            wire_messages[-1]["content"].extend(blocks)
        else:
            wire_messages.append({"role": role, "content": blocks})

    for message in request.messages:
        match message:
            case UserMessage(text=text):
                add("user", [{"type": "text", "text": text}] if text else [])
            case AssistantMessage(text=text, tool_calls=calls):
                blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
                blocks += [
                    {"type": "tool_use", "id": c.id, "name": c.name, "input": dict(c.arguments)}
                    for c in calls
                ]
                add("assistant", blocks)
            case ToolResultMessage(call_id=call_id, content=content, is_error=is_error):
                block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id, "content": content}
                if is_error:
                    block["is_error"] = True
                add("user", [block])
    return wire_messages


def to_anthropic_tools(request: ChatRequest) -> tuple[list[dict[str, Any]], bool]:
    """The offered tools as Messages-API tool definitions, and whether the model may call them.

    The API refuses a history holding ``tool_use`` blocks when no tools are defined, so a request
    that offers none after tools were used (the engine's pause after repeated failures) defines
    bare stand-ins for the tools in the history and forbids calling any.
    """
    if request.tools:
        offered = [
            {"name": t.name, "description": t.description, "input_schema": dict(t.input_schema)}
            for t in request.tools
        ]
        return offered, True
    used = dict.fromkeys(
        call.name for m in request.messages if isinstance(m, AssistantMessage) for call in m.tool_calls
    )
    stand_ins = [{"name": name, "description": "", "input_schema": {"type": "object"}} for name in used]
    return stand_ins, False


@dataclass
class _ToolBlock:
    id: str
    name: str
    initial_input: dict[str, Any]
    fragments: list[str] = field(default_factory=list)


@dataclass
class EventTranslator:
    """Turns raw Messages-API stream events into provider events."""

    tools: dict[int, _ToolBlock] = field(default_factory=dict)
    input_tokens: int = 0
    cached_tokens: int | None = None
    output_tokens: int = 0
    stop_reason: str | None = None

    def feed(self, event: wire.RawMessageStreamEvent) -> list[ProviderEvent]:
        """The events one raw event brings."""
        if isinstance(event, wire.RawMessageStartEvent):
            self._count_prompt(event.message.usage)
            self.output_tokens = event.message.usage.output_tokens
        elif isinstance(event, wire.RawContentBlockStartEvent):
            return self._block_start(event)
        elif isinstance(event, wire.RawContentBlockDeltaEvent):
            return self._block_delta(event)
        elif isinstance(event, wire.RawContentBlockStopEvent):
            return self._block_stop(event.index)
        elif isinstance(event, wire.RawMessageDeltaEvent):
            self.stop_reason = event.delta.stop_reason or self.stop_reason
            self.output_tokens = event.usage.output_tokens
            if event.usage.input_tokens is not None:
                self._count_prompt(event.usage)
        elif isinstance(event, wire.RawMessageStopEvent):
            return self.finish()
        return []

    def finish(self) -> list[ProviderEvent]:
        """Calls left open (a stream cut short), usage, then ``Finished``."""
        events: list[ProviderEvent] = []
        for index in sorted(self.tools):
            events.extend(self._block_stop(index))
        events.append(Usage(self.input_tokens, self.output_tokens, self.cached_tokens))
        reason = _STOP_REASONS.get(self.stop_reason or "", StopReason.OTHER)
        events.append(Finished(reason, raw=self.stop_reason))
        return events

    def _count_prompt(self, usage: wire.Usage | wire.MessageDeltaUsage) -> None:
        read = usage.cache_read_input_tokens or 0
        written = usage.cache_creation_input_tokens or 0
        self.input_tokens = (usage.input_tokens or 0) + read + written
        if usage.cache_read_input_tokens is not None:
            self.cached_tokens = read

    def _block_start(self, event: wire.RawContentBlockStartEvent) -> list[ProviderEvent]:
        block = event.content_block
        if isinstance(block, wire.TextBlock):
            return [TextDelta(block.text)] if block.text else []
        if isinstance(block, wire.ToolUseBlock):
            initial = block.input if isinstance(block.input, dict) else {}
            self.tools[event.index] = _ToolBlock(block.id, block.name, cast("dict[str, Any]", initial))
            return [ToolCallStarted(block.id, block.name)]
        return []  # thinking and server-tool blocks are not part of the neutral stream

    def _block_delta(self, event: wire.RawContentBlockDeltaEvent) -> list[ProviderEvent]:
        delta = event.delta
        if isinstance(delta, wire.TextDelta):
            return [TextDelta(delta.text)] if delta.text else []
        tool = self.tools.get(event.index)
        if isinstance(delta, wire.InputJSONDelta) and tool is not None and delta.partial_json:
            tool.fragments.append(delta.partial_json)
            return [ToolCallArgsDelta(tool.id, delta.partial_json)]
        return []

    def _block_stop(self, index: int) -> list[ProviderEvent]:
        tool = self.tools.pop(index, None)
        if tool is None:
            return []
        raw = "".join(tool.fragments)
        if not raw and tool.initial_input:
            return [ToolCallReady(tool.id, tool.name, tool.initial_input)]
        arguments, error = parse_tool_arguments(raw)
        return [ToolCallReady(tool.id, tool.name, arguments, error, raw)]


class AnthropicChatProvider:
    """A :class:`~noted.providers.base.ChatProvider` for the Anthropic Messages API."""

    capabilities = ProviderCapabilities(streaming=True, tools=True, usage=True, prompt_caching=True)

    def __init__(self, config: ProviderConfig) -> None:
        self._end = Endpoint.of(config, default_url=DEFAULT_BASE_URL, what="Anthropic endpoint")
        self._client = anthropic.AsyncAnthropic(
            # Passing a key always keeps the SDK from hunting for profile files and tokens.
            api_key=config.api_key or "not-needed",
            base_url=self._end.base_url,
            timeout=config.timeout,
            max_retries=config.max_retries,
        )

    @property
    def label(self) -> str:
        """Kind, model, host, and whether the host is this machine."""
        return self._end.label("anthropic")

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        """Stream one message; see :class:`~noted.providers.base.ChatProvider`."""
        tools, may_call = to_anthropic_tools(request)
        system = to_anthropic_system(request.system)
        try:
            sdk_stream = await self._client.messages.create(
                model=request.model or self._end.model,
                max_tokens=request.max_tokens,
                messages=cast("list[MessageParam]", to_anthropic_messages(request)),
                system=cast("list[TextBlockParam]", system) if system else anthropic.omit,
                tools=cast("list[ToolParam]", tools) if tools else anthropic.omit,
                tool_choice={"type": "none"} if tools and not may_call else anthropic.omit,
                stream=True,
            )
        except anthropic.APIError as exc:
            raise self._error(exc) from exc
        translator = EventTranslator()
        finished = False
        try:
            async for event in sdk_stream:
                for out in translator.feed(event):
                    finished = finished or isinstance(out, Finished)
                    yield out
            if not finished:
                raise ProviderError(
                    f"the {self._end.where} ended its answer without message_stop",
                    hint="try again",
                    retryable=True,
                )
        except anthropic.APIError as exc:
            raise self._error(exc, midstream=True) from exc
        except httpx2.TransportError as exc:
            # Unlike openai's, this SDK lets transport errors met while reading the stream through.
            timed_out = isinstance(exc, httpx2.TimeoutException)
            raise connection_error(
                self._end.where, timed_out=timed_out, timeout=self._end.timeout, midstream=True
            ) from exc
        finally:
            # Runs on cancellation and early close too, so the HTTP stream never lingers.
            await sdk_stream.close()

    async def models(self) -> list[str]:
        """The endpoint's models (``GET /v1/models``), newest first as it lists them."""
        try:
            return [model.id async for model in self._client.models.list()]
        except anthropic.APIError as exc:
            raise self._error(exc) from exc

    async def aclose(self) -> None:
        """Close the SDK's HTTP client."""
        await self._client.close()

    def _error(self, exc: anthropic.APIError, *, midstream: bool = False) -> ProviderError:
        if isinstance(exc, anthropic.APIStatusError) and exc.status_code >= 400:
            detail = exc.api_message or _body_error(exc.body, "message") or exc.message
            return status_error(self._end.where, exc.status_code, detail, secret=self._end.key, hints=_HINTS)
        if isinstance(exc, anthropic.APIConnectionError):
            timed_out = isinstance(exc, anthropic.APITimeoutError)
            return connection_error(
                self._end.where, timed_out=timed_out, timeout=self._end.timeout, midstream=midstream
            )
        # An ``event: error`` inside a stream that began with 200.
        error_type = _body_error(exc.body, "type")
        return stream_error(
            self._end.where,
            _body_error(exc.body, "message") or exc.message,
            secret=self._end.key,
            retryable=error_type in _RETRYABLE_STREAM_ERRORS,
        )


def _body_error(body: object, key: str) -> str | None:
    """``body["error"][key]`` when the error body has it as a string (``message``, ``type``)."""
    error = body.get("error") if isinstance(body, dict) else None
    value = error.get(key) if isinstance(error, dict) else None
    return value if isinstance(value, str) else None

"""Chat with any OpenAI-compatible server (Ollama, LM Studio, llama.cpp, vLLM, OpenAI, OpenRouter…).

Uses the official ``openai`` SDK's streaming chat completions. The SDK retries 408/409/429/5xx and
connection failures with exponential backoff (honouring ``Retry-After``) before the stream starts;
failures left after that become :class:`ProviderError`.

Tool-call arguments arrive in pieces keyed by ``index``; the id and name usually come with the
first piece only, and some servers send a whole call in one chunk. Usage arrives in a last chunk
without choices when the server honours ``stream_options.include_usage``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, cast

import openai
from openai.types.chat import ChatCompletionChunk, ChatCompletionMessageParam, ChatCompletionToolParam

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
    ToolSpec,
    Usage,
    UserMessage,
    parse_tool_arguments,
)
from noted.providers.config import Endpoint, ProviderConfig
from noted.providers.errors import ProviderError, connection_error, status_error, stream_error

DEFAULT_BASE_URL = "https://api.openai.com/v1"

# Servers that know only ``max_tokens`` (older Ollama, llama.cpp) far outnumber the one that
# requires ``max_completion_tokens`` for its reasoning models.
_COMPLETION_TOKENS_HOSTS = frozenset({"api.openai.com"})

_STOP_REASONS = {
    "stop": StopReason.END,
    "tool_calls": StopReason.TOOL_CALLS,
    "function_call": StopReason.TOOL_CALLS,
    "length": StopReason.MAX_TOKENS,
    "content_filter": StopReason.REFUSED,
}


def to_openai_messages(request: ChatRequest) -> list[dict[str, Any]]:
    """The request's system prompt and history in chat-completions form."""
    wire: list[dict[str, Any]] = []
    if request.system:
        wire.append({"role": "system", "content": request.system})
    for message in request.messages:
        match message:
            case UserMessage(text=text):
                wire.append({"role": "user", "content": text})
            case AssistantMessage(text=text, tool_calls=calls):
                # null content is how a tool-calls-only turn is written; a bare turn needs a string.
                entry: dict[str, Any] = {"role": "assistant", "content": text or (None if calls else "")}
                if calls:
                    entry["tool_calls"] = [
                        {
                            "id": call.id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": json.dumps(dict(call.arguments))},
                        }
                        for call in calls
                    ]
                wire.append(entry)
            case ToolResultMessage(call_id=call_id, content=content):
                wire.append({"role": "tool", "tool_call_id": call_id, "content": content})
    return wire


def to_openai_tools(tools: tuple[ToolSpec, ...]) -> list[dict[str, Any]]:
    """The offered tools as chat-completions ``function`` tools."""
    return [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": dict(t.input_schema)},
        }
        for t in tools
    ]


@dataclass
class _PartialCall:
    id: str
    name: str = ""
    fragments: list[str] = field(default_factory=list)
    started: bool = False


@dataclass
class ChunkTranslator:
    """Turns chat-completion chunks into provider events, assembling tool calls by ``index``."""

    calls: dict[int, _PartialCall] = field(default_factory=dict)
    finish_reason: str | None = None
    ready_sent: bool = False

    def feed(self, chunk: ChatCompletionChunk) -> list[ProviderEvent]:
        """The events one chunk brings (often one, sometimes none)."""
        events: list[ProviderEvent] = []
        for choice in chunk.choices:
            if choice.index != 0:
                continue
            delta = choice.delta
            if delta.content:
                events.append(TextDelta(delta.content))
            for piece in delta.tool_calls or ():
                events.extend(self._tool_piece(piece))
            if choice.finish_reason:
                self.finish_reason = choice.finish_reason
                events.extend(self._ready())
        if chunk.usage is not None:
            details = chunk.usage.prompt_tokens_details
            events.append(
                Usage(
                    input_tokens=chunk.usage.prompt_tokens,
                    output_tokens=chunk.usage.completion_tokens,
                    cached_tokens=details.cached_tokens if details is not None else None,
                )
            )
        return events

    def finish(self) -> list[ProviderEvent]:
        """The events after the last chunk: calls not yet reported, then ``Finished``."""
        events = self._ready()
        reason = _STOP_REASONS.get(self.finish_reason or "", StopReason.OTHER)
        # Some servers say "stop" after tool calls; the calls are what the engine must act on.
        if self.calls and reason is not StopReason.MAX_TOKENS:
            reason = StopReason.TOOL_CALLS
        elif self.finish_reason is None:
            reason = StopReason.END
        events.append(Finished(reason, raw=self.finish_reason))
        return events

    def _tool_piece(self, piece: Any) -> list[ProviderEvent]:
        index: int | None = getattr(piece, "index", None)
        if index is None:
            # A server that omits the index: a piece with an id opens a new call, others continue one.
            index = len(self.calls) if piece.id or not self.calls else max(self.calls)
        partial = self.calls.get(index)
        if partial is None:
            partial = _PartialCall(id=piece.id or f"call_{index}")
            self.calls[index] = partial
        function = piece.function
        if function is not None and function.name and not partial.name:
            partial.name = function.name
        if function is not None and function.arguments:
            partial.fragments.append(function.arguments)
        events: list[ProviderEvent] = []
        if not partial.started and partial.name:
            # Fragments that came before the name are flushed with the start.
            partial.started = True
            events.append(ToolCallStarted(partial.id, partial.name))
            events.extend(ToolCallArgsDelta(partial.id, f) for f in partial.fragments)
        elif partial.started and function is not None and function.arguments:
            events.append(ToolCallArgsDelta(partial.id, function.arguments))
        return events

    def _ready(self) -> list[ProviderEvent]:
        if self.ready_sent:
            return []
        self.ready_sent = True
        events: list[ProviderEvent] = []
        for index in sorted(self.calls):
            partial = self.calls[index]
            if not partial.started:
                partial.started = True
                events.append(ToolCallStarted(partial.id, partial.name))
            raw = "".join(partial.fragments)
            arguments, error = parse_tool_arguments(raw)
            if not partial.name:
                error = "the server sent a tool call without a name"
            events.append(ToolCallReady(partial.id, partial.name, arguments, error, raw))
        return events


class OpenAIChatProvider:
    """A :class:`~noted.providers.base.ChatProvider` for OpenAI-compatible chat completions."""

    capabilities = ProviderCapabilities(streaming=True, tools=True, usage=True, prompt_caching=False)

    def __init__(self, config: ProviderConfig) -> None:
        self._end = Endpoint.of(config, default_url=DEFAULT_BASE_URL, what="OpenAI-compatible server")
        self._client = openai.AsyncOpenAI(
            # Local servers (Ollama, llama.cpp) ignore the key, but the SDK insists on one.
            api_key=config.api_key or "not-needed",
            base_url=self._end.base_url,
            timeout=config.timeout,
            max_retries=config.max_retries,
        )

    @property
    def label(self) -> str:
        """Kind, model, host, and whether the host is this machine."""
        return self._end.label("openai-compatible")

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        """Stream one chat completion; see :class:`~noted.providers.base.ChatProvider`."""
        tokens_param = (
            "max_completion_tokens"
            if self._end.host.split(":")[0] in _COMPLETION_TOKENS_HOSTS
            else "max_tokens"
        )
        extra: dict[str, Any] = {tokens_param: request.max_tokens}
        if request.temperature is not None:
            extra["temperature"] = request.temperature
        tools = to_openai_tools(request.tools)
        try:
            sdk_stream = await self._client.chat.completions.create(
                model=request.model or self._end.model,
                messages=cast("list[ChatCompletionMessageParam]", to_openai_messages(request)),
                tools=cast("list[ChatCompletionToolParam]", tools) if tools else openai.omit,
                stream=True,
                stream_options={"include_usage": True},
                **extra,
            )
        except openai.APIError as exc:
            raise self._error(exc) from exc
        translator = ChunkTranslator()
        try:
            async for chunk in sdk_stream:
                for event in translator.feed(chunk):
                    yield event
            for event in translator.finish():
                yield event
        except openai.APIError as exc:
            raise self._error(exc, midstream=True) from exc
        finally:
            # Runs on cancellation and early close too, so the HTTP stream never lingers.
            await sdk_stream.close()

    async def models(self) -> list[str]:
        """The server's models (``GET {base_url}/models``; Ollama, LM Studio and vLLM list them too)."""
        try:
            return [model.id async for model in self._client.models.list()]
        except openai.APIError as exc:
            raise self._error(exc) from exc

    async def aclose(self) -> None:
        """Close the SDK's HTTP client."""
        await self._client.close()

    def _error(self, exc: openai.APIError, *, midstream: bool = False) -> ProviderError:
        if isinstance(exc, openai.APIStatusError):
            return status_error(
                self._end.where, exc.status_code, _detail(exc.body, exc.message), secret=self._end.key
            )
        if isinstance(exc, openai.APIConnectionError):
            timed_out = isinstance(exc, openai.APITimeoutError)
            return connection_error(
                self._end.where, timed_out=timed_out, timeout=self._end.timeout, midstream=midstream
            )
        # An error object sent inside an otherwise successful stream.
        return stream_error(
            self._end.where, _detail(exc.body, exc.message), secret=self._end.key, retryable=False
        )


def _detail(body: object, fallback: str) -> str:
    """The server's own words from an error body (``{"error": {"message": …}}`` or similar)."""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
    if isinstance(body, str) and body:
        return body
    return fallback

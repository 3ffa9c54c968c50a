"""The provider-neutral vocabulary of chat: requests, messages, tool specs, stream events, the protocol.

A chat engine speaks only these types; each provider translates them to and from its wire format
(OpenAI chat completions, Anthropic messages, a scripted fake). Everything here is a frozen
dataclass so a request can be recorded, compared in tests and saved without copying.

A turn streams as::

    TextDelta* (ToolCallStarted ToolCallArgsDelta* ToolCallReady)* Usage? Finished

Text and tool calls may interleave. ``ToolCallReady`` always follows the ``ToolCallStarted`` of the
same id, and ``Finished`` is always last. A failure raises :class:`~noted.providers.errors.ProviderError`
instead of yielding ``Finished``.
"""

from __future__ import annotations

import enum
import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeAlias, runtime_checkable

# Request ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class UserMessage:
    """What the person wrote."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call the model made, as it is sent back in the history."""

    id: str
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class AssistantMessage:
    """A past model turn: its text (may be empty) and the tool calls it made (may be none)."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()


@dataclass(frozen=True, slots=True)
class ToolResultMessage:
    """The result of one tool call, answering the :class:`ToolCall` with the same ``call_id``.

    OpenAI's wire format has no error flag, so an error's ``content`` should say it is one.
    """

    call_id: str
    content: str
    is_error: bool = False


Message: TypeAlias = UserMessage | AssistantMessage | ToolResultMessage


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool offered to the model: its name, what it does, and a JSON Schema of its input object."""

    name: str
    description: str
    input_schema: Mapping[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """One request to a model.

    Attributes:
        system: The system prompt. Keep it stable across a conversation: providers that support
            prompt caching mark it as cacheable.
        messages: The conversation so far, oldest first.
        tools: The tools offered for this turn; empty offers none.
        model: The model name; ``None`` uses the provider's configured model.
        max_tokens: The most tokens the answer may take.
        temperature: Sampling temperature; ``None`` leaves the server's default (some models
            accept no other value).
    """

    system: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    model: str | None = None
    max_tokens: int = 4096
    temperature: float | None = None


# Stream events ----------------------------------------------------------------------------------


class StopReason(enum.StrEnum):
    """Why a turn ended, the same for every provider."""

    END = "end"
    """The model finished its answer."""
    TOOL_CALLS = "tool_calls"
    """The model wants its tool calls run and the results sent back."""
    MAX_TOKENS = "max_tokens"
    """The answer hit ``max_tokens`` (or the context window) and is cut short."""
    REFUSED = "refused"
    """The server's content filter or the model refused."""
    OTHER = "other"
    """Anything else; ``Finished.raw`` has the server's word for it."""


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of the answer's text."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCallStarted:
    """The model began a tool call; its arguments follow in pieces."""

    id: str
    name: str


@dataclass(frozen=True, slots=True)
class ToolCallArgsDelta:
    """A piece of a tool call's JSON arguments, as the server sent it."""

    id: str
    fragment: str


@dataclass(frozen=True, slots=True)
class ToolCallReady:
    """A complete tool call.

    Attributes:
        id: The call's id, to be echoed by the :class:`ToolResultMessage` that answers it.
        name: The tool's name.
        arguments: The parsed arguments; empty when they could not be parsed.
        arguments_error: Why the arguments could not be parsed (not JSON, not an object), in words
            the engine can send back to the model; ``None`` when they parsed.
        raw_arguments: The arguments exactly as the server sent them.
    """

    id: str
    name: str
    arguments: Mapping[str, Any]
    arguments_error: str | None = None
    raw_arguments: str = ""


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts of one request.

    Attributes:
        input_tokens: The whole prompt, cached part included.
        output_tokens: The answer.
        cached_tokens: How much of the prompt was read from the server's cache; ``None`` when the
            server does not say.
    """

    input_tokens: int
    output_tokens: int
    cached_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class Finished:
    """The turn is over; always the last event of a stream that did not fail."""

    stop_reason: StopReason
    raw: str | None = None
    """The server's own stop reason (``"stop"``, ``"end_turn"``…), when it sent one."""


ProviderEvent: TypeAlias = TextDelta | ToolCallStarted | ToolCallArgsDelta | ToolCallReady | Usage | Finished


# The protocol -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ProviderCapabilities:
    """What a provider can do, so the engine and the UI need not guess.

    Attributes:
        streaming: Text arrives in pieces as it is generated (every provider here streams).
        tools: The provider can offer tools and stream tool calls back.
        usage: The provider reports token usage (OpenAI-compatible servers may still omit it).
        prompt_caching: The provider marks the stable system prompt as cacheable.
    """

    streaming: bool = True
    tools: bool = True
    usage: bool = True
    prompt_caching: bool = False


@runtime_checkable
class ChatProvider(Protocol):
    """A chat model behind some endpoint.

    ``stream`` is an async generator: iterate it to the end, or wrap it in
    ``contextlib.aclosing`` when you may stop early, so the HTTP stream is closed at once. When the
    consuming task is cancelled the stream is closed and ``CancelledError`` propagates. Retries of
    429 and 5xx answers happen before the first event; a stream never repeats an event.
    """

    capabilities: ProviderCapabilities

    @property
    def label(self) -> str:
        """A short description for people: kind, model, host, and whether it is local."""
        ...

    def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        """Send ``request`` and yield the answer's events.

        Raises:
            ProviderError: The server could not be reached, refused, or failed.
        """
        ...

    async def models(self) -> list[str]:
        """The names of the models the server offers (``GET /v1/models``), as it lists them.

        Raises:
            ProviderError: The server could not be reached, refused, or cannot list its models.
        """
        ...

    async def aclose(self) -> None:
        """Release the HTTP client; the provider cannot be used afterwards."""
        ...


# Helpers shared by the providers ---------------------------------------------------------------


def parse_tool_arguments(raw: str) -> tuple[dict[str, Any], str | None]:
    """Parse a tool call's joined argument fragments.

    An empty string means no arguments. Returns the arguments and ``None``, or ``{}`` and a message
    the model can act on when ``raw`` is not a JSON object.
    """
    if not raw.strip():
        return {}, None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        shown = raw if len(raw) <= 200 else raw[:200] + "…"
        return {}, f"the arguments are not valid JSON ({exc.msg} at position {exc.pos}): {shown}"
    if not isinstance(value, dict):
        return {}, f"the arguments must be a JSON object, not {type(value).__name__}"
    return value, None

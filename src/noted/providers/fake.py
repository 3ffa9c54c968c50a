"""A scripted chat provider for tests and the offline demo; it never touches a network.

A script is a list of turns, one per request. A turn is a list of actions played in order, or a
function of the request returning one (for answers that depend on what was sent)::

    FakeProvider([
        [Reply("Let me look."), CallTool("search_notes", {"query": "tea"})],
        [Fail("overloaded", retryable=True, status=529)],
        [Reply("Found it.")],
    ])

Every request is recorded in ``requests`` so tests can assert on what was offered and sent.
Without a script the provider plays :func:`noted.providers.fake_demo.demo_turn` forever.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from noted.providers.base import (
    ChatRequest,
    Finished,
    ProviderCapabilities,
    ProviderEvent,
    StopReason,
    TextDelta,
    ToolCallArgsDelta,
    ToolCallReady,
    ToolCallStarted,
    Usage,
    parse_tool_arguments,
)
from noted.providers.errors import ProviderError


@dataclass(frozen=True, slots=True)
class Reply:
    """Stream ``text`` in pieces of ``chunk_size`` characters."""

    text: str
    chunk_size: int = 8


@dataclass(frozen=True, slots=True)
class CallTool:
    """Call a tool. ``arguments`` given as a string are sent verbatim, so malformed JSON can be tested."""

    name: str
    arguments: Mapping[str, Any] | str = field(default_factory=dict)
    id: str | None = None
    """The call's id; ``None`` numbers it ``fake_call_<n>``."""


@dataclass(frozen=True, slots=True)
class Fail:
    """Raise a :class:`ProviderError` at this point of the turn."""

    message: str = "the fake provider failed on cue"
    retryable: bool = False
    status: int | None = None


@dataclass(frozen=True, slots=True)
class Hang:
    """Wait until the consuming task is cancelled (counted in ``FakeProvider.cancelled``)."""


FakeAction: TypeAlias = Reply | CallTool | Fail | Hang
Turn: TypeAlias = Sequence[FakeAction] | Callable[[ChatRequest], Sequence[FakeAction]]


class FakeProvider:
    """A :class:`~noted.providers.base.ChatProvider` that plays a script.

    Attributes:
        requests: Every request received, in order (failed and cancelled ones included).
        cancelled: How many streams were cancelled while running.
        closed: Whether ``aclose`` was called.
    """

    capabilities = ProviderCapabilities(streaming=True, tools=True, usage=True, prompt_caching=False)

    def __init__(
        self, script: Sequence[Turn] | None = None, *, name: str = "fake", usage: bool = True
    ) -> None:
        self._script = list(script) if script is not None else None
        self._usage = usage
        """False: report no usage, as some OpenAI-compatible servers do."""
        self._name = name
        self._calls = 0
        self.requests: list[ChatRequest] = []
        self.cancelled = 0
        self.closed = False

    @property
    def label(self) -> str:
        """Says it is scripted, so nobody mistakes the demo for a model."""
        kind = "scripted" if self._script is not None else "offline demo"
        return f"{self._name} ({kind}, local)"

    @property
    def turns_left(self) -> int | None:
        """Turns not played yet; ``None`` for the endless demo."""
        return None if self._script is None else len(self._script)

    async def models(self) -> list[str]:
        """Its own name: the fake is the only model it plays."""
        return [self._name]

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        """Play the next turn of the script for ``request``; see ``ChatProvider``."""
        if self.closed:
            raise ProviderError("the fake provider is closed")
        self.requests.append(request)
        actions = self._next_actions(request)
        produced = 0
        called = False
        try:
            for action in actions:
                async for event in self._play(action):
                    if isinstance(event, TextDelta):
                        produced += len(event.text)
                    elif isinstance(event, ToolCallArgsDelta):
                        produced += len(event.fragment)
                    called = called or isinstance(event, ToolCallReady)
                    yield event
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        if self._usage:
            yield Usage(input_tokens=_estimate_tokens(request), output_tokens=max(1, produced // 4))
        yield Finished(StopReason.TOOL_CALLS if called else StopReason.END, raw="fake")

    async def aclose(self) -> None:
        """Mark the provider closed; later streams fail."""
        self.closed = True

    def _next_actions(self, request: ChatRequest) -> Sequence[FakeAction]:
        if self._script is None:
            from noted.providers.fake_demo import demo_turn

            return demo_turn(request)
        if not self._script:
            raise ProviderError(
                f"the fake provider's script has no turn left for request {len(self.requests)}",
                hint="add a turn to the script",
            )
        turn = self._script.pop(0)
        return turn(request) if callable(turn) else turn

    async def _play(self, action: FakeAction) -> AsyncIterator[ProviderEvent]:
        match action:
            case Reply(text=text, chunk_size=size):
                for start in range(0, len(text), max(1, size)):
                    # Yield to the loop between pieces, as a network stream would.
                    await asyncio.sleep(0)
                    yield TextDelta(text[start : start + max(1, size)])
            case CallTool(name=name, arguments=arguments, id=call_id):
                self._calls += 1
                call_id = call_id or f"fake_call_{self._calls}"
                raw = arguments if isinstance(arguments, str) else json.dumps(dict(arguments))
                yield ToolCallStarted(call_id, name)
                for start in range(0, len(raw), 7):
                    await asyncio.sleep(0)
                    yield ToolCallArgsDelta(call_id, raw[start : start + 7])
                parsed, error = parse_tool_arguments(raw)
                yield ToolCallReady(call_id, name, parsed, error, raw)
            case Fail(message=message, retryable=retryable, status=status):
                raise ProviderError(message, retryable=retryable, status=status)
            case Hang():
                await asyncio.Event().wait()


def _estimate_tokens(request: ChatRequest) -> int:
    """About four characters a token, enough for a fake's usage figures."""
    size = len(request.system) + sum(len(repr(m)) for m in request.messages)
    size += sum(len(t.description) + len(json.dumps(dict(t.input_schema))) for t in request.tools)
    return max(1, size // 4)

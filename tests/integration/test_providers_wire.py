"""The real openai and anthropic SDKs against a loopback server replaying each wire format.

Nothing is mocked between the provider and the socket: the SDKs' retry, SSE parsing and closing
code all run. Base URLs are always 127.0.0.1, so no test can reach the internet.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
from tests.support.polling import DEFAULT_TIMEOUT, scaled, wait_for_async
from tests.support.wire_server import (
    ErrorReply,
    SilentReply,
    StreamReply,
    WireServer,
    anthropic_events,
    anthropic_stream,
    openai_chunk,
    openai_stream,
    openai_tool_piece,
)

from noted.providers import (
    AssistantMessage,
    ChatProvider,
    ChatRequest,
    Finished,
    ProviderConfig,
    ProviderError,
    ProviderEvent,
    StopReason,
    TextDelta,
    ToolCall,
    ToolCallArgsDelta,
    ToolCallReady,
    ToolCallStarted,
    ToolResultMessage,
    ToolSpec,
    Usage,
    UserMessage,
    make_provider,
)

LIVENESS = scaled(60)  # seconds: the provider timeout and every wait here only turn a hang into a failure
SECRET = "sk-test-secret-123456"
SEARCH = ToolSpec(
    "search_notes",
    "Search the notes",
    {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
)
READ = ToolSpec("read_note", "Read a note", {"type": "object", "properties": {"id": {"type": "string"}}})
QUESTION = ChatRequest(system="You are noted's assistant.", messages=(UserMessage("What about tea?"),))

Build = Callable[..., ChatProvider]


@pytest.fixture
def wire() -> Iterator[WireServer]:
    with WireServer() as server:
        yield server


@pytest.fixture
async def build(wire: WireServer) -> AsyncIterator[Build]:
    """Builds providers through ``make_provider`` pointed at the wire server, and closes them."""
    made: list[ChatProvider] = []

    def _build(kind: str, **overrides: Any) -> ChatProvider:
        base = wire.base_url + ("/v1" if kind == "openai" else "")
        values: dict[str, Any] = dict(
            kind=kind, model="test-model", base_url=base, api_key=SECRET, enabled=True, timeout=LIVENESS
        )
        values.update(overrides)
        provider = make_provider(ProviderConfig(**values))
        made.append(provider)
        return provider

    yield _build
    for provider in made:
        await provider.aclose()


async def collect(provider: ChatProvider, request: ChatRequest) -> list[ProviderEvent]:
    return [event async for event in provider.stream(request)]


async def until(predicate: Callable[[], bool], timeout: float = DEFAULT_TIMEOUT) -> None:
    """Poll ``predicate`` until it holds; the bound only turns a hang into a failure."""
    await wait_for_async(predicate, timeout=timeout, interval=0.01)


def text_of(events: list[ProviderEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def text_reply(kind: str, pieces: list[str], *, hang: bool = False) -> StreamReply:
    """A plain text answer in ``kind``'s wire format."""
    if kind == "openai":
        return openai_stream([openai_chunk(content=p) for p in pieces], hang=hang)
    events = anthropic_events([{"text": pieces}])
    # A hanging stream stops after the first text delta: no block stop, no message_stop.
    return anthropic_stream(events[:3] if hang else events, hang=hang)


KINDS = ["openai", "anthropic"]


# Building real providers (the SDKs load here, so these live with the wire tests)


async def test_allow_remote_lets_a_remote_provider_be_built() -> None:
    # Building a client opens no connection, so this stays offline.
    config = ProviderConfig(
        kind="anthropic",
        model="m",
        base_url="https://api.anthropic.com",
        api_key="k",
        enabled=True,
        allow_remote=True,
    )
    provider = make_provider(config)
    try:
        assert provider.label == "anthropic m at api.anthropic.com (remote)"
        assert provider.capabilities.prompt_caching
    finally:
        await provider.aclose()


async def test_a_local_endpoint_needs_neither_allow_remote_nor_a_key() -> None:
    provider = make_provider(
        ProviderConfig(kind="openai", model="llama3", base_url="http://localhost:11434/v1", enabled=True)
    )
    try:
        assert provider.label == "openai-compatible llama3 at localhost:11434 (local)"
    finally:
        await provider.aclose()


# OpenAI wire format -----------------------------------------------------------------------------


async def test_openai_streams_text_tool_fragments_and_usage(wire: WireServer, build: Build) -> None:
    wire.push(
        openai_stream(
            [
                openai_chunk(content="Let me "),
                openai_chunk(content="look."),
                openai_chunk(
                    tool_calls=[openai_tool_piece(0, id="call_1", name="search_notes", arguments="")]
                ),
                openai_chunk(tool_calls=[openai_tool_piece(0, arguments='{"que')]),
                openai_chunk(tool_calls=[openai_tool_piece(0, arguments='ry": "tea"}')]),
                openai_chunk(finish_reason="tool_calls"),
                openai_chunk(
                    no_choices=True,
                    usage={
                        "prompt_tokens": 120,
                        "completion_tokens": 9,
                        "total_tokens": 129,
                        "prompt_tokens_details": {"cached_tokens": 64},
                    },
                ),
            ]
        )
    )
    provider = build("openai")
    events = await collect(provider, ChatRequest(QUESTION.system, QUESTION.messages, tools=(SEARCH, READ)))

    assert text_of(events) == "Let me look."
    assert events[2:] == [
        ToolCallStarted("call_1", "search_notes"),
        ToolCallArgsDelta("call_1", '{"que'),
        ToolCallArgsDelta("call_1", 'ry": "tea"}'),
        ToolCallReady("call_1", "search_notes", {"query": "tea"}, None, '{"query": "tea"}'),
        Usage(input_tokens=120, output_tokens=9, cached_tokens=64),
        Finished(StopReason.TOOL_CALLS, raw="tool_calls"),
    ]
    sent = wire.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert SECRET in sent.headers["authorization"]
    assert sent.body["stream"] is True and sent.body["stream_options"] == {"include_usage": True}
    assert sent.body["model"] == "test-model"
    assert [t["function"]["name"] for t in sent.body["tools"]] == ["search_notes", "read_note"]
    assert sent.body["tools"][0]["function"]["parameters"]["required"] == ["query"]
    assert sent.body["messages"] == [
        {"role": "system", "content": "You are noted's assistant."},
        {"role": "user", "content": "What about tea?"},
    ]


async def test_openai_sends_tool_results_back_in_its_wire_shape(wire: WireServer, build: Build) -> None:
    wire.push(openai_stream([openai_chunk(content="Tea is green."), openai_chunk(finish_reason="stop")]))
    history = (
        UserMessage("What about tea?"),
        AssistantMessage("Searching.", (ToolCall("call_1", "search_notes", {"query": "tea"}),)),
        ToolResultMessage("call_1", "1 hit: Tea (0123)"),
    )
    # No tools offered (the engine's pause after failed rounds): none are sent, the history still is.
    events = await collect(build("openai"), ChatRequest("sys", history))

    assert text_of(events) == "Tea is green."
    assert "tools" not in wire.requests[0].body
    assert events[-1] == Finished(StopReason.END, raw="stop")
    assert not any(isinstance(e, Usage) for e in events)  # this server sent none, so none is made up
    messages = wire.requests[0].body["messages"]
    assert messages[2] == {
        "role": "assistant",
        "content": "Searching.",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "search_notes", "arguments": '{"query": "tea"}'},
            }
        ],
    }
    assert messages[3] == {"role": "tool", "tool_call_id": "call_1", "content": "1 hit: Tea (0123)"}


async def test_openai_parallel_calls_are_assembled_by_index(wire: WireServer, build: Build) -> None:
    # Fragments of two calls interleave; the second call's JSON is broken on purpose.
    wire.push(
        openai_stream(
            [
                openai_chunk(
                    tool_calls=[openai_tool_piece(0, id="a", name="search_notes", arguments='{"query"')]
                ),
                openai_chunk(
                    tool_calls=[openai_tool_piece(1, id="b", name="read_note", arguments='{"id": ')]
                ),
                openai_chunk(tool_calls=[openai_tool_piece(0, arguments=': "tea"}')]),
                openai_chunk(tool_calls=[openai_tool_piece(1, arguments='"0123"')]),
                # Some servers say "stop" even after tool calls.
                openai_chunk(finish_reason="stop"),
            ]
        )
    )
    events = await collect(build("openai"), ChatRequest("sys", QUESTION.messages, tools=(SEARCH, READ)))

    ready = [e for e in events if isinstance(e, ToolCallReady)]
    assert [(r.id, r.name, dict(r.arguments), r.arguments_error is None) for r in ready] == [
        ("a", "search_notes", {"query": "tea"}, True),
        ("b", "read_note", {}, False),
    ]
    assert ready[1].raw_arguments == '{"id": "0123"'
    assert "not valid JSON" in (ready[1].arguments_error or "")
    assert events[-1].stop_reason is StopReason.TOOL_CALLS  # type: ignore[union-attr]


async def test_openai_error_object_mid_stream_is_reported(wire: WireServer, build: Build) -> None:
    wire.push(openai_stream([openai_chunk(content="Half"), {"error": {"message": "model crashed"}}]))
    with pytest.raises(ProviderError) as caught:
        await collect(build("openai"), QUESTION)
    assert "failed mid-answer: model crashed" in str(caught.value)
    assert not caught.value.retryable and caught.value.status is None


# Anthropic wire format --------------------------------------------------------------------------


async def test_anthropic_streams_text_tool_use_and_usage(wire: WireServer, build: Build) -> None:
    wire.push(
        anthropic_stream(
            anthropic_events(
                [
                    {"text": ["Let me ", "look."]},
                    {"tool_use": ("toolu_1", "search_notes"), "json": ['{"query":', ' "tea"}']},
                ],
                stop_reason="tool_use",
                input_tokens=20,
                output_tokens=15,
                cache_read=100,
            )
        )
    )
    events = await collect(
        build("anthropic"), ChatRequest("Stable prompt.", QUESTION.messages, tools=(SEARCH,))
    )

    assert text_of(events) == "Let me look."
    assert [e for e in events if not isinstance(e, TextDelta)] == [
        ToolCallStarted("toolu_1", "search_notes"),
        ToolCallArgsDelta("toolu_1", '{"query":'),
        ToolCallArgsDelta("toolu_1", ' "tea"}'),
        ToolCallReady("toolu_1", "search_notes", {"query": "tea"}, None, '{"query": "tea"}'),
        # The prompt's size includes the cached part, as OpenAI's prompt_tokens does.
        Usage(input_tokens=120, output_tokens=15, cached_tokens=100),
        Finished(StopReason.TOOL_CALLS, raw="tool_use"),
    ]
    sent = wire.requests[0]
    assert sent.path == "/v1/messages"
    assert SECRET in sent.headers.get("x-api-key", "") + sent.headers.get("authorization", "")
    assert sent.body["system"] == [
        {"type": "text", "text": "Stable prompt.", "cache_control": {"type": "ephemeral"}}
    ]
    assert sent.body["tools"] == [
        {"name": "search_notes", "description": "Search the notes", "input_schema": dict(SEARCH.input_schema)}
    ]
    assert sent.body["stream"] is True and sent.body["max_tokens"] == 4096


async def test_anthropic_sends_tool_results_in_one_user_message(wire: WireServer, build: Build) -> None:
    wire.push(anthropic_stream(anthropic_events([{"text": ["Done."]}])))
    history = (
        UserMessage("Compare tea and coffee."),
        AssistantMessage(
            "",
            (
                ToolCall("toolu_1", "read_note", {"id": "tea"}),
                ToolCall("toolu_2", "read_note", {"id": "coffee"}),
            ),
        ),
        ToolResultMessage("toolu_1", "Tea is green."),
        ToolResultMessage("toolu_2", "no note named coffee", is_error=True),
    )
    events = await collect(build("anthropic"), ChatRequest("sys", history, tools=(READ,)))

    assert text_of(events) == "Done."
    assert wire.requests[0].body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Compare tea and coffee."}]},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "read_note", "input": {"id": "tea"}},
                {"type": "tool_use", "id": "toolu_2", "name": "read_note", "input": {"id": "coffee"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "Tea is green."},
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_2",
                    "content": "no note named coffee",
                    "is_error": True,
                },
            ],
        },
    ]


async def test_anthropic_error_event_mid_stream_is_a_retryable_provider_error(
    wire: WireServer, build: Build
) -> None:
    events = anthropic_events([{"text": ["Half an answer"]}])[:3]
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    wire.push(anthropic_stream([*events, error]))
    seen: list[ProviderEvent] = []
    with pytest.raises(ProviderError) as caught:
        async for event in build("anthropic").stream(QUESTION):
            seen.append(event)
    assert text_of(seen) == "Half an answer"
    assert caught.value.retryable and "Overloaded" in str(caught.value)
    assert len(wire.requests) == 1  # half an answer was shown: resending is the engine's call


async def test_anthropic_stream_cut_short_is_an_error_not_an_answer(wire: WireServer, build: Build) -> None:
    wire.push(anthropic_stream(anthropic_events([{"text": ["Half"]}])[:3]))  # no message_stop
    with pytest.raises(ProviderError, match="without message_stop") as caught:
        await collect(build("anthropic"), QUESTION)
    assert caught.value.retryable


async def test_anthropic_offering_no_tools_after_tool_use_forbids_calls(
    wire: WireServer, build: Build
) -> None:
    # The API refuses tool_use blocks in a history without tool definitions.
    wire.push(anthropic_stream(anthropic_events([{"text": ["Answering without tools."]}])))
    history = (
        UserMessage("What about tea?"),
        AssistantMessage("", (ToolCall("toolu_1", "search_notes", {"query": "tea"}),)),
        ToolResultMessage("toolu_1", "search failed", is_error=True),
    )
    await collect(build("anthropic"), ChatRequest("sys", history))

    body = wire.requests[0].body
    assert [t["name"] for t in body["tools"]] == ["search_notes"]
    assert body["tool_choice"] == {"type": "none"}


# Both wire formats: retries, errors, cancellation -----------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
async def test_429_then_success(kind: str, wire: WireServer, build: Build) -> None:
    # retry-after-ms keeps the SDK's backoff short; the retry itself is the SDK's own code.
    wire.push(
        ErrorReply(
            429, {"error": {"type": "rate_limit_error", "message": "slow down"}}, {"retry-after-ms": "20"}
        ),
        text_reply(kind, ["Hello", " again"]),
    )
    events = await collect(build(kind, max_retries=2), QUESTION)

    assert text_of(events) == "Hello again"
    assert len(wire.requests) == 2
    assert wire.requests[0].body == wire.requests[1].body  # the same request, resent


@pytest.mark.parametrize("kind", KINDS)
async def test_persistent_500_is_retried_then_reported(kind: str, wire: WireServer, build: Build) -> None:
    failure = ErrorReply(500, {"error": {"type": "api_error", "message": "boom"}}, {"retry-after-ms": "10"})
    wire.push(failure, failure)
    with pytest.raises(ProviderError) as caught:
        await collect(build(kind, max_retries=1), QUESTION)

    assert len(wire.requests) == 2  # one try and one retry
    assert caught.value.status == 500 and caught.value.retryable
    assert "127.0.0.1" in str(caught.value) and "boom" in str(caught.value)


@pytest.mark.parametrize("kind", KINDS)
async def test_401_is_final_and_never_shows_the_key(kind: str, wire: WireServer, build: Build) -> None:
    # A server that echoes the key it was given: the error must still not show it.
    wire.push(ErrorReply(401, {"error": {"type": "authentication_error", "message": f"bad key {SECRET}"}}))
    with pytest.raises(ProviderError) as caught:
        await collect(build(kind, max_retries=2), QUESTION)

    assert len(wire.requests) == 1  # not retried
    assert caught.value.status == 401 and not caught.value.retryable
    assert SECRET not in str(caught.value) and "bad key ***" in str(caught.value)
    assert "API key" in (caught.value.hint or "")


@pytest.mark.parametrize("kind", KINDS)
async def test_cancelling_a_hanging_stream_closes_the_connection(
    kind: str, wire: WireServer, build: Build
) -> None:
    wire.push(text_reply(kind, ["first words"], hang=True))
    provider = build(kind)
    got_text = asyncio.Event()
    seen: list[ProviderEvent] = []

    async def consume() -> None:
        async for event in provider.stream(QUESTION):
            seen.append(event)
            got_text.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(got_text.wait(), LIVENESS)
    task.cancel()
    # A bound so a broken cancellation fails the test instead of hanging it; not a benchmark.
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, LIVENESS)

    assert text_of(seen) == "first words"
    # The server sees its client leave only if the provider really closed the HTTP stream.
    assert await asyncio.to_thread(wire.disconnected.wait, LIVENESS)


@pytest.mark.parametrize("kind", KINDS)
async def test_cancelling_before_the_server_answers_closes_the_connection(
    kind: str, wire: WireServer, build: Build
) -> None:
    wire.push(SilentReply())
    task = asyncio.create_task(collect(build(kind), QUESTION))
    await until(lambda: bool(wire.requests))  # the request is really in flight
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, LIVENESS)
    assert await asyncio.to_thread(wire.disconnected.wait, LIVENESS)


@pytest.mark.parametrize("kind", KINDS)
async def test_stopping_early_with_aclosing_closes_the_connection(
    kind: str, wire: WireServer, build: Build
) -> None:
    wire.push(text_reply(kind, ["first words"], hang=True))
    stream = build(kind).stream(QUESTION)
    async with contextlib.aclosing(stream):  # type: ignore[type-var]
        first = await anext(stream)
    assert first == TextDelta("first words")
    assert await asyncio.to_thread(wire.disconnected.wait, LIVENESS)


@pytest.mark.parametrize("kind", KINDS)
async def test_a_silent_server_times_out_as_a_retryable_error(
    kind: str, wire: WireServer, build: Build
) -> None:
    wire.push(text_reply(kind, ["first words"], hang=True))
    with pytest.raises(ProviderError) as caught:
        await collect(build(kind, timeout=0.5), QUESTION)
    assert caught.value.retryable and caught.value.status is None
    assert "did not answer within 0.5 s" in str(caught.value)


@pytest.mark.parametrize("kind", KINDS)
async def test_no_server_listening_is_a_clear_connection_error(kind: str, build: Build) -> None:
    with socket.socket() as sock:  # a port that was free a moment ago and has no listener
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    base = f"http://127.0.0.1:{port}" + ("/v1" if kind == "openai" else "")
    with pytest.raises(ProviderError) as caught:
        await collect(build(kind, base_url=base, max_retries=0), QUESTION)
    assert caught.value.retryable
    assert "cannot reach the" in str(caught.value) and f"127.0.0.1:{port}" in str(caught.value)

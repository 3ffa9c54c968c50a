"""Providers without a network: the local/remote rule, the gates, keys, the fake and its demo."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.support.polling import scaled

from noted.chat.turns import DECLINED
from noted.errors import ConfigError, UnavailableError
from noted.providers import (
    PROVIDER_KINDS,
    AssistantMessage,
    CallTool,
    ChatRequest,
    Fail,
    FakeProvider,
    Finished,
    Hang,
    ProviderConfig,
    ProviderError,
    ProviderEvent,
    Reply,
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
    is_loopback_url,
    load_api_key,
    make_provider,
)
from noted.providers.base import ChatProvider, parse_tool_arguments
from noted.tools.editor_tools import PENDING

SEARCH = ToolSpec(
    "search_notes",
    "Search",
    {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
)
READ = ToolSpec("read_note", "Read", {"type": "object", "properties": {"note_id": {"type": "string"}}})
ASK = ChatRequest(system="sys", messages=(UserMessage("What do my notes say about green tea?"),))


async def collect(provider: ChatProvider, request: ChatRequest) -> list[ProviderEvent]:
    return [event async for event in provider.stream(request)]


# Local or remote --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:11434/v1",
        "http://127.8.9.10/v1",
        "http://localhost:1234/v1",
        "https://LOCALHOST./v1",
        "http://[::1]:8080/v1",
        "http://[::ffff:127.0.0.1]:8080",
        "http://user:pw@127.0.0.1:8080",
    ],
)
def test_loopback_urls_are_local(url: str) -> None:
    assert is_loopback_url(url)


@pytest.mark.parametrize(
    "url",
    [
        "http://192.168.1.20:11434/v1",  # a LAN box is still another machine
        "http://10.0.0.5/v1",
        "http://0.0.0.0:11434",
        "https://api.openai.com/v1",
        "http://localhost.example.com/v1",
        "http://127.0.0.1.nip.io/v1",  # resolves to loopback, but by DNS that can change
        "http://[fe80::1]/v1",
        "127.0.0.1:11434",  # no scheme: the host cannot be told
        "not a url",
        "",
    ],
)
def test_other_urls_are_remote(url: str) -> None:
    assert not is_loopback_url(url)


# The gates --------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(PROVIDER_KINDS))
def test_every_kind_is_refused_while_the_assistant_is_off(kind: str) -> None:
    with pytest.raises(UnavailableError) as caught:
        make_provider(ProviderConfig(kind=kind, base_url="http://127.0.0.1:9/v1", enabled=False))
    assert str(caught.value) == (
        "the assistant is off: set ai.enabled = true "
        "(Settings → Assistant, or `noted config set ai.enabled true`)"
    )


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_a_lan_endpoint_needs_allow_remote(kind: str) -> None:
    url = "http://192.168.1.20:11434" + ("/v1" if kind == "openai" else "")  # Anthropic's SDK adds /v1
    config = ProviderConfig(kind=kind, base_url=url, api_key="k", enabled=True)
    with pytest.raises(UnavailableError) as caught:
        make_provider(config)
    message = str(caught.value)
    assert "ai.allowRemote" in message and "192.168.1.20:11434" in message


def test_the_default_public_endpoint_is_remote() -> None:
    with pytest.raises(UnavailableError, match="api.openai.com"):
        make_provider(ProviderConfig(kind="openai", model="gpt", api_key="k", enabled=True))


def test_a_remote_endpoint_without_a_key_names_where_keys_come_from() -> None:
    config = ProviderConfig(
        kind="openai", base_url="https://openrouter.ai/api/v1", enabled=True, allow_remote=True
    )
    with pytest.raises(ConfigError) as caught:
        make_provider(config)
    assert "NOTED_API_KEY" in str(caught.value) and "OPENAI_API_KEY" in str(caught.value)


def test_a_network_provider_needs_a_model() -> None:
    with pytest.raises(ConfigError, match="ai.model"):
        make_provider(ProviderConfig(kind="openai", base_url="http://127.0.0.1:11434/v1", enabled=True))


def test_unknown_kinds_and_bad_urls_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="anthropic, fake, openai"):
        make_provider(ProviderConfig(kind="gemini", enabled=True))
    with pytest.raises(ConfigError, match="http:// or https://"):
        make_provider(ProviderConfig(kind="openai", base_url="ftp://127.0.0.1/v1", enabled=True))


@pytest.mark.parametrize(
    ("kind", "url", "fault"),
    [
        ("anthropic", "http://127.0.0.1:33167fake-claude", "the port '33167fake-claude' is not a number"),
        ("openai", "http://127.0.0.1:0/v1", "the port '0' is not a number from 1 to 65535"),
        ("openai", "http://my host:8080/v1", "is not a host name"),
        ("anthropic", "http://127.0.0.1:33167/v1", "must not end in /v1"),
        ("openai", "http://127.0.0.1:11434", "usually /v1"),
    ],
)
def test_a_base_url_is_checked_per_provider_and_the_fault_named(kind: str, url: str, fault: str) -> None:
    # Not vacuous: before, each of these was accepted and failed later with a 404 or a stack.
    with pytest.raises(ConfigError, match="ai.baseUrl") as caught:
        make_provider(ProviderConfig(kind=kind, base_url=url, model="m", enabled=True))
    assert fault in caught.value.message and kind in caught.value.message


@pytest.mark.parametrize(
    ("kind", "url"),
    [("anthropic", "https://api.anthropic.com"), ("openai", "http://127.0.0.1:11434/v1"),
     ("openai", "http://[::1]:8080/v1"), ("openai", "http://ollama_box:11434/v1")],
)  # fmt: skip
def test_right_base_urls_pass(kind: str, url: str) -> None:
    from noted.settings.urls import base_url_problem

    assert base_url_problem(url, kind) is None


def test_the_key_never_shows_in_the_config_repr() -> None:
    config = ProviderConfig(kind="openai", api_key="sk-very-secret", enabled=True)
    assert "sk-very-secret" not in repr(config) and "sk-very-secret" not in str(config)


def test_building_the_fake_imports_no_sdk() -> None:
    # A fresh interpreter, since this test process may already have imported the SDKs.
    code = (
        "import sys\n"
        "from noted.providers import ProviderConfig, make_provider\n"
        "make_provider(ProviderConfig(kind='fake', enabled=True))\n"
        "print(sorted(m for m in ('openai', 'anthropic') if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=scaled(300)
    )
    assert out.stdout.strip() == "[]"


# Keys -------------------------------------------------------------------------------------------


def test_key_order_is_noted_variable_then_vendor_variable_then_file(tmp_path: Path) -> None:
    key_file = tmp_path / "key"
    key_file.write_text("from-file\n", encoding="utf-8")
    env = {"NOTED_API_KEY": "from-noted", "OPENAI_API_KEY": "from-vendor"}
    assert load_api_key("openai", key_file=key_file, environ=env) == "from-noted"
    assert (
        load_api_key("openai", key_file=key_file, environ={"OPENAI_API_KEY": "from-vendor"}) == "from-vendor"
    )
    # Another vendor's variable is not this provider's key.
    assert load_api_key("anthropic", key_file=key_file, environ={"OPENAI_API_KEY": "x"}) == "from-file"
    assert load_api_key("anthropic", environ={"OPENAI_API_KEY": "x"}) is None


def test_a_missing_or_empty_key_file_is_named_but_never_read_out(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the API key file .*nope"):
        load_api_key("openai", key_file=tmp_path / "nope", environ={})
    empty = tmp_path / "empty"
    empty.write_text("  \n", encoding="utf-8")
    with pytest.raises(ConfigError, match="is empty"):
        load_api_key("openai", key_file=empty, environ={})


# Tool arguments ---------------------------------------------------------------------------------


def test_tool_arguments_parse_or_explain() -> None:
    assert parse_tool_arguments("") == ({}, None)
    assert parse_tool_arguments('{"a": 1}') == ({"a": 1}, None)
    assert parse_tool_arguments("[1]")[1] == "the arguments must be a JSON object, not list"
    args, error = parse_tool_arguments('{"a": ')
    assert args == {} and error is not None and error.startswith("the arguments are not valid JSON")


# The fake ---------------------------------------------------------------------------------------


async def test_fake_streams_text_in_pieces_and_records_requests() -> None:
    fake = FakeProvider([[Reply("Green tea is steamed, not roasted.", chunk_size=5)]])
    events = await collect(fake, ChatRequest("sys", ASK.messages, tools=(SEARCH,)))

    deltas = [e for e in events if isinstance(e, TextDelta)]
    assert len(deltas) > 1 and "".join(d.text for d in deltas) == "Green tea is steamed, not roasted."
    assert isinstance(events[-2], Usage) and events[-1] == Finished(StopReason.END, raw="fake")
    assert [t.name for t in fake.requests[0].tools] == ["search_notes"]


async def test_fake_tool_calls_stream_their_arguments_and_parse_them() -> None:
    fake = FakeProvider(
        [[CallTool("search_notes", {"query": "green tea"}, id="c1"), CallTool("read_note", "{oops")]]
    )
    events = await collect(fake, ASK)

    assert events[0] == ToolCallStarted("c1", "search_notes")
    fragments = "".join(e.fragment for e in events if isinstance(e, ToolCallArgsDelta) and e.id == "c1")
    assert fragments == '{"query": "green tea"}'
    ready = [e for e in events if isinstance(e, ToolCallReady)]
    assert ready[0].arguments == {"query": "green tea"} and ready[0].arguments_error is None
    assert ready[1].id == "fake_call_2" and ready[1].arguments_error is not None
    assert events[-1] == Finished(StopReason.TOOL_CALLS, raw="fake")


async def test_fake_fails_on_cue_even_mid_answer() -> None:
    fake = FakeProvider([[Reply("Half"), Fail("overloaded", retryable=True, status=529)], [Reply("Whole")]])
    seen: list[ProviderEvent] = []
    with pytest.raises(ProviderError) as caught:
        async for event in fake.stream(ASK):
            seen.append(event)
    assert caught.value.retryable and caught.value.status == 529 and str(caught.value) == "overloaded"
    assert "".join(e.text for e in seen if isinstance(e, TextDelta)) == "Half"
    # The failed turn is used up; a retry gets the next one.
    assert "".join(e.text for e in await collect(fake, ASK) if isinstance(e, TextDelta)) == "Whole"


async def test_fake_hang_ends_only_by_cancellation() -> None:
    fake = FakeProvider([[Reply("Thinking"), Hang()]])
    started = asyncio.Event()

    async def consume() -> None:
        async for _ in fake.stream(ASK):
            started.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(started.wait(), scaled(60))
    await asyncio.sleep(0)
    assert not task.done()  # it really hangs
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, scaled(60))
    assert fake.cancelled == 1


async def test_fake_says_when_its_script_runs_out_and_turns_can_read_the_request() -> None:
    fake = FakeProvider([lambda request: [Reply(f"{len(request.messages)} message(s)")]])
    assert "".join(e.text for e in await collect(fake, ASK) if isinstance(e, TextDelta)) == "1 message(s)"
    assert fake.turns_left == 0
    with pytest.raises(ProviderError, match="no turn left"):
        await collect(fake, ASK)
    await fake.aclose()
    with pytest.raises(ProviderError, match="closed"):
        await collect(fake, ASK)


# The demo ---------------------------------------------------------------------------------------


async def test_demo_searches_reads_the_first_hit_then_answers() -> None:
    demo = make_provider(ProviderConfig(kind="fake", enabled=True))
    assert isinstance(demo, FakeProvider)
    tools = (SEARCH, READ)

    first = await collect(demo, ChatRequest("sys", ASK.messages, tools=tools))
    search = next(e for e in first if isinstance(e, ToolCallReady))
    assert search.name == "search_notes" and search.arguments == {"query": "any:1 notes say green tea"}

    note_id = "0123456789abcdef0123456789abcdef"
    history = (
        *ASK.messages,
        AssistantMessage("", (ToolCall(search.id, search.name, search.arguments),)),
        ToolResultMessage(search.id, f"1. Tea ({note_id}): green tea is steamed"),
    )
    second = await collect(demo, ChatRequest("sys", history, tools=tools))
    read = next(e for e in second if isinstance(e, ToolCallReady))
    # read_note's schema calls its argument note_id, and the demo follows the schema.
    assert read.name == "read_note" and read.arguments == {"note_id": note_id}

    history = (
        *history,
        AssistantMessage("", (ToolCall(read.id, read.name, read.arguments),)),
        ToolResultMessage(read.id, "# Tea\nSteamed, not roasted."),
    )
    third = await collect(demo, ChatRequest("sys", history, tools=tools))
    answer = "".join(e.text for e in third if isinstance(e, TextDelta))
    assert "Steamed, not roasted." in answer and "offline demo" in answer
    assert not any(isinstance(e, ToolCallReady) for e in third)


async def test_demo_prefers_find_notes_with_the_question_as_asked() -> None:
    demo = make_provider(ProviderConfig(kind="fake", enabled=True))
    assert isinstance(demo, FakeProvider)
    find = ToolSpec(
        "find_notes",
        "Find",
        {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
    )
    first = await collect(demo, ChatRequest("sys", ASK.messages, tools=(SEARCH, find, READ)))
    call = next(e for e in first if isinstance(e, ToolCallReady))
    assert call.name == "find_notes" and call.arguments == {"query": "What do my notes say about green tea?"}


async def test_demo_without_tools_restates_the_question() -> None:
    events = await collect(FakeProvider(), ASK)
    answer = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert "What do my notes say about green tea?" in answer
    assert events[-1] == Finished(StopReason.END, raw="fake")


async def test_demo_appends_to_the_open_note_when_its_editing_tools_are_on() -> None:
    demo = make_provider(ProviderConfig(kind="fake", enabled=True))
    append = ToolSpec(
        "editor_append", "append", {"type": "object", "properties": {"text": {"type": "string"}}}
    )
    first = await collect(demo, ChatRequest("sys", ASK.messages, tools=(SEARCH, append)))
    call = next(e for e in first if isinstance(e, ToolCallReady))
    assert call.name == "editor_append" and "(added by the offline demo)" in call.arguments["text"]
    history = (
        *ASK.messages,
        AssistantMessage("", (ToolCall(call.id, call.name, call.arguments),)),
        ToolResultMessage(call.id, json.dumps({"status": "pending", "message": PENDING})),
    )
    second = await collect(demo, ChatRequest("sys", history, tools=(SEARCH, append)))
    assert not any(isinstance(e, ToolCallReady) for e in second)
    # The editor tools' own result (it said "Nothing was added: Applied to the working copy…").
    said = "".join(e.text for e in second if isinstance(e, TextDelta))
    assert said.startswith("Added a to-do line to the note; it is saved when") and "Nothing" not in said

    # Issue 39: after `n` (the edit declined) the demo still said "Done: the note has a new to-do line".
    declined = (
        *history[:-1],
        ToolResultMessage(call.id, json.dumps({"error": DECLINED, "status": "refused"})),
    )
    third = await collect(demo, ChatRequest("sys", declined, tools=(SEARCH, append)))
    said = "".join(e.text for e in third if isinstance(e, TextDelta))
    assert said.startswith("Nothing was added: you did not approve the change.") and "Done" not in said
    # It repeated the words meant for the model: "Nothing was added: The person declined this
    # change; … Do not try it again unless they ask."
    assert "person" not in said and "Do not try" not in said, said

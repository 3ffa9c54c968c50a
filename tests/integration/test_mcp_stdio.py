"""``noted mcp serve --stdio`` as an AI app runs it: a real process, the SDK's stdio client.

The switch is flipped by ``noted config set`` in a third process, as a person would from another
terminal, so the server has to notice the edited config file by itself.
"""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.subscriptions import ToolsListChanged
from tests.integration.mcp_support import (
    MODES,
    World,
    make_world,
    noted_command,
    raw_stdio,
    text_of,
    wait_for,
)
from tests.support.cli import env_with_src
from tests.support.polling import scaled

SWITCH = "ai.tool.create_note.enabled"


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = make_world(tmp_path / "profile")
    yield w
    w.close()


@asynccontextmanager
async def stdio_client(world: World, mode: str, on_message: Callable[[Any], None]) -> AsyncIterator[Client]:
    program, *args = noted_command()
    params = StdioServerParameters(  # the SDK's own environment would drop PYTHONPATH: this checkout's
        command=program,
        args=[*args, "--profile", str(world.profile.root), "mcp", "serve", "--stdio"],
        env=env_with_src(),
    )

    async def handle(message: Any) -> None:
        on_message(message)
        await anyio.lowlevel.checkpoint()

    info = types.Implementation(name="stdio-client", version="2.0")
    async with Client(
        params, mode=mode, client_info=info, message_handler=handle, read_timeout_seconds=scaled(120)
    ) as client:
        yield client


async def config_set(world: World, key: str, value: str) -> None:
    """``noted config set`` in another process."""
    done = await anyio.run_process(
        [*noted_command(), "--profile", str(world.profile.root), "config", "set", key, value]
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("mode", MODES)
async def test_stdio_serves_reads_refuses_writes_and_follows_a_switch_from_another_process(
    world: World, mode: str
) -> None:
    heard: list[Any] = []
    async with stdio_client(world, mode, heard.append) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert "search_notes" in names and "create_note" not in names
        found = await client.call_tool("search_notes", {"query": "budget"})
        assert not found.is_error and isinstance(found.structured_content, dict)
        assert json.loads(text_of(found)) == found.structured_content
        refused = await client.call_tool("create_note", {"title": "From stdio", "notebook_id": world.work_id})
        assert refused.is_error and SWITCH in text_of(refused)

        if mode == "legacy":
            await config_set(world, SWITCH, "true")
            await wait_for(lambda: any(isinstance(m, types.ToolListChangedNotification) for m in heard))
        else:
            async with client.listen(tools_list_changed=True) as subscription:
                await config_set(world, SWITCH, "true")
                with anyio.fail_after(scaled(60)):
                    assert isinstance(await subscription.__anext__(), ToolsListChanged)

        assert "create_note" in {t.name for t in (await client.list_tools()).tools}
        created = await client.call_tool("create_note", {"title": "From stdio", "notebook_id": world.work_id})
        assert not created.is_error, text_of(created)
        assert isinstance(created.structured_content, dict)
    actors = {r.actor for r in world.store.note_history(created.structured_content["id"])}
    assert actors == {"mcp:self:stdio-client"}


async def test_stdio_answers_malformed_lines_and_keeps_serving(world: World) -> None:
    async with raw_stdio(world) as (send, reply):
        await send(b"{this is not json")
        assert (await reply()) == {"jsonrpc": "2.0", "id": None, "error": _error(-32700, "not valid JSON")}
        await send(b'{"no": "method"}')
        assert (await reply())["error"]["code"] == -32600

        rng = random.Random(7)
        for _ in range(50):  # a bounded fuzz; how many replies it earns does not matter
            await send(_garbage(rng))
        await send(json.dumps({"jsonrpc": "2.0", "id": "last", "method": "ping"}).encode())
        with anyio.fail_after(scaled(120)):
            while (message := await reply()).get("id") != "last":
                assert "error" in message or "result" in message
        assert message["result"] == {}


async def test_stdio_refuses_a_line_that_is_not_utf8_and_writes_nothing(world: World) -> None:
    """The line was decoded with U+FFFD in place of the bad bytes and the note written as ``bad\ufffd\ufffdutf``;
    over HTTP the same bytes are refused. Here the bad line earns -32700 and the next line is served."""
    world.settings.set("ai.tool.create_note.enabled", True)
    arguments = b'{"title": "bad\xff\xfeutf", "notebook_id": "' + world.work_id.encode() + b'"}'
    call = (
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "create_note", "arguments": '
    )
    async with raw_stdio(world) as (send, reply):
        await send(call + arguments + b"}}")
        assert (await reply()) == {"jsonrpc": "2.0", "id": None, "error": _error(-32700, "not valid UTF-8")}
        await send(json.dumps({"jsonrpc": "2.0", "id": "next", "method": "ping"}).encode())
        assert (await reply()) == {"jsonrpc": "2.0", "id": "next", "result": {}}
    titles = {n.title for n in world.store.list_notes(folder_id=world.work_id)}
    assert titles == {"Quarter budget"}  # the store is read, so a written note would show


def _error(code: int, words: str) -> Any:
    class Matches(dict[str, Any]):
        def __eq__(self, other: object) -> bool:
            return (
                isinstance(other, dict) and other.get("code") == code and words in str(other.get("message"))
            )

    return Matches()


def _garbage(rng: random.Random) -> bytes:
    choice = rng.randrange(4)
    if choice == 0:
        return bytes(rng.randrange(32, 256) for _ in range(rng.randint(1, 80)))
    if choice == 1:
        return json.dumps(rng.choice([[], 5, "x", None, {"jsonrpc": "2.0"}, {"id": 3, "method": 7}])).encode()
    if choice == 2:
        params: object = rng.choice([None, [], {"name": 5}, {"name": "search_notes", "arguments": "x"}])
        return json.dumps(
            {"jsonrpc": "2.0", "id": rng.randint(100, 999), "method": "tools/call", "params": params}
        ).encode()
    return b"{" * rng.randint(1, 3000)


async def test_the_stdio_server_keeps_a_built_index_up_to_date(world: World) -> None:
    """``noted mcp serve`` ran no indexer: a note an AI app saved was never found by meaning while
    only the server ran ("the index covers 11 of 18 notes", for good)."""
    await config_set(world, "ai.embedding.provider", "fake")
    await config_set(world, SWITCH, "true")
    built = await anyio.run_process([*noted_command(), "--profile", str(world.profile.root), "index"])
    assert built.returncode == 0, built.stderr

    async def coverage(client: Client) -> dict[str, Any]:
        found = await client.call_tool("semantic_search_notes", {"query": "harbour"})
        assert not found.is_error, text_of(found)
        index: dict[str, Any] = (found.structured_content or {})["index"]
        return index

    async with stdio_client(world, MODES[0], lambda _: None) as client:
        before = await coverage(client)
        made = await client.call_tool(
            "create_note", {"title": "Harbour", "body": "Ships at anchor.", "notebook_id": world.work_id}
        )
        assert not made.is_error, text_of(made)
        seen: list[dict[str, Any]] = []

        async def indexed() -> bool:
            seen.append(await coverage(client))
            return bool(seen[-1]["complete"] and seen[-1]["notes_indexed"] == before["notes_indexed"] + 1)

        for _ in range(int(scaled(60) / 0.5)):
            if await indexed():
                break
            await anyio.sleep(0.5)
        assert seen[-1]["complete"] and seen[-1]["notes_indexed"] == before["notes_indexed"] + 1, seen[-3:]


async def test_stdio_tells_the_config_file_problems_on_stderr_only(world: World) -> None:
    # The server started without a word about a broken setting (the person learned only from
    # `noted config list`); stdout is the protocol stream, so the lines go to stderr.
    world.settings.path.write_text('[mcp]\nwrites = "reveiw"\n', encoding="utf-8")
    done = await anyio.run_process(
        [*noted_command(), "--profile", str(world.profile.root), "mcp", "serve", "--stdio"],
        input=b"",
        env=env_with_src(),
    )
    assert done.returncode == 0 and done.stdout == b""
    assert done.stderr.decode().splitlines() == [
        'noted: config.toml: mcp.writes must be one of direct, review (got "reveiw"); '
        "until it is fixed, every AI app's writes wait for your review"
    ]

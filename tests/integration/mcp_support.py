"""Shared pieces of the MCP tests: a profile with notes in two notebooks, servers, SDK clients."""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import socket
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from tests.support.polling import DEFAULT_TIMEOUT, scaled, wait_for_async

from noted.cli import main
from noted.embeddings.fake import FakeEmbedder
from noted.mcp.client_tokens import ClientTokens
from noted.mcp.deps import McpDeps
from noted.mcp.http import HttpServer
from noted.mcp.options import HttpOptions
from noted.mcp.server import NotedMcp
from noted.mcp.token import create
from noted.models import NoteDraft
from noted.profile import Profile
from noted.search.keyword import KeywordSearch
from noted.search.semantic import SemanticSearch
from noted.settings import Settings
from noted.store.sqlite import SqliteStore
from noted.store.sqlite.review import SqliteReview
from noted.tools import Annotations, Tool, ToolRegistry, all_tools
from noted.tools.base import ToolContext

MODES = ("legacy", "2026-07-28")
"""The handshake era (initialize) and the sessionless 2026-07-28 protocol."""
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
LIST_HEADERS = {**ACCEPT, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list"}
"""A raw sessionless ``tools/list`` carries its method in a header too."""
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
}
LIST_BODY = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": ENVELOPE}}
Cli = Callable[..., tuple[int, str, str]]
"""``noted --profile … ARGS`` in this process: (exit code, stdout, stderr)."""


def noted_command() -> list[str]:
    """The ``noted`` command, run by this interpreter."""
    return [sys.executable, "-m", "noted"]


def _explode(ctx: ToolContext, args: Mapping[str, Any]) -> dict[str, Any]:
    raise RuntimeError("secret internals: /home/someone/.ssh")


BROKEN = Tool(
    name="broken_tool",
    title="A tool with a bug",
    description="Always fails with an unexpected exception (a stand-in for a bug).",
    input_schema={"type": "object", "properties": {}, "additionalProperties": False},
    output_schema={"type": "object"},
    annotations=Annotations(read_only=True),
    handler=_explode,
)


@dataclass
class World:
    """A profile on disk with notes in an allowed and a private notebook."""

    profile: Profile
    store: SqliteStore
    settings: Settings
    deps: McpDeps
    work_id: str = ""
    private_id: str = ""
    work_note: str = ""
    private_note: str = ""

    def close(self) -> None:
        self.store.close()


def make_world(root: Path, *, semantic: bool = True) -> World:
    """Notes about a budget in "Work" and a better-matching one in "Private"."""
    profile = Profile(root).ensure()
    store = SqliteStore.open(profile.db_path, profile.resources_dir)
    settings = Settings.load(profile)
    tools = ToolRegistry(settings, (*all_tools(), BROKEN))
    embedder = FakeEmbedder()
    factory = (lambda: SemanticSearch(store, store.db, embedder)) if semantic else None
    deps = McpDeps(store, KeywordSearch(store), settings, tools, factory, log_path=profile.log_path)
    world = World(profile, store, settings, deps)
    work = store.create_folder("Work", actor="user")
    private = store.create_folder("Private", actor="user")
    world.work_id, world.private_id = work.id, private.id
    body = "# Budget\n\nThe budget for the quarter is 12k.\n\n## Travel\n\nTrains only.\n"
    world.work_note = store.create_note(NoteDraft("Quarter budget", body, work.id), actor="user").id
    secret = "# Budget budget budget\n\nThe budget of the secret budget project.\n"
    world.private_note = store.create_note(NoteDraft("Secret budget", secret, private.id), actor="user").id
    return world


def world_with(root: Path, *tools: str) -> World:
    """``make_world`` (no semantic search) with ``tools`` switched on."""
    world = make_world(root, semantic=False)
    for tool in tools:
        world.settings.set(f"ai.tool.{tool}.enabled", True)
    return world


def writing_world(root: Path) -> World:
    """``make_world`` (no semantic search) with ``update_note`` on and the profile's proposals, as
    ``noted mcp serve`` has them, so a client in review mode can propose."""
    world = make_world(root, semantic=False)
    world.settings.set("ai.tool.update_note.enabled", True)
    world.deps = replace(world.deps, review=SqliteReview(world.store.db))
    return world


@asynccontextmanager
async def scoped_and_main(
    deps: McpDeps, tmp_path: Path, notebooks: list[str], **grant: Any
) -> AsyncIterator[tuple[Client, Client]]:
    """Over HTTP, a client whose token (beside ``deps``'s settings) is limited to ``notebooks``,
    and one with the main token (no scope)."""
    clients = ClientTokens.beside(deps.settings.path)
    token = clients.add("work", notebooks=notebooks, **grant)
    main = create(tmp_path / "main-token")
    options = HttpOptions(port=0, clients_file=clients.path, token_file=tmp_path / "main-token")
    http = HttpServer(NotedMcp(deps, poll_seconds=0.2), options)
    await http.start()
    try:
        async with (
            http_client(str(http.url), "legacy", headers=bearer(token)) as scoped,
            http_client(str(http.url), "legacy", headers=bearer(main)) as everything,
        ):
            yield scoped, everything
    finally:
        await http.stop()


@asynccontextmanager
async def http_server(world: World, **options: Any) -> AsyncIterator[HttpServer]:
    """The HTTP server for ``world`` on a free loopback port, in this event loop."""
    http = HttpServer(NotedMcp(world.deps, poll_seconds=0.2), HttpOptions(port=0, **options))
    await http.start()
    try:
        yield http
    finally:
        await http.stop()


@dataclass
class Served:
    """A ``noted mcp serve`` process: its URL, then (once it ended) its exit code and output."""

    url: str = ""
    returncode: int | None = None
    out: str = ""
    err: str = ""


@asynccontextmanager
async def serve_process(world: World, stop: signal.Signals = signal.SIGTERM) -> AsyncIterator[Served]:
    """``noted mcp serve`` as a real process on the world's profile, on a free loopback port,
    ended by the signal ``stop`` (SIGKILL: at once, nothing done on the way out)."""
    process = await asyncio.create_subprocess_exec(
        *noted_command(),
        *("--profile", str(world.profile.root), "mcp", "serve", "--port", "0"),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    served = Served()
    try:
        while "listening on " not in served.out:
            line = await asyncio.wait_for(process.stdout.readline(), scaled(180))
            assert line, "the server ended before it listened"
            served.out += line.decode()
        served.url = served.out.split("listening on ")[1].split()[0]
        yield served
    finally:
        process.send_signal(stop)
        out, err = await asyncio.wait_for(process.communicate(), scaled(180))
        served.out, served.err, served.returncode = (
            served.out + out.decode(),
            err.decode(),
            process.returncode,
        )


@asynccontextmanager
async def http_client(
    url: str,
    mode: str,
    *,
    name: str = "test-client",
    headers: dict[str, str] | None = None,
    on_message: Callable[[Any], Any] | None = None,
    on_response: Callable[[httpx2.Response], Awaitable[None]] | None = None,
) -> AsyncIterator[Client]:
    """The SDK's client over Streamable HTTP in ``mode`` (``legacy`` or ``2026-07-28``);
    ``on_response`` sees each HTTP response as its headers arrive (a GET stream's too)."""
    async with AsyncExitStack() as stack:
        hooks = {"response": [on_response]} if on_response is not None else None
        http = await stack.enter_async_context(
            httpx2.AsyncClient(headers=headers, timeout=scaled(120), event_hooks=hooks)
        )
        transport = streamable_http_client(url, http_client=http)
        client = Client(
            transport,
            mode=mode,
            client_info=types.Implementation(name=name, version="1.0"),
            message_handler=_handler(on_message),
            read_timeout_seconds=30,
        )
        yield await stack.enter_async_context(client)


def _handler(on_message: Callable[[Any], Any] | None) -> Any:
    async def handle(message: Any) -> None:
        if on_message is not None:
            on_message(message)
        await anyio.lowlevel.checkpoint()

    return handle


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def cli_runner(
    world: World | Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Cli:
    """Run ``noted`` on the world's profile (or the profile folder given) in this process, as a
    person would at the prompt."""
    root = world if isinstance(world, Path) else world.profile.root
    # a command that opens the services points the noted loggers at the profile's log file for the
    # rest of the process; put them back afterwards so later tests' caplog still works
    noted_logger = logging.getLogger("noted")
    for attribute in ("propagate", "level"):
        monkeypatch.setattr(noted_logger, attribute, getattr(noted_logger, attribute))
    monkeypatch.setattr(noted_logger, "handlers", list(noted_logger.handlers))

    def run(*args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = main(["--profile", str(root), *args])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


def add_client(cli: Cli, name: str, *options: str) -> str:
    """``noted mcp token add NAME OPTIONS``; the token it prints once."""
    code, out, err = cli("--json", "mcp", "token", "add", name, *options)
    assert code == 0, err
    token: str = json.loads(out)["token"]
    return token


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


async def wait_for(predicate: Callable[[], bool], *, timeout: float = DEFAULT_TIMEOUT) -> None:
    """Poll ``predicate`` until it holds; fail after ``timeout`` (scaled)."""
    await wait_for_async(predicate, timeout=timeout)


def accepted_nodelay(http: HttpServer) -> list[int]:
    """``TCP_NODELAY`` of each connection the server accepted and holds open, read off the socket.

    uvicorn keeps its open connections' protocols in ``server_state``; each transport hands out
    its socket, so the option is checked where the kernel keeps it, not inferred from timings.
    """
    server = getattr(http, "_server", None)
    assert server is not None, "the server is not running"
    values = []
    for protocol in server.server_state.connections:
        sock = protocol.transport.get_extra_info("socket")
        values.append(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
    return values


Send = Callable[[bytes], Awaitable[None]]
Reply = Callable[[], Awaitable[dict[str, Any]]]


@asynccontextmanager
async def raw_stdio(world: World, *extra: str) -> AsyncIterator[tuple[Send, Reply]]:
    """``noted mcp serve --stdio`` as a real process, past the handshake (client ``raw``): send a
    raw line, read one JSON reply. The process must exit 0 once its stdin closes."""
    process = await asyncio.create_subprocess_exec(
        *noted_command(),
        "--profile",
        str(world.profile.root),
        "mcp",
        "serve",
        "--stdio",
        *extra,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    assert process.stdin is not None and process.stdout is not None
    stdin, stdout = process.stdin, process.stdout

    async def send(line: bytes) -> None:
        stdin.write(line + b"\n")
        await stdin.drain()

    async def reply() -> dict[str, Any]:
        line = await asyncio.wait_for(stdout.readline(), scaled(180))
        decoded: dict[str, Any] = json.loads(line)  # the server never writes anything but JSON-RPC
        return decoded

    info = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    }
    try:
        await send(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": info}).encode())
        assert (await reply())["id"] == 0
        await send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')
        yield send, reply
    finally:
        stdin.close()
        await asyncio.wait_for(process.wait(), scaled(60))
    assert process.returncode == 0


def raw_create_note(world: World, title: str, extra: str = "", id_: int | str = 7, meta: Any = None) -> bytes:
    """A raw ``create_note`` request for the world's "Work" notebook: ``title`` and ``extra`` (more
    fields, ``, "x": …``) are put in as JSON text, escapes and all; ``meta`` is the ``_meta`` envelope."""
    arguments = f'{{"title": "{title}", "notebook_id": "{world.work_id}"{extra}}}'
    envelope = f', "_meta": {json.dumps(meta)}' if meta else ""
    return (
        f'{{"jsonrpc": "2.0", "id": {json.dumps(id_)}, "method": "tools/call", '
        f'"params": {{"name": "create_note", "arguments": {arguments}{envelope}}}}}'
    ).encode()


def work_titles(world: World) -> set[str]:
    """The titles of the notes in the world's "Work" notebook."""
    return {n.title for n in world.store.list_notes(folder_id=world.work_id)}


def rpc_refusal(id_: int | str | None, message: str) -> dict[str, Any]:
    """The JSON-RPC answer refusing request ``id_`` as an Invalid Request, in ``message``."""
    return {"jsonrpc": "2.0", "id": id_, "error": {"code": -32600, "message": message}}


def call_headers(modern: bool, tool: str = "create_note") -> dict[str, str]:
    """A raw ``tools/call``'s headers: the 2026-07-28 protocol's (``modern``), or the handshake era's."""
    if not modern:
        return ACCEPT
    return {**ACCEPT, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": tool}


@asynccontextmanager
async def actions_door(
    world: World, tmp_path: Path
) -> AsyncIterator[Callable[[str, bytes], Awaitable[httpx.Response]]]:
    """The OpenAPI door of an HTTP server for ``world`` (a main token in ``tmp_path``): a function
    posting a raw body to ``/actions/TOOL`` with the token."""
    token = create(tmp_path / "token")
    headers = {"authorization": f"Bearer {token}", "content-type": "application/json"}
    async with http_server(world, token_file=tmp_path / "token", actions=True, allow_remote=True) as http:
        async with httpx.AsyncClient(headers=headers, timeout=scaled(120)) as raw:

            async def post(tool: str, body: bytes) -> httpx.Response:
                return await raw.post(f"http://127.0.0.1:{http.port}/actions/{tool}", content=body)

            yield post

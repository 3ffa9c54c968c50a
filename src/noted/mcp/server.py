"""The MCP face of the tool registry: one low-level SDK ``Server`` fed from ``ToolRegistry``.

``tools/list`` shows the tools switched on (editor tools never: they need a note open in the app),
each with its input and output schema and annotations. ``tools/call`` runs the registry's one
call path with actor ``mcp:self:<client name>`` (the name the client gave itself, unchecked) and
the scope of ``mcp.allowedNotebooks`` (its names resolved to ids once, by ``settle``: see
``scopes``). A request made with a named client token (``client_tokens``), or every request of a
stdio server started with ``--client NAME``, sees only that client's tools and notebooks and writes
as ``mcp:NAME``, which no self-named client can write as:

- ``ok``: ``structuredContent`` is the payload and the first text block is the same JSON; images a
  tool returns beside its payload (``read_attachment``) follow as MCP image content blocks;
- ``error``, ``refused``, ``conflict``: a result with ``isError`` and the message (a refusal names
  the setting that would switch the tool on), so the model can read it and recover;
- ``internal``: a JSON-RPC internal error with a short message; the stack is only in the log.

The config file is re-read (when it changed: one ``stat``) before each call and each HTTP request
(``reload_settings``), so a switch turned off, a scope narrowed or review mode set by ``noted config
set`` in another process holds from the next call, and about once a second besides, so a switch
flipped there reaches the clients that listen; when the set of tools on changes,
every client that can hear it is told (``notifications/tools/list_changed``): handshake-era
sessions directly, 2026-07-28 clients on their ``subscriptions/listen`` streams; a client whose
token was revoked, or that holds the main token after it was replaced, hears nothing more, and its
notice streams end (``listens``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import mcp_types as types
from mcp.server import Server
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.models import InitializationOptions
from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus, ToolsListChanged
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST

from noted import __version__
from noted.errors import ConfigError
from noted.mcp.client_tokens import CLIENT_KEY, HELD_KEY, ClientToken, ClientTokens
from noted.mcp.clients import ClientInfo, ClientTracker, actor_for, name_of
from noted.mcp.deps import McpDeps
from noted.mcp.listens import Listens
from noted.mcp.scopes import Settled, settle_clients
from noted.models import ToolStatus
from noted.settings import SettingChange
from noted.settings.handles import MCP_ALLOWED_NOTEBOOKS, MCP_WRITES
from noted.tools import files
from noted.tools.base import Tool, ToolContext
from noted.tools.registry import ToolResult

log = logging.getLogger(__name__)

SERVER_NAME = "noted"
TOOL_KEYS = "ai.tool."
POLL_SECONDS = 1.0
MAX_CACHED_LISTS = 64
"""``tools/list`` answers kept (one per protocol version and set of tools offered)."""
NOTICE_TIMEOUT = 5.0
"""A session that cannot take a notice within this long is skipped (it is probably gone)."""

INSTRUCTIONS = (
    "Notes kept in noted, a terminal notebook. Find notes with find_notes (words and meaning at "
    "once, the best general search), search_notes (keywords and filters such as notebook:, tag:, "
    "updated:) or semantic_search_notes (by meaning alone), then read them with "
    "read_note (ask for the outline of a long note first, then a section). Tools that change notes are "
    "switched off unless the person switches them on; a refusal names the setting to ask for."
)


class _Server(Server[dict[str, Any]]):
    """The SDK server, announcing ``tools.listChanged`` on every handshake path.

    The HTTP session manager starts handshake sessions without initialization options, so the
    default would tell those clients that the tool list never changes.
    """

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True),
            experimental_capabilities,
            extensions,
        )


class NotedMcp:
    """One MCP server over the registry in ``deps``; transports drive ``server``.

    Args:
        deps: The store, settings, registry and search this server serves from.
        poll_seconds: How often the config file is checked for edits by other processes
            (0 turns the check off, for a front end that reloads settings itself).
        on_clients: Called on the event loop when a client arrives or leaves.
        client: Serve every request as this named client (``noted mcp serve --stdio --client``);
            looked up at each request, so revoking it stops this server serving at once.
    """

    def __init__(
        self,
        deps: McpDeps,
        *,
        poll_seconds: float = POLL_SECONDS,
        on_clients: Callable[[], None] | None = None,
        client: str | None = None,
    ) -> None:
        self.deps = deps
        self.client = client
        self.client_tokens = ClientTokens.beside(deps.settings.path)
        self.allowed = Settled(deps.settings, deps.store)
        self.poll_seconds = poll_seconds
        self.clients = ClientTracker(on_change=on_clients, held=self._still_held)
        self.bus = InMemorySubscriptionBus()
        self.listen = Listens(self.bus, self._still_held)
        self.server = _Server(
            SERVER_NAME,
            version=__version__,
            title="noted",
            description="Your noted notebooks: search, read and (when switched on) edit notes.",
            instructions=INSTRUCTIONS,
            get_tool_input_schema=self._input_schema,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_subscriptions_listen=self.listen,
        )
        self.server.middleware.append(self.clients)
        self.server.middleware.append(self._cached_tools_list)
        self._lists: dict[tuple[str, tuple[str, ...]], HandlerResult] = {}
        self._wire: dict[str, types.Tool] = {}
        self._offered: frozenset[str] = frozenset()
        self._tasks: set[asyncio.Task[None]] = set()
        self._reported: str | None = None  # the config file's problem last logged
        # the token `client` named when this server started: one added later under its name,
        # after it was revoked, is another client, and this server does not serve it
        self._pinned: ClientToken | None = None

    # lifetime ------------------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Watch the tool switches while the transport serves; end listen streams on the way out."""
        loop = asyncio.get_running_loop()
        self._offered = self.offered_names()
        unsubscribe = self.deps.settings.subscribe(lambda changes: self._on_settings(loop, changes))
        poller = asyncio.create_task(self._poll())
        try:
            yield
        finally:
            unsubscribe()
            poller.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await poller
            self.listen.close()
            for task in list(self._tasks):
                task.cancel()

    def settle(self, clients: ClientTokens | None = None) -> None:
        """Resolve the notebook names of ``mcp.allowedNotebooks`` and of the clients file to ids
        (see ``scopes``); a transport calls this before it serves.

        Raises:
            ConfigError: a name matches several notebooks or none (the message says how to fix
                it), or the clients file cannot be used.
        """
        self.allowed.settle()
        settle_clients(clients or self.client_tokens, self.deps.store)
        if self.client is not None and self._pinned is None:
            self._pinned = self.client_tokens.get(self.client)

    async def call_context(self, actor: str, client: ClientToken | None) -> ToolContext:
        """``context``, once names set since in ``mcp.allowedNotebooks`` are resolved (off the loop)."""
        self.reload_settings()
        if self.allowed.pending():
            await asyncio.to_thread(self.allowed.settle_quietly)
        return self.context(actor, client)

    def context(self, actor: str, client: ClientToken | None) -> ToolContext:
        """What a tool call needs, for this caller: its actor, the scope of
        ``mcp.allowedNotebooks`` narrowed to the client's notebooks, and whether its writes wait
        (``mcp.writes`` review, read at each call, or the client's own token in review mode), from
        the config file as it is now; the tool's switch is read right after, by the registry."""
        self.reload_settings()
        deps, scope = self.deps, self.allowed.scope()
        wait = deps.settings.get(MCP_WRITES) != "direct" or (client is not None and client.writes_wait)
        return ToolContext(
            store=deps.store,
            settings=deps.settings,
            keyword=deps.keyword,
            actor=actor,
            semantic=deps.semantic,
            scope=client.scope(scope) if client is not None else scope,
            review=deps.review,
            writes_wait=wait,
            owner=client.owner if client is not None else "",
        )

    def connected(self) -> tuple[ClientInfo, ...]:
        """The clients connected now (see ``ClientTracker.connected``)."""
        return self.clients.connected()

    def offered(self) -> list[Tool]:
        """The tools an MCP client gets: switched on, and not editor tools."""
        return [t for t in self.deps.tools.offered() if not t.editor]

    def offered_to(self, client: ClientToken | None) -> list[Tool]:
        """The tools ``client`` gets (its token's among those offered; all of them without one)."""
        return [t for t in self.offered() if client is None or client.allows(t)]

    def offered_names(self) -> frozenset[str]:
        return frozenset(t.name for t in self.offered())

    async def announce_tools_changed(self) -> None:
        """Tell every client that can hear it that the tool list changed."""
        await self.bus.publish(ToolsListChanged())
        sessions = self.clients.sessions()  # a client whose token is out of force hears nothing
        await asyncio.gather(*(self._notify(s) for s in sessions))
        log.info("announced a tool list change to %d session(s) and the listen streams", len(sessions))

    # handlers ------------------------------------------------------------------------------
    async def _cached_tools_list(
        self, ctx: ServerRequestContext[dict[str, Any]], call_next: CallNext
    ) -> HandlerResult:
        """``tools/list`` answers from a cache of its wire form, by protocol and tools offered.

        The SDK dumps, re-validates and re-dumps every tool's schemas on each ``tools/list``
        (~4 ms of CPU for noted's tools); the answer changes only with the tools offered, which
        the key names, so a switch flipped or another client's set gets its own entry.
        """
        if ctx.method != "tools/list" or (ctx.params or {}).get("cursor") is not None:
            return await call_next(ctx)
        names = tuple(t.name for t in self.offered_to(self._client_of(ctx)))
        key = (ctx.protocol_version, names)
        cached = self._lists.get(key)
        if cached is None:
            cached = await call_next(ctx)
            if len(self._lists) >= MAX_CACHED_LISTS:
                self._lists.clear()
            self._lists[key] = cached
        return dict(cached) if isinstance(cached, dict) else cached

    async def _list_tools(
        self, ctx: ServerRequestContext[dict[str, Any]], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        if params is not None and params.cursor is not None:  # one page, so no cursor was given
            raise MCPError(INVALID_PARAMS, "invalid cursor: every tool is listed at once; ask without one")
        tools = self.offered_to(self._client_of(ctx))
        return types.ListToolsResult(tools=[self._wire_tool(t) for t in tools])

    async def _call_tool(
        self, ctx: ServerRequestContext[dict[str, Any]], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        tool = self.deps.tools.get(params.name)
        client = self._client_of(ctx)
        if tool is None or tool.editor:  # the tools named are this client's: no others are told of
            known = ", ".join(sorted(t.name for t in self.offered_to(client))) or "none"
            raise MCPError(INVALID_PARAMS, f'Unknown tool "{params.name[:100]}"; the tools on are: {known}')
        if client is not None and not client.allows(tool):
            return _refused(
                f'The tool "{tool.name}" is not among the tools of the client token "{client.name}" '
                "(see `noted mcp token list`); nothing was done."
            )
        context = await self.call_context(
            client.actor if client is not None else actor_for(name_of(ctx)), client
        )
        return call_result(await self.deps.tools.call(params.name, params.arguments, context))

    def _client_of(self, ctx: ServerRequestContext[dict[str, Any]]) -> ClientToken | None:
        """The named client making this request (its HTTP token, or this server's ``client``).

        Raises:
            MCPError: the server was started for a client that has since been revoked.
        """
        if self.client is not None:
            found = self.client_tokens.get(self.client)
            if self._pinned is None:  # served without settle (which pins it at the start)
                self._pinned = found
            if found is None or self._pinned is None or found.sha256 != self._pinned.sha256:
                raise MCPError(
                    INVALID_REQUEST, f'the client token "{self.client}" was revoked; ask the person'
                )
            return found
        return self._holder(ctx)

    def _holder(self, ctx: ServerRequestContext[dict[str, Any]]) -> ClientToken | None:
        """The client token a session or listen stream was opened with (a stdio server's pinned
        one; one never pinned holds nothing)."""
        if self.client is not None:
            return self._pinned or ClientToken(self.client, "")
        scope = getattr(ctx.request, "scope", None)
        found = scope.get(CLIENT_KEY) if isinstance(scope, dict) else None
        return found if isinstance(found, ClientToken) else None

    def _still_held(self, ctx: ServerRequestContext[dict[str, Any]]) -> Callable[[], bool]:
        """Whether the token a session or listen stream was opened with (in ``ctx``) is still in
        force: a client token not revoked, and over HTTP the guard's word (``HELD_KEY``: the main
        token not replaced either). Once it is not, the stream hears no more notices and ends."""
        token = self._holder(ctx)
        scope = getattr(ctx.request, "scope", None)
        guard = scope.get(HELD_KEY) if isinstance(scope, dict) else None
        if callable(guard):
            return lambda: self.client_tokens.holds(token) and bool(guard())
        return lambda: self.client_tokens.holds(token)

    def _input_schema(self, name: str) -> dict[str, Any] | None:
        # For the 2026-07-28 header check of each tools/call; without it the SDK lists every tool
        # (and serializes every schema) on every call just to find this one.
        tool = self.deps.tools.get(name)
        return tool.input_schema if tool is not None and not tool.editor else None

    def _wire_tool(self, tool: Tool) -> types.Tool:
        wire = self._wire.get(tool.name)
        if wire is None:  # tools are immutable, so each is converted once
            wire = self._wire[tool.name] = types.Tool.model_validate(tool.to_mcp())
        return wire

    # switches --------------------------------------------------------------------------------
    def _on_settings(self, loop: asyncio.AbstractEventLoop, changes: Sequence[SettingChange]) -> None:
        # Runs in whichever thread changed the settings; the check itself belongs on the loop.
        with contextlib.suppress(RuntimeError):  # the loop closed: nobody is left to tell
            if any(change.key.startswith(TOOL_KEYS) for change in changes):
                loop.call_soon_threadsafe(self._recheck)
            if any(change.key == MCP_ALLOWED_NOTEBOOKS.key for change in changes):
                loop.call_soon_threadsafe(self._resettle)

    def _resettle(self) -> None:
        # Names set while serving match nothing until resolved here, off the loop (it reads the store).
        task = asyncio.get_running_loop().create_task(asyncio.to_thread(self.allowed.settle_quietly))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _recheck(self) -> None:
        names = self.offered_names()
        if names == self._offered:
            return
        added, removed = sorted(names - self._offered), sorted(self._offered - names)
        log.info("tools switched on: %s; switched off: %s", added or "-", removed or "-")
        self._offered = names
        task = asyncio.get_running_loop().create_task(self.announce_tools_changed())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _notify(self, session: ServerSession) -> None:
        try:
            await asyncio.wait_for(session.send_tool_list_changed(), NOTICE_TIMEOUT)
        except Exception as exc:  # one stuck or broken session must not keep the notice from others
            log.warning("could not send list_changed to a session: %r", exc)

    def reload_settings(self) -> None:
        """Read the config file again if another process changed it (one ``stat`` if not), so what
        it says now decides the call or request at hand; one that no longer parses leaves the
        values read before in effect, and is logged once per distinct problem."""
        try:
            self.deps.settings.reload()
            self._reported = None
        except ConfigError as exc:
            if str(exc) != self._reported:
                self._reported = str(exc)
                log.warning("config file not reloaded: %s", exc)
        except Exception:
            log.exception("reloading the settings failed")

    async def _poll(self) -> None:
        # Streams are swept even when the caller reloads the settings itself (poll_seconds 0).
        while True:
            await asyncio.sleep(self.poll_seconds or POLL_SECONDS)
            self.listen.sweep()
            if self.poll_seconds > 0:
                self.reload_settings()


def _refused(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


def call_result(result: ToolResult) -> types.CallToolResult:
    """The wire form of one registry result (see the module docstring)."""
    if result.ok and result.payload is not None:
        text = json.dumps(result.payload, ensure_ascii=False)
        content: list[types.ContentBlock] = [types.TextContent(text=text)]
        content += [
            types.ImageContent(data=files.base64_text(image.data), mime_type=image.mime)
            for image in result.images
        ]
        return types.CallToolResult(content=content, structured_content=result.payload)
    if result.status is ToolStatus.INTERNAL:
        raise MCPError(INTERNAL_ERROR, result.message or "internal error; it was logged")
    message = result.message or f"the tool failed ({result.status})"
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)

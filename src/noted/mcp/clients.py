"""Who is connected: names for the change feed's actor, live sessions for ``list_changed``.

Two protocol generations identify clients differently:

- **Handshake era** (2024-11-05 … 2025-11-25): the client names itself once, in ``initialize``'s
  ``clientInfo``, and the connection lives until it closes (stdio) or its HTTP session ends. Such
  sessions are kept here so a tool switch can be announced with ``notifications/tools/list_changed``.
- **2026-07-28 (sessionless)**: every request carries ``clientInfo`` (optional) in its ``_meta``
  envelope and no connection outlives a request; change notices reach a client only through a
  ``subscriptions/listen`` stream it opened. A client is "connected" while such a stream is open
  and "seen" for a while after its last request. Without ``clientInfo``, the HTTP ``User-Agent``
  is the best name there is.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcp.server.connection import Connection
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.session import ServerSession
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from noted.mcp.client_tokens import SELF_NAMED
from noted.store.rules import plain_text

log = logging.getLogger(__name__)

ACTOR_PREFIX = "mcp:"
UNKNOWN_CLIENT = "unknown"
MAX_NAME = 64
SEEN_FOR_SECONDS = 300.0
"""A sessionless client counts as connected this long after its last request."""
MAX_LEGACY = 1000
"""Handshake sessions kept for notices when the SDK gives no close hook (a leak backstop)."""
MAX_SEEN = 1000
"""Sessionless clients remembered at most (names are the client's to choose, so they are bounded)."""


def client_name(raw: str | None) -> str:
    """A client's self-given name made safe for a log line and the history view (no control
    characters, C1 included, nor those that reorder text)."""
    return plain_text(raw or "")[:MAX_NAME] or UNKNOWN_CLIENT


def client_version(raw: str | None) -> str:
    """A client's self-given version, as safe as its name."""
    return plain_text(raw or "")[:MAX_NAME]


def actor_for(name: str, prefix: str = ACTOR_PREFIX) -> str:
    """The change-feed actor for a client with no token of its own, known only by the name it gave
    itself: ``mcp:self:<name>`` (``prefix`` names another door: ``actions:``)."""
    return prefix + SELF_NAMED + client_name(name)


def name_of(ctx: ServerRequestContext[Any, Any]) -> str:
    """The name the client gave (``clientInfo.name``), else its HTTP User-Agent, else ``unknown``."""
    params = ctx.session.client_params
    if params is not None and params.client_info.name.strip():
        return client_name(params.client_info.name)
    request = ctx.request
    headers = getattr(request, "headers", None)
    agent = headers.get("user-agent") if headers is not None else None
    return client_name(agent.split("/")[0] if isinstance(agent, str) else None)


@dataclass(frozen=True, slots=True)
class ClientInfo:
    """One connected client, for the status bar (which counts them)."""

    name: str


@dataclass(slots=True)
class _Entry:
    name: str
    version: str
    protocol: str
    since: float
    last_seen: float
    session: ServerSession | None = None
    listens: int = 0
    held: Callable[[], bool] = lambda: True
    """Whether the token that opened the session is still in force (``ClientTracker.held``),
    asked before each notice."""

    def info(self) -> ClientInfo:
        return ClientInfo(self.name)


@dataclass
class ClientTracker:
    """Keeps the clients of one server; a ``ServerMiddleware`` that sees every message.

    ``on_change`` is called (on the event loop) when a client arrives or leaves; ``held`` gives,
    for the request that opens a handshake session, whether its token is still in force, for ``sessions``.
    """

    on_change: Callable[[], None] | None = None
    held: Callable[[ServerRequestContext[Any, Any]], Callable[[], bool]] | None = None
    clock: Callable[[], float] = time.monotonic
    _legacy: dict[int, _Entry] = field(default_factory=dict)
    _modern: dict[str, _Entry] = field(default_factory=dict)

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS and ctx.request_id is not None:
            return await self._modern_request(ctx, call_next)
        result = await call_next(ctx)
        if ctx.method == "notifications/initialized":
            self._add_legacy(ctx)
        return result

    # what the server and the status bar read ---------------------------------------------
    def sessions(self) -> list[ServerSession]:
        """The handshake-era sessions that can still be sent a notice (their token still in force)."""
        return [e.session for e in self._legacy.values() if e.session is not None and e.held()]

    def connected(self) -> tuple[ClientInfo, ...]:
        """Handshake sessions, open listen streams, and sessionless clients seen lately."""
        self._forget_old()
        entries = [*self._legacy.values(), *self._modern.values()]
        return tuple(e.info() for e in sorted(entries, key=lambda e: e.since))

    # handshake era -------------------------------------------------------------------------
    def _add_legacy(self, ctx: ServerRequestContext[Any, Any]) -> None:
        connection = _connection_of(ctx.session)
        key = id(connection) if connection is not None else id(ctx.session)
        params = ctx.session.client_params
        now = self.clock()
        version = client_version(params.client_info.version) if params is not None else ""
        entry = _Entry(name_of(ctx), version, ctx.session.protocol_version, now, now, session=ctx.session)
        if self.held is not None:
            entry.held = self.held(ctx)
        if connection is not None:
            connection.exit_stack.callback(self._drop_legacy, key)
        elif len(self._legacy) >= MAX_LEGACY:
            self._legacy.pop(next(iter(self._legacy)))
        self._legacy[key] = entry
        log.info("client %s %s connected (protocol %s)", entry.name, entry.version, entry.protocol)
        self._changed()

    def _drop_legacy(self, key: int) -> None:
        entry = self._legacy.pop(key, None)
        if entry is not None:
            log.info("client %s disconnected", entry.name)
            self._changed()

    # 2026-07-28 ------------------------------------------------------------------------------
    async def _modern_request(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        name = name_of(ctx)
        now = self.clock()
        entry = self._modern.get(name)
        arrived = entry is None
        if entry is None:
            if len(self._modern) >= MAX_SEEN:
                self._forget_old()
            params = ctx.session.client_params
            version = client_version(params.client_info.version) if params is not None else ""
            entry = self._modern[name] = _Entry(name, version, ctx.protocol_version, now, now)
            log.info("client %s %s seen (protocol %s)", name, version, ctx.protocol_version)
        entry.last_seen = now
        listen = ctx.method == "subscriptions/listen"
        if listen:
            entry.listens += 1
        if arrived or listen:
            self._changed()
        try:
            return await call_next(ctx)
        finally:
            if listen:
                entry.listens -= 1
                self._changed()

    def _forget_old(self) -> None:
        horizon = self.clock() - SEEN_FOR_SECONDS
        kept = {k: e for k, e in self._modern.items() if e.listens > 0 or e.last_seen >= horizon}
        while len(kept) >= MAX_SEEN:  # a flood of names within the window: the oldest go first
            kept.pop(min(kept, key=lambda k: kept[k].last_seen))
        self._modern = kept

    def _changed(self) -> None:
        if self.on_change is not None:
            try:
                self.on_change()
            except Exception:  # a status-bar listener must never break a client's request
                log.exception("client change listener failed")


def _connection_of(session: ServerSession) -> Connection | None:
    # The SDK hands handlers a per-request ServerSession and no public handle on the connection it
    # wraps; that connection's exit stack is the only hook that fires when a client goes away.
    connection = getattr(session, "_connection", None)
    return connection if isinstance(connection, Connection) else None

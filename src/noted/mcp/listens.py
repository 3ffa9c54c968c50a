"""Notice streams that end with the token that opened them.

A notice stream outlives the request that opened it, so the guard's check of the token at each
request never sees it again: a client revoked while listening, or one holding the main token
after it was replaced, would go on hearing every notice. Two kinds are kept here:

- a ``subscriptions/listen`` stream (2026-07-28) gets its own view of the one bus (``_Gate``),
  which asks at every event whether the token that opened the stream is still in force and, once
  it is not, ends the stream instead of delivering (the SDK's graceful close);
- a handshake session's silent GET (SSE) stream runs in a cancel scope (``streams``) with the
  guard's word on its token (``HELD_KEY``); ended, its response is finished, so the client sees
  the stream close, and the GET it opens again is refused.

A token holds at most ``LISTENS_PER_TOKEN`` listen streams; handshake sessions are limited per
token in ``sessions``. The server's poll, about once a second, ends the streams whose token is no
longer in force without waiting for an event (``sweep``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import anyio
from mcp.server.context import ServerRequestContext
from mcp.server.subscriptions import ListenHandler, ServerEvent, SubscriptionBus
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    SubscriptionsListenRequestParams,
    SubscriptionsListenResult,
)
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from noted.mcp.client_tokens import HELD_KEY
from noted.mcp.sessions import Principal, principal_of

log = logging.getLogger(__name__)

MAX_STREAMS = 1024
"""Listen streams open at once, at most (the SDK's own default)."""
LISTENS_PER_TOKEN = 100
"""Listen streams one token (or all requests without one) may hold open at once, so that one
client cannot take all ``MAX_STREAMS`` and leave the others deaf to notices."""


class _Gate:
    """The bus as one listen stream sees it: events pass while ``admits()`` holds."""

    def __init__(self, bus: SubscriptionBus, admits: Callable[[], bool], principal: Principal) -> None:
        self.bus = bus
        self.admits = admits
        self.principal = principal
        self.handler = ListenHandler(self)

    async def publish(self, event: ServerEvent) -> None:
        await self.bus.publish(event)

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        def deliver(event: ServerEvent) -> None:
            if self.admits():
                listener(event)
            else:
                self.close()

        return self.bus.subscribe(deliver)

    def close(self) -> None:
        self.handler.close()


class _Gets:
    """An ASGI app that runs each GET it passes to ``app`` in a cancel scope kept in ``kept`` with
    the guard's check of its token, and finishes the response of one cancelled (``Listens.sweep``)."""

    def __init__(self, app: ASGIApp, kept: dict[anyio.CancelScope, Callable[[], bool]]) -> None:
        self.app = app
        self.kept = kept

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        held = scope.get(HELD_KEY)
        if scope.get("method") != "GET" or not callable(held):
            await self.app(scope, receive, send)
            return
        started = ended = False

        async def sending(message: Message) -> None:
            nonlocal started, ended
            await send(message)
            started = started or message["type"] == "http.response.start"
            ended = message["type"] == "http.response.body" and not message.get("more_body", False)

        with anyio.CancelScope() as cancel:
            self.kept[cancel] = held
            try:
                await self.app(scope, receive, sending)
            finally:
                self.kept.pop(cancel, None)
        if cancel.cancelled_caught and started and not ended:
            await send({"type": "http.response.body", "body": b"", "more_body": False})


class Listens:
    """Serves ``subscriptions/listen`` over ``bus``; ``admits(ctx)`` gives, for the request that
    opens a stream, the check that keeps it open."""

    def __init__(
        self,
        bus: SubscriptionBus,
        admits: Callable[[ServerRequestContext[Any, Any]], Callable[[], bool]],
    ) -> None:
        self.bus = bus
        self.admits = admits
        self._gates: set[_Gate] = set()
        self._gets: dict[anyio.CancelScope, Callable[[], bool]] = {}

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], params: SubscriptionsListenRequestParams
    ) -> SubscriptionsListenResult:
        if len(self._gates) >= MAX_STREAMS:
            raise MCPError(INTERNAL_ERROR, "Subscription limit reached")
        scope = getattr(ctx.request, "scope", None)
        principal = principal_of(scope) if isinstance(scope, dict) else None
        if sum(g.principal == principal for g in self._gates) >= LISTENS_PER_TOKEN:
            log.warning("refused a listen stream: the token already holds %d", LISTENS_PER_TOKEN)
            raise MCPError(
                INVALID_REQUEST,
                f"Too many notice streams open for this token ({LISTENS_PER_TOKEN}): close one "
                "(subscriptions/listen) before opening another.",
            )
        gate = _Gate(self.bus, self.admits(ctx), principal)
        self._gates.add(gate)
        try:
            return await gate.handler(ctx, params)
        finally:
            self._gates.discard(gate)

    def streams(self, app: ASGIApp) -> ASGIApp:
        """``app`` with each GET that the guard let in (a handshake session's notice stream) kept
        here, to be ended once its token is no longer in force."""
        return _Gets(app, self._gets)

    def sweep(self) -> None:
        """End the streams whose token is no longer in force."""
        for gate in [g for g in self._gates if not g.admits()]:
            log.info("ended a listen stream: the token that opened it is no longer in force")
            gate.close()
        for cancel in [c for c, held in self._gets.items() if not held()]:
            log.info("ended a session's notice stream: the token that opened it is no longer in force")
            cancel.cancel()

    def close(self) -> None:
        """End every stream (the server is stopping)."""
        for gate in list(self._gates):
            gate.close()
        for cancel in list(self._gets):
            cancel.cancel()

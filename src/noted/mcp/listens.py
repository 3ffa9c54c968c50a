"""Notice streams that end with their client's token.

A ``subscriptions/listen`` stream (2026-07-28) outlives the request that opened it, so the
guard's check of the token at each request never sees it again: a client revoked while listening
would go on hearing every notice. Each stream here gets its own view of the one bus (``_Gate``),
which asks at every event whether the token that opened the stream is still in force
(``ClientTokens.holds``) and, once it is not, ends the stream instead of delivering (the SDK's
graceful close); the server's poll ends such streams without waiting for an event (``sweep``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.subscriptions import ListenHandler, ServerEvent, SubscriptionBus
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, SubscriptionsListenRequestParams, SubscriptionsListenResult

log = logging.getLogger(__name__)

MAX_STREAMS = 1024
"""Listen streams open at once, at most (the SDK's own default)."""


class _Gate:
    """The bus as one listen stream sees it: events pass while ``admits()`` holds."""

    def __init__(self, bus: SubscriptionBus, admits: Callable[[], bool]) -> None:
        self.bus = bus
        self.admits = admits
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

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], params: SubscriptionsListenRequestParams
    ) -> SubscriptionsListenResult:
        if len(self._gates) >= MAX_STREAMS:
            raise MCPError(INTERNAL_ERROR, "Subscription limit reached")
        gate = _Gate(self.bus, self.admits(ctx))
        self._gates.add(gate)
        try:
            return await gate.handler(ctx, params)
        finally:
            self._gates.discard(gate)

    def sweep(self) -> None:
        """End the streams whose token is no longer in force."""
        for gate in [g for g in self._gates if not g.admits()]:
            log.info("ended a listen stream: its client token was revoked")
            gate.close()

    def close(self) -> None:
        """End every stream (the server is stopping)."""
        for gate in list(self._gates):
            gate.close()

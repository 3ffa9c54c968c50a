"""How many handshake sessions one token may hold open at once over Streamable HTTP.

The SDK's session manager has one limit for everyone (``max_sessions``, 10,000 sessions): a single
client could open them all with ``initialize`` requests (45 seconds, half a gigabyte), and every
other client's ``initialize`` was then refused (503) until those sessions expired, 30 minutes later.
``SessionQuota`` sits in front of the manager and counts the sessions of each principal (what a
session is bound to: the token's ``AuthorizationContext``, as the manager compares them; all requests
without a token share one), so a client can crowd out only itself.

At its limit, a principal's next ``initialize`` closes that principal's session left idle the
longest (no request in flight, no notice stream open), with a ``DELETE`` through the manager as a
client would send, and is served. A client that restarts or crashes without ending its sessions
(most do) thus never locks itself out for half an hour, and the session closed is one nobody is
using; if it is used again it answers 404, which tells an MCP client to initialize anew. Only when
every session of the principal is busy is the ``initialize`` refused: 429 with a JSON-RPC error
(-32600, the request's own id), which the SDK's clients show as the error of their ``initialize``.

The quota learns of a session from the ``Mcp-Session-Id`` the manager answers ``initialize`` with,
and forgets it when it is deleted, when it answers 404, or once it has been idle as long as the
manager keeps an idle session. A session the manager ended by itself, and the quota still counts,
is the first one closed when room is needed; closing it again costs nothing.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, authorization_context
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from noted.mcp.options import SESSIONS_PER_TOKEN
from noted.mcp.wire import INVALID_REQUEST, Refusal

log = logging.getLogger(__name__)

SESSION_HEADER = "mcp-session-id"
VERSION_HEADER = "mcp-protocol-version"
TOO_MANY = 429

Principal = tuple[tuple[str, Any], ...] | None
"""Whom a session belongs to: the token's authorization context, or None without a token."""


@dataclass(slots=True)
class _Session:
    last: float
    """When its last request ended (or it opened)."""
    busy: int = 0
    """Its requests in flight; an open notice stream (GET) is one."""


@dataclass(slots=True)
class _Held:
    """One principal's open sessions, in the order they opened, and its ``initialize``s under way."""

    sessions: dict[str, _Session] = field(default_factory=dict)
    opening: int = 0


class SessionQuota:
    """ASGI middleware in front of the SDK's session manager: at most ``limit`` sessions a principal.

    Args:
        app: The session manager's ASGI app.
        limit: Sessions one principal may hold open at once.
        idle_seconds: How long the manager keeps a session that has no request in flight.
        clock: Monotonic seconds.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        limit: int = SESSIONS_PER_TOKEN,
        idle_seconds: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.app = app
        self.limit = limit
        self.idle_seconds = idle_seconds
        self.clock = clock
        self._held: dict[Principal, _Held] = {}

    def open_sessions(self, principal: Principal) -> int:
        """The sessions ``principal`` holds open, as the quota counts them."""
        held = self._held.get(principal)
        return 0 if held is None else len(held.sessions)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        principal = principal_of(scope)
        session_id = headers.get(SESSION_HEADER)
        if session_id is not None:
            await self._in_session(principal, session_id, scope, receive, send)
            return
        version = headers.get(VERSION_HEADER)
        if scope.get("method") != "POST" or (
            version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS
        ):
            await self.app(scope, receive, send)  # no session can open (2026-07-28 is sessionless)
            return
        body, tail = await _whole_body(receive)
        replay = _replaying(body, tail, receive)
        request = _json(body)
        if not isinstance(request, dict) or request.get("method") != "initialize":
            await self.app(scope, replay, send)
            return
        await self._opening(principal, request.get("id"), scope, replay, send)

    async def _opening(
        self, principal: Principal, request_id: Any, scope: Scope, receive: Receive, send: Send
    ) -> None:
        held = self._held.setdefault(principal, _Held())
        self._forget_idle(held)
        victim: str | None = None
        if len(held.sessions) + held.opening >= self.limit:
            victim = _longest_idle(held)
            if victim is None:
                await self._refuse(principal, request_id, scope, receive, send)
                return
            del held.sessions[victim]
        held.opening += 1  # counted before any await, so a burst of initialize cannot overshoot
        status: int | None = None
        opened: str | None = None

        async def watching(message: Message) -> None:
            nonlocal status, opened
            if message["type"] == "http.response.start":
                status = message["status"]
                opened = Headers(raw=message.get("headers", [])).get(SESSION_HEADER)
            await send(message)

        try:
            if victim is not None:
                await self._close(scope, victim)
            await self.app(scope, receive, watching)
        finally:
            held.opening -= 1
            if opened is not None and status is not None and status < 400:
                held.sessions[opened] = _Session(self.clock())
            elif not held.sessions and not held.opening:
                self._held.pop(principal, None)

    async def _in_session(
        self, principal: Principal, session_id: str, scope: Scope, receive: Receive, send: Send
    ) -> None:
        held = self._held.get(principal)
        session = held.sessions.get(session_id) if held is not None else None
        if held is None or session is None:  # not this principal's, or not one it knows: the SDK decides
            await self.app(scope, receive, send)
            return
        status: int | None = None

        async def watching(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        session.busy += 1
        try:
            await self.app(scope, receive, watching)
        finally:
            session.busy -= 1
            session.last = self.clock()
            ended = status == 404 or (scope.get("method") == "DELETE" and status is not None and status < 300)
            if ended:
                held.sessions.pop(session_id, None)

    async def _close(self, scope: Scope, session_id: str) -> None:
        """End ``session_id`` as its client would: a DELETE with its id, as the same principal."""
        log.info("closed the MCP session left idle the longest to open another of the same token")
        closing: Scope = {
            **scope,
            "method": "DELETE",
            "headers": [(SESSION_HEADER.encode(), session_id.encode())],
            "query_string": b"",
        }

        async def nothing() -> Message:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def discard(message: Message) -> None:
            return None

        await self.app(closing, nothing, discard)

    async def _refuse(
        self, principal: Principal, request_id: Any, scope: Scope, receive: Receive, send: Send
    ) -> None:
        who = "requests without a token hold" if principal is None else "this token holds"
        log.warning("refused an MCP session: the token already holds %d, all in use", self.limit)
        message = (
            f"Too many open MCP sessions: {who} {self.limit}, each with a request or notice stream "
            "under way; end one (HTTP DELETE with its Mcp-Session-Id) before opening another."
        )
        valid = request_id if isinstance(request_id, str | int) and not isinstance(request_id, bool) else None
        answer = Refusal(INVALID_REQUEST, message, valid).answer()
        await JSONResponse(answer, status_code=TOO_MANY)(scope, receive, send)

    def _forget_idle(self, held: _Held) -> None:
        """Forget the sessions idle for as long as the manager keeps one: it has ended them."""
        horizon = self.clock() - self.idle_seconds
        for key in [k for k, s in held.sessions.items() if not s.busy and s.last < horizon]:
            del held.sessions[key]


def principal_of(scope: Scope) -> Principal:
    """Whom the guard let this request in as: the token's authorization context, None without one."""
    user = scope.get("user")
    if not isinstance(user, AuthenticatedUser):
        return None
    return tuple(sorted(authorization_context(user).items()))


def _longest_idle(held: _Held) -> str | None:
    idle = [(s.last, key) for key, s in held.sessions.items() if not s.busy]
    return min(idle)[1] if idle else None


async def _whole_body(receive: Receive) -> tuple[bytes, list[Message]]:
    """The request's body (the guard has read it already, within its limits), and a message that
    came instead of more of it (a disconnect), to be handed on."""
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return bytes(body), [message]
        body.extend(message.get("body", b""))
        if not message.get("more_body", False):
            return bytes(body), []


def _replaying(body: bytes, tail: list[Message], receive: Receive) -> Receive:
    queue = [{"type": "http.request", "body": body, "more_body": False}, *tail]

    async def replay() -> Message:
        return queue.pop(0) if queue else await receive()

    return replay


def _json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        return None

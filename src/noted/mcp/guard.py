"""The checks in front of every HTTP request, before the MCP SDK sees it.

In order: ``Host``, ``Origin`` and ``Authorization`` may each come once (two would let the guard
and the app read different ones: 400); the ``Host`` header must name this server (a DNS-rebinding
page names its own domain: 421); a browser ``Origin`` must be allowed (403); on ``/mcp`` the
bearer token must match the token file, read on each request, or a named client's token (then
the request's ASGI scope carries that ``ClientToken`` under ``CLIENT_KEY``; 401 otherwise, and
once a client token has been added a token is always needed, until ``noted mcp token open``); a
body may not exceed the limit (413, saying what fits), nor come slower than ``MIN_BODY_RATE`` after
``Policy.body_timeout`` (408, closing the connection); and a body that is no JSON-RPC message, or
a request whose id is invalid, is answered here (400, -32600, see ``wire``): the SDK would take a
request with a bad id for a notification and never answer, and call the others "invalid params".
On ``/mcp`` every refusal is a JSON-RPC error (code -32600, null id), which MCP clients show.
``/healthz`` and ``/readyz`` carry no data, so they need no token; ``/readyz`` answers 503 while
the token file or the client tokens file cannot be used, as ``/mcp`` does.

A request let in with a token carries its principal as the ASGI scope's ``user`` (an
``AuthenticatedUser`` of the SDK: the client's name and token hash, or the main token's hash), so
the SDK's session manager binds each handshake session to the token that opened it and answers a
request with another token 404, as for a session that does not exist (the MCP specification's
security notes: sessions are no authentication, and a session id is bound to its user). It also
carries, under ``HELD_KEY``, whether that token would be let in now (a client token not revoked, the
main token not replaced: ``Guard.holds``), so the streams the request opens end with the token.

The OpenAPI door's paths (``Policy.token_paths``) always need the token, so the ``Host`` check,
which protects a loopback server without one, is not made there: a tunnel the person runs reaches
them under its own public name, while ``/mcp`` stays answerable on this machine's names only.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from noted.errors import ConfigError
from noted.mcp.client_tokens import CLIENT_KEY, HELD_KEY, WHAT, ClientToken, ClientTokens, digest
from noted.mcp.options import BODY_TIMEOUT, MAX_BODY, MCP_PATH, MIN_BODY_RATE
from noted.mcp.token import TokenFile
from noted.mcp.wire import INVALID_REQUEST, refusal

log = logging.getLogger(__name__)

OPEN_PATHS = frozenset({"/healthz", "/readyz"})
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})
WILDCARDS = frozenset({"0.0.0.0", "::", ""})
SINGLE_HEADERS = (b"host", b"origin", b"authorization")
"""Headers a request may carry at most once."""
READY_PATH = "/readyz"


def host_name(header: str) -> str:
    """The host part of a ``Host`` header: ``[::1]:8765`` → ``[::1]``, ``a.b:80`` → ``a.b``."""
    value = header.strip().lower()
    if value.startswith("["):
        return value[: value.find("]") + 1] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


@dataclass(frozen=True, slots=True)
class HostRule:
    """The ``Host`` values this server answers to; None accepts any (a wildcard bind, with a token)."""

    names: frozenset[str] | None

    @classmethod
    def for_bind(cls, host: str) -> HostRule:
        if host.strip() in WILDCARDS:
            return cls(None)
        bound = host.strip().lower()
        names = {bound, f"[{bound}]" if ":" in bound and not bound.startswith("[") else bound}
        return cls(frozenset(LOOPBACK_NAMES | names))

    def allows(self, header: str | None) -> bool:
        if self.names is None:
            return True
        return header is not None and host_name(header) in self.names


@dataclass(frozen=True, slots=True)
class Policy:
    """Everything the guard enforces."""

    hosts: HostRule
    origins: frozenset[str]
    """Browser origins allowed besides the server's own (``scheme://host:port``, no trailing slash)."""
    token: TokenFile | None
    max_body: int = MAX_BODY
    body_timeout: float = BODY_TIMEOUT
    """Seconds a body may take besides one per ``MIN_BODY_RATE`` bytes of it (408 after that)."""
    clients: ClientTokens | None = None
    """Named client tokens; once the file exists (the door closed), every request needs a token."""
    token_paths: tuple[str, ...] = ()
    """Path prefixes served only with a valid token, whatever the ``Host`` (the OpenAPI door)."""
    consent: Callable[[], bool] | None = None
    """Whether the person consents now to notes reaching a remote service (``ai.allowRemote``):
    the token paths exist for one, so they answer 403 while it is withdrawn. None: always."""
    actions_switch: Callable[[], bool] | None = None
    """Whether the switch that opened the token paths is on now; off, they answer 404 (as when
    the server started without them). None: they stay as the server started."""
    token_setting: Callable[[], Path | None] | None = None
    """Where ``mcp.tokenFile`` points now (the settings, re-read while serving): a token file set
    while the server runs is needed from the next request on, as a replaced one is. One unset
    while it runs leaves the token it had needed until a restart: a server never opens by itself."""
    refresh: Callable[[], None] | None = None
    """Called first at each request: reads the config file again if another process changed it, so
    the settings above are as they are now (``NotedMcp.reload_settings``)."""

    def token_only(self, path: str) -> bool:
        return any(path == p or (p.endswith("/") and path.startswith(p)) for p in self.token_paths)

    @staticmethod
    def origins_for(allowed: Iterable[str], own: Iterable[str]) -> frozenset[str]:
        return frozenset(o.strip().rstrip("/").lower() for o in [*allowed, *own] if o.strip())


class Guard:
    """ASGI middleware enforcing a ``Policy`` in front of ``app``."""

    def __init__(self, app: ASGIApp, policy: Policy) -> None:
        self.app = app
        self.policy = policy
        self._token = policy.token

    def _token_file(self) -> TokenFile | None:
        """The token file to check: the one the setting names now, once it names another.

        Raises:
            ConfigError: the file it names now cannot be used (it is tried again next time).
        """
        wanted = self.policy.token_setting() if self.policy.token_setting is not None else None
        if wanted is not None and (self._token is None or self._token.path != wanted):
            self._token = TokenFile.open(wanted)
            log.info("the token file is now %s", wanted)
        return self._token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        refusal = self._refusal(scope, headers)
        if refusal is not None:
            status, message, extra = refusal
            await _answer(send, status, message, extra, rpc=scope.get("path") == MCP_PATH)
            return
        if scope.get("method") in ("POST", "PUT", "PATCH"):
            await self._with_body_limit(scope, receive, send, headers)
            return
        await self.app(scope, receive, send)

    def _refusal(self, scope: Scope, headers: Headers) -> tuple[int, str, dict[str, str]] | None:
        policy = self.policy
        if policy.refresh is not None:
            policy.refresh()
        path = str(scope.get("path", ""))
        repeated = _repeated(scope)
        if repeated is not None:
            log.warning("refused a request carrying the %s header more than once", repeated)
            return 400, f"The request carries the {repeated} header more than once; send it once.", {}
        token_only = policy.token_only(path)
        if not token_only and not policy.hosts.allows(headers.get("host")):
            log.warning("refused a request for Host %r (DNS rebinding protection)", headers.get("host"))
            return 421, "This server does not answer to that Host name.", {}
        origin = headers.get("origin")
        if origin is not None and origin.strip().rstrip("/").lower() not in policy.origins:
            log.warning("refused a request from browser origin %r", origin)
            return (
                403,
                "Requests from this web origin are not allowed (see the setting mcp.allowedOrigins).",
                {},
            )
        if token_only and policy.token is None:
            return 503, "This part of the server needs a token file, and none is set.", {}
        if path in OPEN_PATHS and path != READY_PATH:
            return None
        refused = self._token_refusal(scope, headers, ready_check=path == READY_PATH)
        if (
            refused is None
            and token_only
            and policy.actions_switch is not None
            and not policy.actions_switch()
        ):
            return 404, "Not found.", {}  # (as when the server started without the door)
        if refused is None and token_only and policy.consent is not None and not policy.consent():
            return (  # (told only to the token's holder)
                403,
                "Remote services are not allowed (ai.allowRemote is off), so the OpenAPI actions "
                "answer nothing; nothing was done.",
                {},
            )
        return refused

    def _token_refusal(
        self, scope: Scope, headers: Headers, *, ready_check: bool
    ) -> tuple[int, str, dict[str, str]] | None:
        clients = self.policy.clients
        try:
            token = self._token_file()
            expected = token.read() if token is not None else None
        except ConfigError as exc:
            log.error("the token file can no longer be used, refusing requests: %s", exc)
            return 503, "The server's token file cannot be used; the details are in the server's log.", {}
        try:
            closed = clients.closed() if clients is not None else False
        except ConfigError as exc:
            log.error("%s can no longer be used, refusing requests: %s", WHAT, exc)
            return (
                503,
                "The server's client tokens file cannot be used; the details are in the server's log.",
                {},
            )
        if ready_check:  # /readyz only says whether /mcp could answer
            return None
        if expected is None and not closed:
            scope[HELD_KEY] = partial(self.holds, None, None)
            return None
        given = _bearer(headers.get("authorization"))
        client = clients.match(given) if given is not None and clients is not None else None
        if client is not None:
            scope[CLIENT_KEY] = client
            scope["user"] = _principal(f"client:{client.name}", client.sha256)
            scope[HELD_KEY] = partial(self.holds, client, None)
            return None
        if (
            given is not None
            and expected is not None
            and hmac.compare_digest(given.encode(), expected.encode())
        ):
            scope["user"] = _principal("main", digest(expected))
            scope[HELD_KEY] = partial(self.holds, None, digest(expected))
            return None
        why = "missing" if given is None else "wrong"
        log.warning("refused a request with a %s bearer token", why)
        challenge = {"www-authenticate": 'Bearer realm="noted"'}
        return (
            401,
            f"A valid bearer token is required (Authorization: Bearer …); this one is {why}.",
            challenge,
        )

    def holds(self, client: ClientToken | None, main: str | None) -> bool:
        """Whether a request let in with ``client``'s token, with the main token whose hash is
        ``main``, or with no token (both None) would be let in now; a file that cannot be used now
        lets in nothing. A stream such a request opened ends once it would not (``listens``)."""
        clients = self.policy.clients
        if client is not None:
            return clients is not None and clients.holds(client)
        try:
            token = self._token_file()
            expected = token.read() if token is not None else None
            closed = clients.closed() if clients is not None else False
        except ConfigError:
            return False
        if main is None:
            return expected is None and not closed
        return expected is not None and hmac.compare_digest(digest(expected), main)

    async def _with_body_limit(self, scope: Scope, receive: Receive, send: Send, headers: Headers) -> None:
        # The whole body is read before the app runs, so an oversized one is refused before any
        # JSON is parsed; a declared Content-Length is refused before anything is read at all.
        limit = self.policy.max_body
        rpc = scope.get("path") == MCP_PATH
        message_body = rpc and scope.get("method") == "POST"  # other methods get the SDK's 405
        declared = headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await _answer(send, 413, _too_large(limit, int(declared)), {}, rpc=rpc)
            return
        body = bytearray()
        tail: deque[Message] = deque()
        # A deadline that only bytes push back, at MIN_BODY_RATE: an idle timeout would let a body
        # dribbled a byte at a time hold its connection for ever (uvicorn sets none for bodies).
        grace = asyncio.get_running_loop().time() + self.policy.body_timeout
        while True:
            try:
                async with asyncio.timeout_at(grace + len(body) / MIN_BODY_RATE):
                    message = await receive()
            except TimeoutError:
                log.warning("refused a request whose body came too slowly (%d bytes so far)", len(body))
                await _answer(send, 408, _too_slow(len(body)), {"connection": "close"}, rpc=rpc)
                return
            if message["type"] != "http.request":
                tail.append(message)
                break
            body.extend(message.get("body", b""))
            if len(body) > limit:
                await _answer(send, 413, _too_large(limit, None), {}, rpc=rpc)
                return
            if not message.get("more_body", False):
                break
        refused = refusal(bytes(body)) if message_body else None
        if refused is not None:
            log.warning("answered an invalid request: %s", refused.message)
            await _send_json(send, 400, refused.answer(), {})
            return
        replay: deque[Message] = deque(
            [{"type": "http.request", "body": bytes(body), "more_body": False}, *tail]
        )

        async def replayed() -> Message:
            return replay.popleft() if replay else await receive()

        await self.app(scope, replayed, send)


def _principal(client_id: str, token_hash: str) -> AuthenticatedUser:
    """Who a token is, as the SDK compares the opener of a session with each later request."""
    return AuthenticatedUser(AccessToken(token="", client_id=client_id, scopes=[], subject=token_hash))


def _bearer(header: str | None) -> str | None:
    if header is None:
        return None
    scheme, _, value = header.strip().partition(" ")
    if scheme.lower() != "bearer":
        return None
    return value.strip() or None


def _too_large(limit: int, size: int | None) -> str:
    got = f"{size:,} bytes" if size is not None else f"more than {limit:,} bytes"
    return (
        f"The request body is too large ({got}). At most {limit // (1024 * 1024)} MiB ({limit:,} bytes) "
        "fits in one request, base64 included: that holds one attachment of up to 10 MiB; send "
        "several files in separate calls, and a large note in parts (create it, then append)."
    )


def _too_slow(received: int) -> str:
    return (
        f"The request body came too slowly ({received:,} bytes before the server gave up); "
        f"send it at once: at least {MIN_BODY_RATE // 1024} KiB a second on average."
    )


def _repeated(scope: Scope) -> str | None:
    """The name of a header that may come once and came more often, or None."""
    seen: set[bytes] = set()
    for name, _ in scope.get("headers", ()):
        lower = bytes(name).lower()
        if lower in SINGLE_HEADERS:
            if lower in seen:
                return lower.decode().title()
            seen.add(lower)
    return None


async def _answer(send: Send, status: int, message: str, extra: dict[str, str], *, rpc: bool = False) -> None:
    """A refusal: ``{"error": message}``, or with ``rpc`` a JSON-RPC error (what MCP clients show)."""
    if rpc:
        error = {"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": message}}
        await _send_json(send, status, error, extra)
    else:
        await _send_json(send, status, {"error": message}, extra)


async def _send_json(send: Send, status: int, payload: object, extra: dict[str, str]) -> None:
    body = json.dumps(payload).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(k.encode(), v.encode()) for k, v in extra.items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})

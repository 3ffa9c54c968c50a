"""Streamable HTTP on uvicorn: ``http://127.0.0.1:PORT/mcp``, plus ``/healthz`` and ``/readyz``, and
with ``HttpOptions.actions`` the OpenAPI door (``/openapi.json``, ``/actions/{tool}``, see ``actions``).

Both protocol generations share the one endpoint: the SDK's session manager serves handshake-era
clients with sessions (``Mcp-Session-Id``, a GET stream for notices) and routes 2026-07-28
requests (``MCP-Protocol-Version: 2026-07-28``) to its sessionless single-exchange path. Every
request passes ``Guard`` first (Host, Origin, bearer token, body size), then ``SessionQuota`` (how
many sessions one token holds open).

``HttpServer`` runs uvicorn as a task in the caller's event loop on a socket it binds itself, so
a port in use is a clear error rather than an exit, port 0 picks a free port, and nothing touches
the process's signal handlers (the CLI installs its own; the TUI keeps Textual's). uvicorn's
``http`` option gets ``HeaderDeadline``, its h11 protocol with a deadline for request headers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import AsyncIterator, Generator

import h11
import uvicorn
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp
from uvicorn.protocols.http.h11_impl import H11Protocol

from noted.errors import UnavailableError
from noted.mcp.actions import ACTIONS_ROUTE, TOKEN_PATHS, Actions
from noted.mcp.guard import READY_PATH, Guard, HostRule, Policy
from noted.mcp.options import MCP_PATH, OPENAPI_PATH, SESSIONS_PER_TOKEN, HttpOptions
from noted.mcp.server import NotedMcp
from noted.mcp.sessions import SessionQuota
from noted.settings.handles import MCP_TOKEN_FILE

log = logging.getLogger(__name__)

SESSION_IDLE_SECONDS = 30 * 60.0
STARTUP_TIMEOUT = 15.0
STOP_TIMEOUT = 10.0


def build_app(
    mcp: NotedMcp, policy: Policy, *, actions: bool = False, sessions_per_token: int = SESSIONS_PER_TOKEN
) -> ASGIApp:
    """The ASGI app: ``Guard`` in front of ``/mcp`` (the SDK's session manager, behind
    ``SessionQuota``), the health routes and, with ``actions``, the OpenAPI door (``mcp.actions``)
    on the same registry."""
    manager = StreamableHTTPSessionManager(
        app=mcp.server,
        json_response=True,
        max_request_body_size=policy.max_body,
        session_idle_timeout=SESSION_IDLE_SECONDS,
    )

    sdk = mcp.listen.streams(StreamableHTTPASGIApp(manager))

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        async with manager.run(), mcp.running():
            yield

    routes = [
        Route(
            MCP_PATH, endpoint=SessionQuota(sdk, limit=sessions_per_token, idle_seconds=SESSION_IDLE_SECONDS)
        ),
        Route("/healthz", endpoint=_healthy, methods=["GET"]),
        Route(READY_PATH, endpoint=_healthy, methods=["GET"]),
    ]
    if actions:
        door = Actions(mcp.deps, mcp.call_context)
        routes += [
            Route(OPENAPI_PATH, endpoint=door.openapi, methods=["GET"]),
            Route(ACTIONS_ROUTE, endpoint=door.call, methods=["POST"]),
        ]
    return Guard(Starlette(routes=routes, lifespan=lifespan), policy)


class HttpServer:
    """uvicorn serving one ``NotedMcp`` as a task of the running event loop."""

    def __init__(self, mcp: NotedMcp, options: HttpOptions) -> None:
        self.mcp = mcp
        self.options = options
        self._server: _Uvicorn | None = None
        self._task: asyncio.Task[None] | None = None
        self._port: int | None = None
        self._failure: BaseException | None = None

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    @property
    def failure(self) -> BaseException | None:
        """What stopped the server when it stopped by itself (it is also in the log)."""
        return self._failure

    @property
    def port(self) -> int | None:
        """The port bound (the one chosen when asked for port 0), once started."""
        return self._port

    @property
    def url(self) -> str | None:
        """The endpoint's URL for a client on this machine, once started."""
        return None if self._port is None else self.options.client_url(self._port)

    @property
    def openapi_url(self) -> str | None:
        """Where the OpenAPI document is, once started with actions on."""
        if self._port is None or not self.options.actions:
            return None
        return self.options.openapi_url(self._port)

    async def start(self) -> None:
        """Check the options, bind, and serve until ``stop``; returns once requests are answered.

        Raises:
            ConfigError: the token file is unusable, or a non-loopback host has no token.
            UnavailableError: the address cannot be bound (port in use…) or the server did not start.
        """
        if self.running:
            return
        token = self.options.open_token()
        clients = self.options.open_clients()
        await asyncio.to_thread(self.mcp.settle, clients)  # reads the store: off the loop (the app's)
        sock = _bind(self.options.host, self.options.port)
        self._port = sock.getsockname()[1]
        own = [f"http://{name}:{self._port}" for name in ("127.0.0.1", "localhost", "[::1]")]
        policy = Policy(
            hosts=HostRule.for_bind(self.options.host),
            origins=Policy.origins_for(self.options.allowed_origins, own),
            token=token,
            clients=clients,
            max_body=self.options.max_body,
            body_timeout=self.options.body_timeout,
            token_paths=TOKEN_PATHS if self.options.actions else (),
            token_setting=lambda: self.mcp.deps.settings.get_path(MCP_TOKEN_FILE),
            consent=self.options.consent,
            actions_switch=self.options.actions_switch,
            refresh=self.mcp.reload_settings,
        )
        config = uvicorn.Config(
            build_app(
                self.mcp,
                policy,
                actions=self.options.actions,
                sessions_per_token=self.options.sessions_per_token,
            ),
            log_config=None,
            access_log=False,
            lifespan="on",
            ws="none",
            server_header=False,
            timeout_graceful_shutdown=1,
            http=HeaderDeadline.after(self.options.header_timeout),
        )
        self._server = _Uvicorn(config)
        self._failure = None
        self._task = asyncio.create_task(self._serve(self._server, sock), name="noted-mcp-http")
        await self._wait_started(self._server, self._task)
        required = token is not None or (clients is not None and clients.closed())
        log.info(
            "MCP server listening on %s (token %s)", self.url, "required" if required else "not required"
        )
        if self.options.actions:
            log.info("OpenAPI actions on: %s", self.openapi_url)

    async def wait(self) -> None:
        """Until the server stops (``stop``, or a failure)."""
        if self._task is not None:
            await asyncio.shield(self._task)

    async def stop(self) -> None:
        """Stop answering, end listen streams, close connections (open streams after a second)."""
        task, server = self._task, self._server
        if task is None or server is None:
            return
        server.should_exit = True
        self.mcp.listen.close()
        try:
            await asyncio.wait_for(asyncio.shield(task), STOP_TIMEOUT)
        except TimeoutError:
            server.force_exit = True
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._task = None
        log.info("MCP server stopped")

    async def _serve(self, server: _Uvicorn, sock: socket.socket) -> None:
        try:
            await server.serve(sockets=[sock])
        except (SystemExit, Exception) as exc:  # uvicorn exits the process on a failed startup
            self._failure = exc
            log.error("the MCP HTTP server stopped: %r", exc)
        finally:
            sock.close()

    async def _wait_started(self, server: _Uvicorn, task: asyncio.Task[None]) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + STARTUP_TIMEOUT
        while not server.started:
            if task.done() or loop.time() > deadline:
                await self.stop()
                raise UnavailableError(
                    f"the MCP server did not start on {self.options.host}:{self._port}",
                    hint="the details are in the log",
                )
            await asyncio.sleep(0.01)


class HeaderDeadline(H11Protocol):
    """uvicorn's h11 protocol, closing a connection that has not sent a request's headers in time.

    uvicorn times out only a kept-alive connection that stays idle after a response; one that is
    opened and sends nothing, or part of its headers, is held for ever, and enough of them use up
    the process's file descriptors (slowloris, by anything that can reach the port). The deadline
    starts when the connection opens, or when the first bytes of the next request arrive, and is
    not pushed back by more bytes: a client dribbling its headers gets no longer than one that
    sends nothing.
    """

    header_timeout = 10.0
    _deadline: asyncio.TimerHandle | None = None

    @classmethod
    def after(cls, seconds: float) -> type[HeaderDeadline]:
        """This protocol with a deadline of ``seconds`` (uvicorn builds one per connection)."""
        return type("HeaderDeadline", (cls,), {"header_timeout": seconds})

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._awaiting_headers():
            self._arm()
        else:
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _awaiting_headers(self) -> bool:
        between = self.cycle is None or self.cycle.response_complete
        return between and self.conn.their_state is h11.IDLE and not self.transport.is_closing()

    def _arm(self) -> None:
        if self._deadline is None and self._awaiting_headers():
            self._deadline = self.loop.call_later(self.header_timeout, self._expire)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self) -> None:
        self._deadline = None
        if self._awaiting_headers():
            log.info("closed a connection that sent no complete request headers in %ss", self.header_timeout)
            self.transport.close()


class _Uvicorn(uvicorn.Server):
    """uvicorn that leaves the process's signal handlers alone (the caller owns them)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        yield


async def _healthy(request: Request) -> JSONResponse:
    return JSONResponse({"ok": True})


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP, not the default 0: asyncio sets TCP_NODELAY on an accepted connection only when
    # the socket says it is TCP, and without it every reply after the first on a kept-alive
    # connection waited ~40 ms (Nagle's algorithm meeting the client's delayed ACK).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        raise UnavailableError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}",
            hint="pick another port with --port or the setting mcp.port",
        ) from None
    return sock

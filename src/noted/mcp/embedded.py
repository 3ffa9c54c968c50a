"""The MCP server inside the TUI: HTTP as a background task of the app's event loop.

It shares the app's services (one store connection set, one ``Settings``, one registry), so a
switch flipped in the app's settings screen reaches connected AI apps at once. The status bar
reads ``state`` (or gets it pushed through ``on_state``)::

    mcp = EmbeddedMcpServer(McpDeps.of(services), on_state=lambda s: app.post_message(McpStateChanged(s)))
    await mcp.apply_settings()     # on mount: starts it when mcp.enabled is on
    ...
    await mcp.stop()               # on unmount
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass

from noted.errors import NotedError
from noted.mcp.clients import ClientInfo
from noted.mcp.deps import McpDeps
from noted.mcp.http import HttpServer
from noted.mcp.logs import send_library_logs_to_noted
from noted.mcp.options import HttpOptions
from noted.mcp.server import NotedMcp
from noted.settings.handles import MCP_ENABLED

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class McpState:
    """What the status bar shows."""

    running: bool
    url: str | None = None
    clients: tuple[ClientInfo, ...] = ()
    token_required: bool = False
    error: str | None = None
    """Why the last start failed (port in use, a bad token file…), for the person to fix."""


class EmbeddedMcpServer:
    """An HTTP MCP server that the caller starts and stops in its own event loop.

    Args:
        deps: The caller's parts, shared with the server.
        options: Where to listen; by default read from settings at each ``start``.
        on_state: Called on the event loop whenever ``state`` changes.
        poll_seconds: How often the server re-reads the config file (0 when the caller reloads
            the shared ``Settings`` itself).
    """

    def __init__(
        self,
        deps: McpDeps,
        *,
        options: HttpOptions | None = None,
        on_state: Callable[[McpState], None] | None = None,
        poll_seconds: float = 1.0,
    ) -> None:
        self.deps = deps
        self.options = options
        self.on_state = on_state
        self.poll_seconds = poll_seconds
        self._http: HttpServer | None = None
        self._mcp: NotedMcp | None = None
        self._error: str | None = None

    @property
    def running(self) -> bool:
        return self._http is not None and self._http.running

    @property
    def url(self) -> str | None:
        return self._http.url if self._http is not None and self.running else None

    @property
    def state(self) -> McpState:
        http, mcp = self._http, self._mcp
        if http is None or mcp is None or not http.running:
            return McpState(running=False, error=self._error)
        try:
            token = http.options.token_required()
        except NotedError:  # an unusable clients file: requests are refused, so a token is needed
            token = True
        return McpState(running=True, url=http.url, clients=mcp.connected(), token_required=token)

    async def start(self) -> None:
        """Start serving (no-op when running).

        Raises:
            NotedError: it cannot start; the reason is also kept in ``state.error``.
        """
        if self.running:
            return
        send_library_logs_to_noted()  # a library's warning on stderr would scribble over the screen
        options = self.options or HttpOptions.from_settings(self.deps.settings)
        mcp = NotedMcp(self.deps, poll_seconds=self.poll_seconds, on_clients=self._emit)
        http = HttpServer(mcp, options)
        try:
            await http.start()
        except NotedError as exc:
            self._error = str(exc)
            log.error("the MCP server did not start: %s", exc)
            self._emit()
            raise
        self._http, self._mcp, self._error = http, mcp, None
        self._emit()

    async def stop(self) -> None:
        """Stop serving (no-op when stopped); connected clients are disconnected."""
        http = self._http
        self._http = self._mcp = None
        if http is not None:
            await http.stop()
            self._emit()

    async def apply_settings(self) -> None:
        """Start or stop to follow ``mcp.enabled``; a failed start is kept in ``state.error``."""
        wanted = self.deps.settings.get(MCP_ENABLED)
        if wanted and not self.running:
            with contextlib.suppress(NotedError):  # already in state.error for the status bar
                await self.start()
        elif not wanted and self.running:
            await self.stop()

    def _emit(self) -> None:
        if self.on_state is None:
            return
        try:
            self.on_state(self.state)
        except Exception:  # the status bar must never take the server down
            log.exception("the MCP state listener failed")

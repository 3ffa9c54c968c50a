"""Where and how the HTTP server listens; importing this loads no part of the MCP SDK.

Kept apart from ``http`` so ``noted mcp config`` and the TUI's settings screen can read the options
without paying for the SDK's import (seconds of CPU).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from noted.errors import ConfigError
from noted.mcp.client_tokens import ClientTokens
from noted.mcp.token import TokenFile
from noted.settings import ResolvedSetting, Settings
from noted.settings.handles import (
    AI_ALLOW_REMOTE,
    MCP_ACTIONS_ENABLED,
    MCP_ALLOWED_ORIGINS,
    MCP_HOST,
    MCP_PORT,
    MCP_TOKEN_FILE,
)

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
MCP_PATH = "/mcp"
MAX_BODY = 16 * 1024 * 1024
"""The largest request body the HTTP server takes (16 MiB)."""
HEADER_TIMEOUT = 10.0
"""Seconds a connection has to send a request's headers before it is closed."""
BODY_TIMEOUT = 10.0
"""Seconds a request's body may take besides one per ``MIN_BODY_RATE`` bytes of it."""
MIN_BODY_RATE = 16 * 1024
"""Bytes a second a request's body must arrive at, on average, after ``BODY_TIMEOUT``."""
OPENAPI_PATH = "/openapi.json"
SESSIONS_PER_TOKEN = 100
"""Handshake sessions one token (or all requests without one) may hold open at once
(``sessions.SessionQuota``): past it, its session idle the longest is closed."""


def is_loopback(host: str) -> bool:
    """Whether binding to ``host`` keeps the server on this machine."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True, slots=True)
class HttpOptions:
    """Where and how the HTTP server listens."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    token_file: Path | None = None
    token_refused: str | None = None
    """``mcp.tokenFile`` as the config file holds it, when that is refused (``""``): the server
    does not start, rather than start without a token (``Setting.closed``)."""
    allowed_origins: tuple[str, ...] = ()
    max_body: int = MAX_BODY
    actions: bool = False
    """Also serve the OpenAPI door (``/openapi.json``, ``/actions/{tool}``)."""
    clients_file: Path | None = None
    """The named client tokens (``mcp-clients.json`` beside the config file); None: none."""
    header_timeout: float = HEADER_TIMEOUT
    """Seconds a connection may take to send a request's headers (``http.HeaderDeadline``)."""
    body_timeout: float = BODY_TIMEOUT
    """Seconds a request may take to send its body, besides one per ``MIN_BODY_RATE`` bytes of it
    (``guard.Guard``): a body dribbled in slower than that is refused and its connection closed."""
    sessions_per_token: int = SESSIONS_PER_TOKEN
    """Handshake sessions one token may hold open at once (``sessions.SessionQuota``)."""
    allow_remote: bool = False
    """The person's consent (``ai.allowRemote``) to notes reaching a remote service; the OpenAPI
    door exists for remote services, so it does not start without it."""
    consent: Callable[[], bool] | None = None
    """The consent now (the settings, re-read while serving; None: ``allow_remote`` as it is):
    withdrawn while the door serves, its next request is refused."""
    actions_switch: Callable[[], bool] | None = None
    """``mcp.actions.enabled`` now, when it (not ``--actions``) opened the door: switched off while
    the door serves, the door answers as absent from the next request on."""

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        *,
        host: str | None = None,
        port: int | None = None,
        actions: bool | None = None,
    ) -> HttpOptions:
        """The options of ``mcp.host``, ``mcp.port``, ``mcp.tokenFile``, ``mcp.allowedOrigins``,
        ``mcp.actions.enabled`` and ``ai.allowRemote``, with ``host``, ``port`` and ``actions``
        (from the command line: ``--actions``) taking precedence."""
        return cls(
            host=host or settings.get(MCP_HOST) or DEFAULT_HOST,
            port=settings.get(MCP_PORT) if port is None else port,
            token_file=settings.get_path(MCP_TOKEN_FILE),
            token_refused=_refused(settings.resolve(MCP_TOKEN_FILE)),
            allowed_origins=settings.get(MCP_ALLOWED_ORIGINS),
            clients_file=ClientTokens.beside(settings.path).path,
            actions=settings.get(MCP_ACTIONS_ENABLED) if actions is None else actions,
            allow_remote=settings.get(AI_ALLOW_REMOTE),
            consent=lambda: settings.get(AI_ALLOW_REMOTE),
            actions_switch=(lambda: settings.get(MCP_ACTIONS_ENABLED)) if actions is None else None,
        )

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)

    def client_url(self, port: int | None = None) -> str:
        """The URL a client on this machine uses (a wildcard bind is reached on loopback)."""
        host = self.host.strip()
        shown = "127.0.0.1" if host in ("0.0.0.0", "") else ("::1" if host == "::" else host.strip("[]"))
        shown = f"[{shown}]" if ":" in shown else shown
        return f"http://{shown}:{self.port if port is None else port}{MCP_PATH}"

    def openapi_url(self, port: int | None = None) -> str:
        """Where a client on this machine fetches the OpenAPI document (when ``actions`` is on)."""
        return self.client_url(port).removesuffix(MCP_PATH) + OPENAPI_PATH

    def open_token(self) -> TokenFile | None:
        """Check the token file, and refuse to expose notes beyond this machine without one.

        Raises:
            ConfigError: the token file is unusable (the reason is named), the host is not
                loopback and no token file is set, or the OpenAPI door is asked for without the
                person's consent or without a token (see ``check_actions``).
        """
        if self.token_refused is not None:
            raise ConfigError(
                f"{MCP_TOKEN_FILE.key} = {self.token_refused} in the config file is refused, so the MCP "
                "server does not start",
                hint=f"`noted mcp token` sets a token file; `noted config unset {MCP_TOKEN_FILE.key}` removes it",
            )
        if self.actions:
            self.check_actions()
        token = TokenFile.open(self.token_file) if self.token_file is not None else None
        if token is None and not self.loopback and not self.door_closed():
            raise ConfigError(
                f"listening on {self.host} would let other machines reach your notes, and no token is set",
                hint="create a token with `noted mcp token` (it sets mcp.tokenFile), or listen on 127.0.0.1",
            )
        return token

    def open_clients(self) -> ClientTokens | None:
        """The named client tokens, checked now (None when there is no clients file to watch).

        Raises:
            ConfigError: the clients file is unsafe or unreadable.
        """
        if self.clients_file is None:
            return None
        clients = ClientTokens(self.clients_file)
        clients.entries()
        return clients

    def door_closed(self) -> bool:
        """Whether the clients file makes every request need a token (``ClientTokens.closed``)."""
        clients = self.open_clients()
        return clients is not None and clients.closed()

    def token_required(self) -> bool:
        """Whether every HTTP request needs a token: a token file is set, or the door is closed."""
        return self.token_file is not None or self.door_closed()

    def check_actions(self) -> None:
        """Refuse the OpenAPI door without consent (``ai.allowRemote``) or without a token file.

        Raises:
            ConfigError: saying which is missing and the command that gives it.
        """
        if not self.allow_remote:
            raise ConfigError(
                "the OpenAPI actions (/openapi.json, /actions/…) exist to let a remote service such as "
                "ChatGPT read and change your notes, and remote services are not allowed (ai.allowRemote "
                "is off)",
                hint="if you consent, run `noted config set ai.allowRemote true`; or serve without "
                "--actions and with mcp.actions.enabled off",
            )
        if self.token_file is None:
            raise ConfigError(
                "the OpenAPI actions need a bearer token, and none is set",
                hint="create one with `noted mcp token` (it sets mcp.tokenFile)",
            )


def _refused(entry: ResolvedSetting) -> str | None:
    return entry.shown() if entry.written is not None else None

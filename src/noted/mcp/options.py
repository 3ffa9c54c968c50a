"""Where and how the HTTP server listens; importing this loads no part of the MCP SDK.

Kept apart from ``http`` so ``noted mcp config`` and the TUI's settings screen can read the options
without paying for the SDK's import (seconds of CPU).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path

from noted.errors import ConfigError
from noted.mcp.token import TokenFile
from noted.settings import Settings

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
MCP_PATH = "/mcp"
MAX_BODY = 16 * 1024 * 1024
"""The largest request body the HTTP server takes (16 MiB)."""


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
    allowed_origins: tuple[str, ...] = ()
    max_body: int = MAX_BODY

    @classmethod
    def from_settings(
        cls, settings: Settings, *, host: str | None = None, port: int | None = None
    ) -> HttpOptions:
        """The options of ``mcp.host``, ``mcp.port``, ``mcp.tokenFile`` and ``mcp.allowedOrigins``,
        with ``host`` and ``port`` (from the command line) taking precedence."""
        return cls(
            host=host or settings.get_str("mcp.host") or DEFAULT_HOST,
            port=settings.get_int("mcp.port") if port is None else port,
            token_file=settings.get_path("mcp.tokenFile"),
            allowed_origins=settings.get_list("mcp.allowedOrigins"),
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

    def open_token(self) -> TokenFile | None:
        """Check the token file, and refuse to expose notes beyond this machine without one.

        Raises:
            ConfigError: the token file is unusable (the reason is named), or the host is not
                loopback and no token file is set.
        """
        token = TokenFile.open(self.token_file) if self.token_file is not None else None
        if token is None and not self.loopback:
            raise ConfigError(
                f"listening on {self.host} would let other machines reach your notes, and no token is set",
                hint="create a token with `noted mcp token` (it sets mcp.tokenFile), or listen on 127.0.0.1",
            )
        return token

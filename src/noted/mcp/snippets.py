"""The exact configuration each AI app needs to reach noted (``noted mcp config CLIENT``).

Each client gets two forms: **stdio** (the app starts ``noted … mcp serve --stdio`` itself, with
this profile; nothing listens on a port) and **HTTP** (the app connects to a running ``noted mcp
serve`` or the TUI's embedded server). Commands are absolute paths because AI apps start servers
with a minimal ``PATH``. A token is never printed unless asked: where the app can read it from the
environment the snippet names ``NOTED_MCP_TOKEN``; elsewhere it says which file holds it. For a named
client (``--client``) the HTTP form needs that client's token, which noted keeps only as a hash: the
snippet leaves a place for it and says which one goes there, never the main token (whose scope is
every notebook).
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomlkit

CLIENTS = ("claude", "cursor", "zed", "codex")
SERVER_KEY = "noted"
TOKEN_VARIABLE = "NOTED_MCP_TOKEN"


@dataclass(frozen=True, slots=True)
class Snippet:
    """One piece of configuration and where it goes."""

    client: str
    transport: str
    """``stdio`` or ``http``."""
    where: str
    text: str


@dataclass(frozen=True, slots=True)
class Target:
    """What the snippets point at."""

    command: tuple[str, ...]
    """The stdio command line, program first."""
    url: str
    token_file: Path | None = None
    token: str | None = None
    """The token itself, only when the person asked to see it (``--show-token``)."""
    client: str | None = None
    """A named client token: the HTTP form needs its token, not the main one."""

    @property
    def needs_header(self) -> bool:
        """Whether the HTTP form sends a bearer token."""
        return self.token_file is not None or self.client is not None

    def token_source(self) -> str:
        """Which token the HTTP form needs, in words."""
        if self.client is not None:
            return f"the token `noted mcp token add {self.client}` printed for the client {self.client}"
        return f"the content of {self.token_file}"

    def placeholder(self) -> str:
        """What stands for the token in a snippet that cannot read it from a file or a variable."""
        if self.client is not None:
            return f"<the token of the client {self.client}>"
        return f"<the token in {self.token_file}>"


def stdio_command(profile: Path, client: str | None = None) -> tuple[str, ...]:
    """``noted --profile DIR mcp serve --stdio [--client NAME]`` with ``noted`` as an absolute path
    (or this Python)."""
    found = shutil.which("noted")
    program = [str(Path(found).resolve())] if found else [sys.executable, "-m", "noted"]
    named = ("--client", client) if client else ()
    return (*program, "--profile", str(profile), "mcp", "serve", "--stdio", *named)


def snippets(client: str, target: Target) -> list[Snippet]:
    """The stdio and HTTP snippets for ``client`` (one of ``CLIENTS``)."""
    builders = {"claude": _claude, "cursor": _cursor, "zed": _zed, "codex": _codex}
    if client not in builders:
        raise ValueError(f"unknown client {client!r}; one of {', '.join(CLIENTS)}")
    return builders[client](target)


def _claude(t: Target) -> list[Snippet]:
    program, *args = t.command
    desktop = _json({"mcpServers": {SERVER_KEY: {"command": program, "args": args}}})
    add_stdio = shlex.join(["claude", "mcp", "add", SERVER_KEY, "--", *t.command])
    add_http = ["claude", "mcp", "add", "--transport", "http", SERVER_KEY, t.url]
    http = shlex.join(add_http)
    where = "Claude Code: run in a shell (the server must be running)"
    if t.token is not None or (t.token_file is not None and t.client is None):
        value = t.token or f"$(cat {shlex.quote(str(t.token_file))})"
        http += f' --header "Authorization: Bearer {value}"'
    elif t.client is not None:
        http += f' --header "Authorization: Bearer {t.placeholder()}"'
        where += f"; replace the placeholder with {t.token_source()}"
    return [
        Snippet(
            "claude",
            "stdio",
            "Claude Desktop: claude_desktop_config.json (Settings → Developer → Edit Config), merged into "
            "the existing mcpServers; Claude Code: run the second form",
            f"{desktop}\n\n{add_stdio}",
        ),
        Snippet("claude", "http", where, http),
    ]


def _cursor(t: Target) -> list[Snippet]:
    program, *args = t.command
    where = "~/.cursor/mcp.json (all projects) or .cursor/mcp.json (one project), merged into mcpServers"
    entry: dict[str, Any] = {"url": t.url}
    if t.needs_header:
        entry["headers"] = {"Authorization": f"Bearer {t.token or '${env:' + TOKEN_VARIABLE + '}'}"}
    return [
        Snippet(
            "cursor", "stdio", where, _json({"mcpServers": {SERVER_KEY: {"command": program, "args": args}}})
        ),
        Snippet("cursor", "http", where + _env_note(t), _json({"mcpServers": {SERVER_KEY: entry}})),
    ]


def _zed(t: Target) -> list[Snippet]:
    program, *args = t.command
    where = "Zed settings.json (zed: open settings), merged into context_servers"
    stdio = {
        "context_servers": {SERVER_KEY: {"source": "custom", "command": program, "args": args, "env": {}}}
    }
    entry: dict[str, Any] = {"source": "custom", "url": t.url}
    note = ""
    if t.needs_header:
        entry["headers"] = {"Authorization": f"Bearer {t.token or t.placeholder()}"}
        note = "" if t.token else f"; replace the placeholder with {t.token_source()}"
    return [
        Snippet("zed", "stdio", where, _json(stdio)),
        Snippet("zed", "http", where + note, _json({"context_servers": {SERVER_KEY: entry}})),
    ]


def _codex(t: Target) -> list[Snippet]:
    program, *args = t.command
    where = "~/.codex/config.toml (or .codex/config.toml in a trusted project)"
    http: dict[str, Any] = {"url": t.url}
    if t.needs_header:
        http["bearer_token_env_var"] = TOKEN_VARIABLE
    return [
        Snippet("codex", "stdio", where, _toml({"command": program, "args": args})),
        Snippet("codex", "http", where + _env_note(t, always=True), _toml(http)),
    ]


def _env_note(t: Target, *, always: bool = False) -> str:
    if not t.needs_header or (t.token and not always):
        return ""
    return f"; start the app with {TOKEN_VARIABLE} set to {t.token_source()}"


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def _toml(server: dict[str, Any]) -> str:
    return f"[mcp_servers.{SERVER_KEY}]\n" + tomlkit.dumps(server).strip()


def render(items: Sequence[Snippet]) -> str:
    """The snippets as text for a terminal, each under a heading saying where it goes."""
    blocks = [f"# {s.client}, {s.transport}: {s.where}\n{s.text}" for s in items]
    return "\n\n".join(blocks)

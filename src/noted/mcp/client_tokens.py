"""Named client tokens: each AI app its own bearer token, notebooks and tools.

``noted mcp token add claude --notebooks Work --tools read`` writes a new random token for the
client "claude" and prints it once; the file keeps only its SHA-256, with the client's notebook
allowlist and tool set. Both narrow what the global settings allow and never widen it: the tools
are those switched on (``ai.tool.*``) *and* in the client's set, the notebooks those of
``mcp.allowedNotebooks`` *and* of the client's list. The client's writes are recorded under the
actor ``mcp:<name>`` (the token's name, not whatever the app calls itself).

The file (``mcp-clients.json`` beside ``config.toml``, mode 0600) is checked like the token file
(no symlink, owned by this user, private) and re-read whenever it changes, so ``revoke`` takes
effect at the next request, without a restart. Once any client token exists, every HTTP request
must carry a valid token: an open loopback door beside scoped tokens would make the scopes moot.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import threading
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from noted.errors import ConfigError, InvalidInputError, write_fault
from noted.mcp.token import TOKEN_BYTES, check_private_file, stat_of

if TYPE_CHECKING:  # kept out at run time: ``noted mcp token`` need not load the tools
    from noted.tools.base import Tool
    from noted.tools.scope import Scope

CLIENTS_FILE = "mcp-clients.json"
READ = "read"
"""In a tool set: every tool that only reads."""
ALL = "all"
"""In a tool set: every tool switched on."""
ACTOR_PREFIX = "mcp:"
CLIENT_KEY = "noted.client"
"""Where the guard puts the ``ClientToken`` of an HTTP request, in its ASGI scope."""
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def digest(token: str) -> str:
    """The SHA-256 of a token, as the file keeps it."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class ClientToken:
    """One named client: what its token may reach."""

    name: str
    sha256: str
    notebooks: tuple[str, ...] = ()
    """Notebook ids or titles (and everything below them); empty: all that the settings allow."""
    tools: tuple[str, ...] = (ALL,)
    """Tool names, ``read`` or ``all``."""
    created: str = ""

    @property
    def actor(self) -> str:
        return ACTOR_PREFIX + self.name

    def allows(self, tool: Tool) -> bool:
        """Whether this client may use ``tool`` (when it is switched on)."""
        return ALL in self.tools or tool.name in self.tools or (READ in self.tools and not tool.is_write)

    def scope(self, base: Scope) -> Scope:
        """``base`` (``mcp.allowedNotebooks``) narrowed to this client's notebooks."""
        return base.narrowed(self.notebooks)

    def summary(self) -> dict[str, Any]:
        """What ``noted mcp token list`` shows (never the token or its hash)."""
        return {
            "name": self.name,
            "notebooks": list(self.notebooks) or ["(all allowed)"],
            "tools": list(self.tools),
            "created": self.created,
        }


@dataclass
class ClientTokens:
    """The clients file; ``entries`` re-reads it when it changed."""

    path: Path
    _stamp: tuple[int, int, int, int] | None = field(default=None, init=False, repr=False)
    _entries: tuple[ClientToken, ...] = field(default=(), init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    @classmethod
    def beside(cls, config_path: Path) -> ClientTokens:
        """The clients file of the profile whose config file is ``config_path``."""
        return cls(config_path.with_name(CLIENTS_FILE))

    def entries(self) -> tuple[ClientToken, ...]:
        """The clients now (none when the file does not exist).

        Raises:
            ConfigError: the file is unsafe (a link, not private, another user's) or unreadable.
        """
        if not os.path.lexists(self.path):
            self._stamp, self._entries = None, ()
            return ()
        info = stat_of(self.path)
        stamp = (info.st_ino, info.st_size, info.st_mtime_ns, info.st_mode)
        with self._lock:
            if stamp != self._stamp:
                check_private_file(self.path, info)
                self._entries = _parse(self.path)
                self._stamp = stamp
            return self._entries

    def match(self, token: str) -> ClientToken | None:
        """The client whose token this is, or None (compared in constant time)."""
        given = digest(token)
        found = None
        for entry in self.entries():
            if hmac.compare_digest(given, entry.sha256):
                found = entry
        return found

    def get(self, name: str) -> ClientToken | None:
        return next((e for e in self.entries() if e.name == name), None)

    def add(self, name: str, *, notebooks: Iterable[str] = (), tools: Iterable[str] = (ALL,)) -> str:
        """Add a client with a new random token and return the token (shown once, never stored).

        Raises:
            InvalidInputError: the name is malformed or taken, or the tool set is empty.
            ConfigError: the file cannot be read.
            StorageError: it cannot be written (a full disk, a folder that refuses writes).
        """
        if not _NAME.match(name):
            raise InvalidInputError(
                f"{name!r} cannot name a client: use letters, digits, '.', '_' or '-' (at most 64)"
            )
        if self.get(name) is not None:
            raise InvalidInputError(
                f"a client named {name!r} exists already",
                hint=f"revoke it first with `noted mcp token revoke {name}`, or pick another name",
            )
        chosen = tuple(dict.fromkeys(t.strip() for t in tools if t.strip()))
        if not chosen:
            raise InvalidInputError("give the client some tools: --tools read, all, or tool names")
        token = secrets.token_urlsafe(TOKEN_BYTES)
        created = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        entry = ClientToken(
            name, digest(token), tuple(n.strip() for n in notebooks if n.strip()), chosen, created
        )
        self._write((*self.entries(), entry))
        return token

    def revoke(self, name: str) -> bool:
        """Remove a client; False when there is none of that name. Its token stops working at once."""
        kept = tuple(e for e in self.entries() if e.name != name)
        if len(kept) == len(self.entries()):
            return False
        self._write(kept)
        return True

    def _write(self, entries: tuple[ClientToken, ...]) -> None:
        document = {"version": 1, "clients": [_stored(e) for e in entries]}
        temporary = self.path.with_name(f".{self.path.name}.{secrets.token_hex(4)}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(document, handle, indent=2)
                handle.write("\n")
            os.replace(temporary, self.path)
        except OSError as exc:
            temporary.unlink(missing_ok=True)
            raise write_fault(exc, self.path) from exc
        self._stamp = None  # read back on next use


def _stored(entry: ClientToken) -> dict[str, Any]:
    stored = asdict(entry)
    stored["notebooks"], stored["tools"] = list(entry.notebooks), list(entry.tools)
    return stored


def _parse(path: Path) -> tuple[ClientToken, ...]:
    fix = "fix it or remove it (every client token goes with it), then add the clients again"
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        rows = document["clients"]
        return tuple(
            ClientToken(
                name=str(row["name"]),
                sha256=str(row["sha256"]),
                notebooks=tuple(str(n) for n in row.get("notebooks", ())),
                tools=tuple(str(t) for t in row.get("tools", (ALL,))),
                created=str(row.get("created", "")),
            )
            for row in rows
        )
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"the client tokens file {path} cannot be read ({exc})", hint=fix) from None

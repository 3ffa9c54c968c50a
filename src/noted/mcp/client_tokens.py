"""Named client tokens: each AI app its own bearer token, notebooks and tools.

``noted mcp token add claude --notebooks Work --tools read`` writes a new random token for the
client "claude" and prints it once; the file keeps only its SHA-256, with the client's notebooks
(ids, resolved from the names given when it was added) and tool set. Both narrow what the global
settings allow and never widen it: the tools are those switched on (``ai.tool.*``) *and* in the
client's set, the notebooks those of ``mcp.allowedNotebooks`` *and* of the client's list. The
client's writes are recorded under the actor ``mcp:<name>`` (the token's name, not whatever the
app calls itself).

The file (``mcp-clients.json`` beside ``config.toml``, mode 0600) is checked like the token file
(no symlink, owned by this user, private) and re-read whenever it changes, so ``revoke`` takes
effect at the next request, without a restart.

**The door.** Once the file exists (a client token has been added), every HTTP request must carry
a valid token, even after the last client token is revoked: an open loopback door would let a
revoked app straight back in, with the global scope. Only ``noted mcp token open`` opens it again
(``"door": "open"`` in the file, refused while a client token exists); ``close`` or ``add`` shuts it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from noted.errors import ConfigError, InvalidInputError
from noted.mcp.token import TOKEN_BYTES, check_private_file, stat_of, write_private
from noted.settings.tomlfile import file_lock

if TYPE_CHECKING:  # kept out at run time: ``noted mcp token`` need not load the tools
    from noted.tools.base import Tool
    from noted.tools.scope import Scope

CLIENTS_FILE = "mcp-clients.json"
WHAT = "the client tokens file"
"""How messages name the file."""
VERSION = 2
"""1: notebooks as typed (titles or ids), ``[]`` for all; 2: ids, ``null`` for all, and the door."""
READ = "read"
"""In a tool set: every tool that only reads."""
ALL = "all"
"""In a tool set: every tool switched on."""
ACTOR_PREFIX = "mcp:"
SELF_NAMED = "self:"
"""Between a door's prefix and the name a client without a token gave itself: ``mcp:self:Cursor``.
A named client's actor is ``mcp:<token name>``, and a token's name cannot hold a ``:``, so no
client can take a named client's actor (and with it its proposals) by calling itself so."""
CLIENT_KEY = "noted.client"
"""Where the guard puts the ``ClientToken`` of an HTTP request, in its ASGI scope."""
HELD_KEY = "noted.held"
"""Where the guard puts, in an HTTP request's ASGI scope, whether the token that let it in (a client's,
the main one, or none) would let it in now: a stream the request opened ends once it would not."""
OPEN, CLOSED = "open", "closed"
DIRECT, REVIEW = "direct", "review"
WRITES = (DIRECT, REVIEW)
"""A client's writes: written at once, or kept as proposals until the person accepts them."""
OWNER_DIGITS = 16
"""How much of a token's SHA-256 tells one client from another of the same name."""
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def digest(token: str) -> str:
    """The SHA-256 of a token, as the file keeps it."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class ClientToken:
    """One named client: what its token may reach."""

    name: str
    sha256: str
    notebooks: tuple[str, ...] | None = None
    """Notebook ids (each with everything below it); None: all that ``mcp.allowedNotebooks`` allows."""
    tools: tuple[str, ...] = (ALL,)
    """Tool names, ``read`` or ``all``."""
    created: str = ""
    writes: str = DIRECT
    """``review``: each write waits as a proposal for the person (``noted.tools.proposals``)."""

    @property
    def writes_wait(self) -> bool:
        return self.writes != DIRECT  # anything but "direct" waits: a switch never fails open

    @property
    def actor(self) -> str:
        return ACTOR_PREFIX + self.name

    @property
    def owner(self) -> str:
        """Which token this is, beyond its name (``ToolContext.owner``): a client revoked and added
        again under the same name is another owner, and never sees the first one's proposals."""
        return self.sha256[:OWNER_DIGITS]

    @property
    def source(self) -> str:
        """How a refusal names this client's limit."""
        return f'the client token "{self.name}"'

    def allows(self, tool: Tool) -> bool:
        """Whether this client may use ``tool`` (when it is switched on)."""
        return ALL in self.tools or tool.name in self.tools or (READ in self.tools and not tool.is_write)

    def scope(self, base: Scope) -> Scope:
        """``base`` (``mcp.allowedNotebooks``) narrowed to this client's notebooks."""
        return base.narrowed(self.notebooks, self.source)

    def with_notebooks(self, notebooks: tuple[str, ...]) -> ClientToken:
        return replace(self, notebooks=notebooks)


@dataclass(frozen=True, slots=True)
class _Document:
    entries: tuple[ClientToken, ...] = ()
    open: bool = False


@dataclass
class ClientTokens:
    """The clients file; ``entries`` re-reads it when it changed."""

    path: Path
    _stamp: tuple[int, int, int, int] | None = field(default=None, init=False, repr=False)
    _document: _Document = field(default_factory=_Document, init=False, repr=False)
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
        document = self._read()
        return document.entries if document is not None else ()

    def closed(self) -> bool:
        """Whether every HTTP request needs a valid token because of this file: it exists, and
        either holds a client token or was not opened with ``open_door``.

        Raises:
            ConfigError: the file is unsafe or unreadable (every request is then refused).
        """
        document = self._read()
        return document is not None and (bool(document.entries) or not document.open)

    def _read(self) -> _Document | None:
        if not os.path.lexists(self.path):
            self._stamp, self._document = None, _Document()
            return None
        info = stat_of(self.path, WHAT)
        stamp = (info.st_ino, info.st_size, info.st_mtime_ns, info.st_mode)
        with self._lock:
            if stamp != self._stamp:
                check_private_file(self.path, info, WHAT, _FIX)
                self._document = _parse(self.path)
                self._stamp = stamp
            return self._document

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

    def holds(self, token: ClientToken | None) -> bool:
        """Whether ``token`` is still in force: in the file, by its name and with its hash (None,
        a caller without a client token: always). A file that cannot be read holds none."""
        if token is None:
            return True
        try:
            current = self.get(token.name)
        except ConfigError:
            return False
        return current is not None and hmac.compare_digest(current.sha256, token.sha256)

    def add(
        self,
        name: str,
        *,
        notebooks: Iterable[str] | None = None,
        tools: Iterable[str] = (ALL,),
        writes: str = DIRECT,
    ) -> str:
        """Add a client with a new random token and return the token (shown once, never stored).

        Args:
            name: The client's name (its actor is ``mcp:<name>``).
            notebooks: Notebook ids (resolve names first, see ``noted.mcp.scopes``); None for all.
            tools: Tool names, ``read`` or ``all``.
            writes: ``direct`` or ``review`` (each write waits for the person).

        Raises:
            InvalidInputError: the name is malformed or taken, or the notebooks or tools are empty.
            ConfigError: the file cannot be read.
            StorageError: it cannot be written (a full disk, a folder that refuses writes).
        """
        if not _NAME.match(name):
            raise InvalidInputError(
                f"{name!r} cannot name a client: use letters, digits, '.', '_' or '-' (at most 64)"
            )
        chosen = tuple(dict.fromkeys(t.strip() for t in tools if t.strip()))
        if not chosen:
            raise InvalidInputError("give the client some tools: --tools read, all, or tool names")
        kept = None if notebooks is None else tuple(dict.fromkeys(n.strip() for n in notebooks if n.strip()))
        if kept == ():
            raise InvalidInputError("give the client some notebooks, or leave --notebooks out for all")
        if writes not in WRITES:
            raise InvalidInputError(f"--writes takes {' or '.join(WRITES)}, not {writes!r}")
        token = secrets.token_urlsafe(TOKEN_BYTES)
        created = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

        def added(entries: tuple[ClientToken, ...]) -> _Document:
            if any(e.name == name for e in entries):
                raise InvalidInputError(
                    f"a client named {name!r} exists already",
                    hint=f"revoke it first with `noted mcp token revoke {name}`, or pick another name",
                )
            return _Document((*entries, ClientToken(name, digest(token), kept, chosen, created, writes)))

        self._edit(added)
        return token

    def revoke(self, name: str) -> bool:
        """Remove a client; False when there is none of that name. Its token stops working at its
        next request, and the door stays closed (see the module docstring)."""
        found: list[ClientToken] = []

        def revoked(entries: tuple[ClientToken, ...]) -> _Document | None:
            found.extend(e for e in entries if e.name == name)
            return _Document(tuple(e for e in entries if e.name != name)) if found else None

        self._edit(revoked)
        return bool(found)

    def replace(self, change: Callable[[tuple[ClientToken, ...]], tuple[ClientToken, ...]]) -> None:
        """Write ``change`` of the file's entries in their place (the door closed, as ``add`` leaves
        it), the file locked from the read to the write."""
        self._edit(lambda entries: _Document(change(entries)))

    def open_door(self) -> None:
        """Let HTTP requests without a token in again (on loopback, with the global scope).

        Raises:
            InvalidInputError: a client token exists: beside it an open door would make scopes moot.
        """

        def opened(entries: tuple[ClientToken, ...]) -> _Document:
            if entries:
                raise InvalidInputError(
                    f"the door cannot open while client tokens exist ({', '.join(e.name for e in entries)}): "
                    "a request without a token would get past their scopes",
                    hint="revoke them first with `noted mcp token revoke NAME`",
                )
            return _Document((), open=True)

        self._edit(opened)

    def close_door(self) -> None:
        """Make every HTTP request need a valid token (a client's or the main one)."""
        self._edit(_Document)

    def _edit(self, change: Callable[[tuple[ClientToken, ...]], _Document | None]) -> None:
        """Write what ``change`` makes of the entries (None: nothing), holding the file's lock from
        the read to the write: two processes editing at once (an ``add`` and a ``revoke``) both keep
        their change, where each wrote back what it had read and a revoked token came back."""
        with file_lock(self.path):
            self._stamp = None
            document = change(self.entries())
            if document is not None:
                self._write(document)

    def _write(self, document: _Document) -> None:
        stored = {
            "version": VERSION,
            "door": OPEN if document.open and not document.entries else CLOSED,
            "clients": [_stored(e) for e in document.entries],
        }
        write_private(self.path, json.dumps(stored, indent=2) + "\n")
        self._stamp = None  # read back on next use


def _stored(entry: ClientToken) -> dict[str, Any]:
    return {
        "name": entry.name,
        "sha256": entry.sha256,
        "notebooks": None if entry.notebooks is None else list(entry.notebooks),
        "tools": list(entry.tools),
        "created": entry.created,
        "writes": entry.writes,
    }


_FIX = "fix it or remove it (every client token goes with it, and the door opens), then add the clients again"


def _parse(path: Path) -> _Document:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        version = int(document.get("version", 1))
        entries = tuple(_entry(row, version) for row in document["clients"])
        return _Document(entries, open=document.get("door") == OPEN)
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ConfigError(f"{WHAT} {path} cannot be read ({exc})", hint=_FIX) from None


def _entry(row: dict[str, Any], version: int) -> ClientToken:
    if version >= VERSION and "notebooks" not in row:  # (noted writes null for every notebook)
        raise TypeError(f'client "{row.get("name")}": its notebooks are missing (null shares every notebook)')
    if "tools" not in row:  # (every noted wrote them; read as "all", a reader wrote)
        raise TypeError(f'client "{row.get("name")}": its tools are missing ("all", "read" or tool names)')
    notebooks, tools = row.get("notebooks"), row["tools"]
    if not isinstance(notebooks, list | None) or not isinstance(tools, list):
        raise TypeError(f'client "{row.get("name")}": notebooks and tools must be lists')
    kept: tuple[str, ...] | None = None if notebooks is None else tuple(str(n) for n in notebooks)
    if version < VERSION and not kept:  # version 1 wrote [] for every notebook
        kept = None
    chosen = tuple(str(t) for t in tools)
    if version >= VERSION and "writes" not in row:  # (noted writes it for every client)
        raise TypeError(f'client "{row.get("name")}": its writes are missing (direct or review)')
    writes = row.get("writes", DIRECT)  # version 1 came before review mode: its clients wrote at once
    if writes not in WRITES:
        raise TypeError(f'client "{row.get("name")}": writes must be one of {", ".join(WRITES)}')
    return ClientToken(
        str(row["name"]), str(row["sha256"]), kept, chosen, str(row.get("created", "")), writes
    )

"""The bearer token of the HTTP server: a file only its owner can read, holding a strong secret.

The file is checked when the server starts (anything wrong refuses the start with the reason) and
again whenever it changed, on each request, so a replaced token takes effect without a restart and
a file made unsafe stops the server answering. A symbolic link is refused (at start and when one
is swapped in): whoever can write the directory it points into could otherwise choose the token.
A token must be printable ASCII, since an HTTP header can carry nothing else. ``create`` writes
one properly: 48 random bytes, URL-safe, mode 0600, written atomically.
"""

from __future__ import annotations

import errno
import math
import os
import secrets
import stat
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from noted.errors import ConfigError, write_fault
from noted.tempfiles import replace_with

MIN_ENTROPY_BITS = 256
"""At least 32 bytes of randomness."""
MAX_TOKEN_FILE = 4096
TOKEN_BYTES = 48
MIN_BITS_PER_CHAR = 2.5
"""Below this observed entropy per character a token is repetitive, whatever its alphabet."""
_RENEW = "create a new one with `noted mcp token --force`"
WHAT = "the token file"
"""How messages name the file (the clients file passes its own name)."""

_ALPHABETS: tuple[tuple[int, frozenset[str]], ...] = tuple(
    (len(chars), frozenset(chars))
    for chars in (
        "0123456789",
        "0123456789abcdef",
        "0123456789ABCDEF",
        "0123456789abcdefghijklmnopqrstuvwxyz",
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_",
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+/=",
        "".join(chr(c) for c in range(33, 127)),
    )
)


def estimated_bits(token: str) -> float:
    """A conservative estimate of the token's randomness in bits.

    The length times the bits of the smallest usual alphabet holding every character (hex, base64,
    printable ASCII…); zero when the characters repeat too much to be random.
    """
    if not token:
        return 0.0
    size = next((n for n, chars in _ALPHABETS if set(token) <= chars), 256)
    counts = Counter(token)
    observed = -sum(c / len(token) * math.log2(c / len(token)) for c in counts.values())
    if observed < min(MIN_BITS_PER_CHAR, math.log2(size) * 0.6):
        return 0.0
    return len(token) * math.log2(size)


@dataclass
class TokenFile:
    """A token file that passed the checks; ``read`` re-checks it cheaply on each request."""

    path: Path
    _stamp: tuple[int, int, int, int] | None = field(default=None, init=False, repr=False)
    _token: str = field(default="", init=False, repr=False)

    @classmethod
    def open(cls, path: Path) -> TokenFile:
        """Check the file now.

        Raises:
            ConfigError: it is missing, not a regular file, not owned by this user, readable or
                writable by others, or holds a weak token; the message says which and what to do.
        """
        token_file = cls(path)
        token_file.read()
        return token_file

    def read(self) -> str:
        """The token, re-read when the file changed.

        Raises:
            ConfigError: the file can no longer be used (see ``open``).
        """
        info = stat_of(self.path)
        stamp = (info.st_ino, info.st_size, info.st_mtime_ns, info.st_mode)
        if stamp != self._stamp:
            self._token = _check(self.path, info)
            self._stamp = stamp
        return self._token


def create(path: Path, *, overwrite: bool = False) -> str:
    """Write a new random token to ``path`` (mode 0600) and return it.

    Raises:
        ConfigError: the file exists and ``overwrite`` is false.
        StorageError: it cannot be written (a full disk, a folder that refuses writes).
    """
    if path.exists() and not overwrite:
        raise ConfigError(
            f"{path} already exists", hint="pass --force to replace it (clients need the new token)"
        )
    token = secrets.token_urlsafe(TOKEN_BYTES)
    write_private(path, token + "\n")
    return token


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` (mode 0600) by a temporary file renamed over it (``write_fault``)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_with(path, text.encode("utf-8"), 0o600, old_twin=True)  # (a kill's leftovers: swept)
    except OSError as exc:
        raise write_fault(exc, path) from exc


def stat_of(path: Path, what: str = WHAT) -> os.stat_result:
    """``lstat`` of the file, or a ConfigError naming it as ``what`` ("the token file")."""
    try:
        return path.lstat()
    except FileNotFoundError:
        raise ConfigError(f"{what} {path} does not exist", hint="create one with `noted mcp token`") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {what} {path}: {exc.strerror or exc}") from exc


def _check(path: Path, info: os.stat_result) -> str:
    check_private_file(path, info)
    token = _read(path)
    if not token or any(c.isspace() for c in token):
        raise ConfigError(f"the token file {path} must hold one token on one line", hint=_RENEW)
    if not token.isascii() or not token.isprintable():
        raise ConfigError(
            f"the token in {path} has characters other than printable ASCII, which no HTTP client can send",
            hint=_RENEW,
        )
    bits = estimated_bits(token)
    if bits < MIN_ENTROPY_BITS:
        raise ConfigError(
            f"the token in {path} is too weak (about {bits:.0f} bits of randomness; at least "
            f"{MIN_ENTROPY_BITS} needed, e.g. 64 random hex digits)",
            hint="create a strong one with `noted mcp token --force`",
        )
    return token


def check_private_file(path: Path, info: os.stat_result, what: str = WHAT, renew: str = _RENEW) -> None:
    """What the file is, who owns it and who may use it (from ``lstat``: a link is not followed).

    Args:
        path: The file.
        info: Its ``lstat``.
        what: How messages name it ("the token file", "the client tokens file").
        renew: What to do when it cannot be mended in place.
    """
    if stat.S_ISLNK(info.st_mode):
        where = "point mcp.tokenFile at the real file, or " if what == WHAT else ""
        raise ConfigError(
            f"{what} {path} is a symbolic link, and it must be the file itself", hint=f"{where}{renew}"
        )
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(f"{what} {path} is not a regular file", hint=renew)
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise ConfigError(f"{what} {path} belongs to another user", hint=renew)
    if info.st_mode & 0o077:
        mode = stat.filemode(info.st_mode)
        raise ConfigError(
            f"{what} {path} can be used by other users ({mode})", hint=f"run `chmod 600 {path}`, or {renew}"
        )
    if info.st_size > MAX_TOKEN_FILE and what == WHAT:
        raise ConfigError(f"{what} {path} is too large to hold just a token", hint=renew)


def _read(path: Path) -> str:
    # O_NOFOLLOW: a link swapped in between the lstat and this open is refused, not followed.
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
        with os.fdopen(fd, "rb") as handle:
            raw = handle.read(MAX_TOKEN_FILE + 1)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ConfigError(
                f"the token file {path} is a symbolic link, and a token file must be the file itself",
                hint="point mcp.tokenFile at the real file",
            ) from None
        raise ConfigError(f"cannot read the token file {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_TOKEN_FILE:
        raise ConfigError(
            f"the token file {path} is too large to hold just a token",
            hint=_RENEW,
        )
    try:
        return raw.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise ConfigError(
            f"cannot read the token file {path}: not UTF-8 text",
            hint=_RENEW,
        ) from None

"""Helpers shared by the subcommand modules: declaring parsers, reading input files."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from noted.cli.context import CliContext
from noted.errors import InvalidInputError, NotUtf8Error

MAX_COUNT = 1_000_000_000
"""The largest count or offset a command takes (more notes than any notebook holds)."""
MAX_ID = 2**63 - 1
"""The largest id SQLite stores (a revision's)."""

Handler = Callable[[argparse.Namespace, CliContext], int]
Subparsers = Any
"""``argparse._SubParsersAction``, which argparse does not name publicly."""


def add_common(parser: argparse.ArgumentParser) -> None:
    """Accept ``--json`` and ``--profile`` after the subcommand too (``noted notes --json``).

    ``SUPPRESS`` keeps a value given before the subcommand from being reset by the subparser.
    """
    parser.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="print machine-readable JSON"
    )
    parser.add_argument("--profile", metavar="DIR", default=argparse.SUPPRESS, help="profile folder")


def command(
    sub: Subparsers, name: str, func: Handler, help_text: str, **kwargs: Any
) -> argparse.ArgumentParser:
    """Add a subcommand whose handler is ``func``; ``help_text`` is both its summary and description."""
    parser: argparse.ArgumentParser = sub.add_parser(name, help=help_text, description=help_text, **kwargs)
    add_common(parser)
    parser.set_defaults(func=func)
    return parser


def check_range(flag: str, value: int | None, low: int, high: int) -> None:
    """Refuse ``value`` (given as ``flag``) outside ``low``..``high``, in one line (exit 2): SQLite
    takes no integer past 64 bits, and noted none past what makes sense."""
    if value is not None and not low <= value <= high:
        raise InvalidInputError(f"{flag} must be between {low:,} and {high:,} (got {value:,})")


def decode_utf8(data: bytes, where: str) -> str:
    """``data`` as text, or ``NotUtf8Error`` saying ``where`` it came from and at which line and byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise NotUtf8Error(f"{where} is not valid UTF-8 (line {line}, byte {exc.start + 1})") from None


def read_stdin() -> str:
    """All of standard input, strictly UTF-8 (the locale's decoder may pass bad bytes on)."""
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None:  # a text stream put in place of stdin (tests, embedding)
        text = sys.stdin.read()
        return decode_utf8(text.encode("utf-8", "surrogateescape"), "standard input")
    return decode_utf8(buffer.read(), "standard input")


def read_text_file(path: str) -> str:
    """A UTF-8 text file (``-`` for standard input), or an error naming the file."""
    if path == "-":
        return read_stdin()
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InvalidInputError(f"cannot read {path}: {exc.strerror or exc}") from exc
    return decode_utf8(data, path)


def check_argv(argv: list[str]) -> None:
    """Refuse arguments that are not valid UTF-8 (Python hands them over with lone surrogates)."""
    for position, arg in enumerate(argv, start=1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            shown = os.fsencode(arg).decode("ascii", "backslashreplace")
            raise NotUtf8Error(f'argument {position} ("{shown}") is not valid UTF-8') from None

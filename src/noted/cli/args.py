"""Helpers shared by the subcommand modules: declaring parsers, reading input files."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from noted.cli.context import CliContext
from noted.errors import InvalidInputError

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


def read_text_file(path: str) -> str:
    """A UTF-8 text file (``-`` for standard input), or an error naming the file."""
    if path == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise InvalidInputError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"cannot read {path}: not UTF-8 text (byte {exc.start})") from exc

"""Helpers shared by the subcommand modules: declaring subcommands, reading input files."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from noted.errors import InvalidInputError, NotUtf8Error

if TYPE_CHECKING:  # the context loads the services: ``noted.cli`` imports this before main can catch Ctrl+C
    from noted.cli.context import CliContext

MAX_COUNT = 1_000_000_000
"""The largest count or offset a command takes (more notes than any notebook holds)."""
MAX_ID = 2**63 - 1
"""The largest id SQLite stores (a revision's)."""

Handler = Callable[[argparse.Namespace, "CliContext"], int]
JOPLIN_HELP = "use the notes of a running Joplin (its Data API) for this run"
VAULT_HELP = "work on this folder of Markdown files in place for this run (one profile per folder)"


def add_common(parser: argparse.ArgumentParser) -> None:
    """Accept ``--json``, ``--profile``, ``--joplin`` and ``--vault`` after a subcommand too (``noted
    notes --json``, ``noted mcp serve --joplin``).

    ``SUPPRESS`` keeps a value given before the subcommand from being reset by the subparser.
    """
    parser.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="print machine-readable JSON"
    )
    parser.add_argument("--profile", metavar="DIR", default=argparse.SUPPRESS, help="profile folder")
    parser.add_argument("--joplin", action="store_true", default=argparse.SUPPRESS, help=JOPLIN_HELP)
    parser.add_argument("--vault", metavar="DIR", default=argparse.SUPPRESS, help=VAULT_HELP)


class _Parser(argparse.ArgumentParser):
    """A subcommand's parser, which takes its positionals after its options too (``noted create T
    --tag x -``): argparse matches every positional it can at the first one, so an optional one
    (``-``) given after an option was left over as "unrecognized". A command with actions of its
    own, or whose words may start with ``-`` (``dashed_words``: their order matters), parses as
    argparse does."""

    leaf = True
    _intermixing = False

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if not self.leaf or self._intermixing or self.get_default("dashed_words"):
            return super().parse_known_args(args, namespace)
        self._intermixing = True  # the intermixed parse calls this again, for each of its passes
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._intermixing = False


class Commands:
    """The subcommands of one parser, added by the modules of ``noted.cli``.

    Each is also entered in ``table`` (shared by the whole tree, keyed by its words: ``("notebook",
    "create")``), the list of every command that ``tests/integration/test_cli.py`` goes through,
    so nothing reaches into argparse's private objects to find them.
    """

    def __init__(
        self,
        parser: argparse.ArgumentParser,
        table: dict[tuple[str, ...], argparse.ArgumentParser],
        path: tuple[str, ...] = (),
        *,
        dest: str,
        required: bool = False,
    ) -> None:
        self.table = table
        self._path = path
        metavar = "ACTION" if path else "COMMAND"
        self._sub = parser.add_subparsers(dest=dest, metavar=metavar, required=required, parser_class=_Parser)
        if isinstance(parser, _Parser):
            parser.leaf = False

    def add(
        self,
        name: str,
        func: Handler | None,
        help_text: str,
        *,
        description: str | None = None,
        **kwargs: Any,
    ) -> argparse.ArgumentParser:
        """Add subcommand ``name`` run by ``func``; ``help_text`` is its summary (and its description
        unless one is given)."""
        parser = self._sub.add_parser(
            name, help=help_text, description=description or help_text, allow_abbrev=False, **kwargs
        )
        add_common(parser)
        parser.set_defaults(command_words=(*self._path, name))  # the deepest command given wins
        if func is not None:
            parser.set_defaults(func=func)
        self.table[(*self._path, name)] = parser
        return parser

    def group(
        self,
        name: str,
        func: Handler | None,
        help_text: str,
        *,
        dest: str,
        description: str | None = None,
        required: bool = False,
    ) -> tuple[argparse.ArgumentParser, Commands]:
        """Add subcommand ``name`` with actions of its own (``noted config set``); ``func`` runs when
        none is given."""
        parser = self.add(name, func, help_text, description=description)
        return parser, Commands(parser, self.table, (*self._path, name), dest=dest, required=required)


def refuse_extras(words: Sequence[str], extras: Sequence[str]) -> None:
    """Refuse what the command named by ``words`` does not take, in one line (exit 2).

    Every parser reads options whole (``allow_abbrev=False``): argparse took ``--body`` for
    ``--body-file`` and then reported a file it could not read.
    """
    command = " ".join(words) or "noted"
    given = next((e for e in extras if e.startswith("-")), None)
    if given is not None:
        raise InvalidInputError(f"{command} has no option {given} (`noted {command} --help` lists them)")
    raise InvalidInputError(
        f"{command} does not take {' '.join(extras)} (`noted {command} --help` says what it takes)"
    )


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


def given(value: str | None, option: str, *, left_out: str) -> str | None:
    """An option's value, None when it was left out; an empty one (``--host "$HOST"`` with HOST
    unset) is refused rather than taken for the option left out. ``left_out`` says what applies then."""
    if value is not None and not value.strip():
        raise InvalidInputError(f"{option} is empty; give a value, or leave {option} out for {left_out}")
    return value


def folder_given(value: str, what: str) -> Path:
    """A folder named as an argument, ``~`` expanded. An empty one (``noted export "$DIR"`` with DIR
    unset) is refused, as ``given`` refuses an empty option, rather than taken for the current folder.
    So is ``-``, which elsewhere means standard input, rather than taken for a folder of that name."""
    if not value.strip():
        raise InvalidInputError(f'the name of {what} is empty; name a folder, or "." for the current one')
    if value == "-":
        raise InvalidInputError(
            f'{what} cannot be "-" (standard input or output): name a folder, or ./- for one named -'
        )
    return Path(value).expanduser()


def read_text_file(path: str) -> str:
    """A UTF-8 text file (``-`` for standard input), or an error naming the file."""
    if path == "-":
        return read_stdin()
    if not path.strip():
        raise InvalidInputError("the file name is empty", hint="name a file, or - for standard input")
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InvalidInputError(f"cannot read {path}: {exc.strerror or exc}") from exc
    return decode_utf8(data, path)


def read_replacement(path: str) -> str:
    """A text that replaces a note's body, as ``read_text_file`` reads it; an empty standard input
    (a script's failed pipe) is refused rather than taken for an empty note: a file says that."""
    if path == "-":
        return read_body_stdin("nothing saved", hint="to empty the note, use --body-file /dev/null")
    return read_text_file(path)


def read_body_stdin(nothing: str, *, hint: str) -> str:
    """A note's body from standard input; an empty one (a script's failed pipe) is refused, saying
    ``nothing`` was done and, in ``hint``, how to say that the note is to be empty."""
    text = read_stdin()
    if not text:
        raise InvalidInputError(f"standard input is empty: {nothing}", hint=hint)
    return text


def check_argv(argv: list[str]) -> None:
    """Refuse arguments that are not valid UTF-8 (Python hands them over with lone surrogates)."""
    for position, arg in enumerate(argv, start=1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            shown = os.fsencode(arg).decode("ascii", "backslashreplace")
            raise NotUtf8Error(f'argument {position} ("{shown}") is not valid UTF-8') from None

"""The ``noted`` command: parses arguments, opens the profile, runs one subcommand.

Each subcommand lives in a module of this package whose ``register(commands)`` adds it to a
``noted.cli.args.Commands``; ``build_parser`` calls each module's from the table in ``_register``.
The handler a subcommand runs takes ``(args, ctx)`` and returns an exit code. Errors of
``noted.errors`` become one line on stderr and an exit code of their kind (``exits.py``); a
storage fault that escapes as an apsw or ``OSError`` is named the same way; anything else is a
bug, logged with its stack to the profile's log file and reported in one line.
"""

from __future__ import annotations

import argparse
import gc
import logging
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from noted import __version__
from noted.cli.args import JOPLIN_HELP, VAULT_HELP, Commands, check_argv, given, refuse_extras
from noted.cli.exits import ExitCode, exit_code
from noted.cli.terminal import shown
from noted.errors import NotedError

if TYPE_CHECKING:
    from noted.cli.context import CliContext

log = logging.getLogger("noted.cli")


def _register(commands: Commands) -> None:
    """Add every subcommand, in the order ``noted --help`` lists them.

    The modules are imported here, when the full parser is built: plain ``noted`` skips them.
    """
    from noted.cli import (
        commands_ask,
        commands_config,
        commands_index,
        commands_links,
        commands_mcp,
        commands_notes,
        commands_review,
        commands_search,
        commands_sync,
        commands_tools,
        commands_tui,
    )

    for register in (
        commands_notes.register,  # with its siblings: notebooks, edit and history, import and export
        commands_search.register,
        commands_index.register,
        commands_sync.register,
        commands_links.register,
        commands_ask.register,
        commands_tools.register,
        commands_mcp.register,
        commands_config.register,
        commands_tui.register,
        commands_review.register,
    ):
        register(commands)


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, every subcommand included."""
    return parser_and_commands()[0]


def parser_and_commands() -> tuple[argparse.ArgumentParser, dict[tuple[str, ...], argparse.ArgumentParser]]:
    """The full argument parser, and every subcommand's parser by its words (``("notebook", "create")``)."""
    parser = argparse.ArgumentParser(
        prog="noted",
        allow_abbrev=False,
        description="A terminal notebook with an assistant. Run with no command to open your notebook.",
    )
    parser.add_argument("--version", action="version", version=f"noted {__version__}")
    parser.add_argument(
        "--profile", metavar="DIR", help="profile folder (default: $NOTED_PROFILE, else ~/.local/share/noted)"
    )
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
    parser.add_argument("--joplin", action="store_true", help=JOPLIN_HELP)
    parser.add_argument("--vault", metavar="DIR", help=VAULT_HELP)
    commands = Commands(parser, {}, dest="command")
    _register(commands)
    return parser, commands.table


def _bare(argv: Sequence[str]) -> argparse.Namespace | None:
    """The global options when ``argv`` holds nothing else (plain ``noted``), else None.

    Plain ``noted`` opens the app, and the app should be on screen within a second: building the
    full parser imports every subcommand's module, which it does not need.
    """
    parser = argparse.ArgumentParser(prog="noted", add_help=False, allow_abbrev=False)
    parser.add_argument("--profile")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--joplin", action="store_true")
    parser.add_argument("--vault")
    try:
        args, rest = parser.parse_known_args(argv)
    except SystemExit:  # e.g. --profile without its value: the full parser says what is wrong
        return None
    return None if rest else args


def parse(argv: Sequence[str]) -> argparse.Namespace:
    """``argv`` parsed; argparse's usage and error (exit 2) when it does not parse, and
    ``InvalidInputError`` naming the command for an option or word it does not take.

    A command whose query is words (``dashed_words``) keeps a word that starts with one ``-``
    (``-tag:done``, ``-draft``) as a word of it, and the words after it, where argparse would take
    it for an unknown option and then say the query is missing; an unknown ``--word`` is still an
    error (a mistyped option).
    """
    parser = build_parser()
    args, extras = parser.parse_known_args(argv)
    if extras:
        if not getattr(args, "dashed_words", False) or any(e.startswith("--") for e in extras):
            refuse_extras(getattr(args, "command_words", ()), extras)
        if "-h" in extras:  # the command's help, as everywhere (it has only --help, so -home is a word)
            parser.parse_args([*argv, "--help"])
        args.query = [*args.query, *extras]
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``noted`` console script."""
    given = list(sys.argv[1:] if argv is None else argv)
    try:
        # Loaded here, not at the top: they load the services, a good part of a second during
        # which a Ctrl+C ended the console script's import of this module with a stack trace.
        from noted.cli import commands_tui
        from noted.cli.context import CliContext

        check_argv(given)
        args = _bare(given)
        if args is None or not commands_tui.interactive():
            args = parse(given)
    except NotedError as exc:
        print(shown(f"noted: {exc}", sys.stderr), file=sys.stderr)
        return ExitCode.BAD_INPUT
    except KeyboardInterrupt:
        print("noted: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    ctx = CliContext(profile_arg=args.profile, json=args.json, joplin=args.joplin, vault=args.vault)
    try:
        return _run(args, ctx)
    except NotedError as exc:
        ctx.error(str(exc))
        return exit_code(exc)
    except KeyboardInterrupt as exc:  # its notes say what the command kept (``noted import``)
        ctx.error("; ".join(["interrupted", *getattr(exc, "__notes__", ())]))
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        return ExitCode.OK
    except Exception as exc:
        return _unexpected(exc, ctx)
    finally:
        _close(ctx)
        if argv is None:
            _leaving()


def _leaving() -> None:
    """Keep the objects the program built out of the collection Python runs as it exits.

    Everything is closed by now; that last collection walks every object the process holds (the
    MCP SDK, pydantic and uvicorn make some 130,000) to free memory the exit frees anyway: an
    idle ``noted mcp serve`` took 1 to 3 s to end after SIGTERM, all of it there. Only the program
    itself (the console script, ``python -m noted``: no ``argv``) exits; a caller of ``main``
    keeps its collector as it was.
    """
    gc.freeze()


def _run(args: argparse.Namespace, ctx: CliContext) -> int:
    from noted.cli import commands_tui

    given(args.vault, "--vault", left_out="the profile's own notebook")
    func = getattr(args, "func", None)
    if func is None:
        if commands_tui.interactive():
            return commands_tui.run_tui(args, ctx)
        from noted.cli.commands_notes import summary

        return summary(args, ctx)
    code: int = func(args, ctx)
    return code


def _unexpected(exc: Exception, ctx: CliContext) -> int:
    """A storage fault that escaped untranslated gets its own line and code; the rest is a bug."""
    from noted.store.faults import classify

    fault = classify(exc, ctx.db_path_hint())
    log.log(
        logging.WARNING if fault else logging.ERROR,
        "%s in %s",
        "storage fault" if fault else "internal error",
        " ".join(sys.argv),
        exc_info=exc,
    )
    if fault is not None:
        ctx.error(str(fault))
        return exit_code(fault)
    ctx.error(f"internal error; the details are in {ctx.log_path_hint()}")
    return ExitCode.INTERNAL


def _close(ctx: CliContext) -> None:
    """Close the services; a fault while closing (a full disk at checkpoint) is logged, not raised."""
    try:
        ctx.close()
    except Exception:
        log.warning("could not close the profile cleanly", exc_info=True)

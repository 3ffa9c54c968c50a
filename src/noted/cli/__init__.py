"""The ``noted`` command: parses arguments, opens the profile, runs one subcommand.

Each subcommand lives in a module of this package that exposes ``register(subparsers)``; the
handler it sets as ``func`` takes ``(args, ctx)`` and returns an exit code. Errors of
``noted.errors`` become one line on stderr and an exit code of their kind (``exits.py``); a
storage fault that escapes as an apsw or ``OSError`` is named the same way; anything else is a
bug, logged with its stack to the profile's log file and reported in one line.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

from noted import __version__
from noted.cli import commands_tui
from noted.cli.args import check_argv
from noted.cli.context import CliContext
from noted.cli.exits import ExitCode, exit_code
from noted.errors import NotedError

log = logging.getLogger("noted.cli")

_MODULES = (
    "commands_notes",
    "commands_search",
    "commands_index",
    "commands_sync",
    "commands_links",
    "commands_ask",
    "commands_tools",
    "commands_mcp",
    "commands_config",
    "commands_tui",
)
"""The subcommands' modules, imported when the full parser is built (plain ``noted`` skips them)."""


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, every subcommand included."""
    parser = argparse.ArgumentParser(
        prog="noted",
        description="A terminal notebook with an assistant. Run with no command to open your notebook.",
    )
    parser.add_argument("--version", action="version", version=f"noted {__version__}")
    parser.add_argument(
        "--profile", metavar="DIR", help="profile folder (default: $NOTED_PROFILE, else ~/.local/share/noted)"
    )
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
    parser.add_argument("--joplin", action="store_true", help=_JOPLIN_HELP)
    parser.add_argument("--vault", metavar="DIR", help=_VAULT_HELP)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _MODULES:
        importlib.import_module(f"noted.cli.{name}").register(sub)
    _add_everywhere(parser, "--joplin", help=_JOPLIN_HELP)
    _add_everywhere(parser, "--vault", help=_VAULT_HELP, metavar="DIR")
    return parser


_JOPLIN_HELP = "use the notes of a running Joplin (its Data API) for this run"
_VAULT_HELP = "work on this folder of Markdown files in place for this run (one profile per folder)"


def _add_everywhere(
    parser: argparse.ArgumentParser,
    flag: str,
    *,
    help: str,  # noqa: A002
    metavar: str | None = None,
) -> None:
    """Accept a global flag after any subcommand too (``noted mcp serve --joplin``); with a
    ``metavar`` it takes a value (``--vault DIR``), else it is a switch.

    On subcommands it defaults to "not given", so it never resets what was given before them.
    """
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for subparser in action.choices.values():
                if metavar is None:
                    subparser.add_argument(flag, action="store_true", default=argparse.SUPPRESS, help=help)
                else:
                    subparser.add_argument(flag, metavar=metavar, default=argparse.SUPPRESS, help=help)
                _add_everywhere(subparser, flag, help=help, metavar=metavar)


def _bare(argv: Sequence[str]) -> argparse.Namespace | None:
    """The global options when ``argv`` holds nothing else (plain ``noted``), else None.

    Plain ``noted`` opens the app, and the app should be on screen within a second: building the
    full parser imports every subcommand's module, which it does not need.
    """
    parser = argparse.ArgumentParser(prog="noted", add_help=False)
    parser.add_argument("--profile")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--joplin", action="store_true")
    parser.add_argument("--vault")
    try:
        args, rest = parser.parse_known_args(argv)
    except SystemExit:  # e.g. --profile without its value: the full parser says what is wrong
        return None
    return None if rest else args


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``noted`` console script."""
    given = list(sys.argv[1:] if argv is None else argv)
    try:
        check_argv(given)
    except NotedError as exc:
        print(f"noted: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    args = _bare(given)
    if args is None or not commands_tui.interactive():
        args = build_parser().parse_args(given)
    ctx = CliContext(profile_arg=args.profile, json=args.json, joplin=args.joplin, vault=args.vault)
    try:
        return _run(args, ctx)
    except NotedError as exc:
        ctx.error(str(exc))
        return exit_code(exc)
    except KeyboardInterrupt:
        ctx.error("interrupted")
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        return ExitCode.OK
    except Exception as exc:
        return _unexpected(exc, ctx)
    finally:
        _close(ctx)


def _run(args: argparse.Namespace, ctx: CliContext) -> int:
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

"""``noted tui``: open the terminal app (plain ``noted`` does too, when it runs in a terminal)."""

from __future__ import annotations

import argparse
import sys

from noted.cli.args import Subparsers, command
from noted.cli.context import CliContext


def register(sub: Subparsers) -> None:
    command(sub, "tui", run_tui, "Open the terminal app (what plain `noted` does in a terminal).")


def interactive() -> bool:
    """True when a person is at a terminal (both ends), so the app can take the screen."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def run_tui(args: argparse.Namespace, ctx: CliContext) -> int:
    """Run the app on the profile's services until the person quits."""
    from noted.ui.launch import open_app  # Textual loads only when the app runs, not for every command

    ctx.scan_in_background = True  # a Markdown folder: the app shows the notes, then its watcher scans
    app = open_app(ctx.services)
    app.run()
    return app.return_code or 0

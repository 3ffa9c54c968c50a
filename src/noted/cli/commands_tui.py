"""``noted tui``: open the terminal app (plain ``noted`` does too, when it runs in a terminal)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from noted.cli.args import Commands
from noted.cli.context import CliContext
from noted.cli.early_keys import EarlyKeys
from noted.errors import InvalidInputError
from noted.settings.handles import BACKEND

if TYPE_CHECKING:
    from noted.ui.app import NotedApp


def register(sub: Commands) -> None:
    sub.add("tui", run_tui, "Open the terminal app (what plain `noted` does in a terminal).")
    sub.add("init", cmd_init, "Make a new, empty notebook in the profile folder, saying where.")


def cmd_init(args: argparse.Namespace, ctx: CliContext) -> int:
    """Make the profile's notebook (the only command that does, besides the app's first start)."""
    ctx.create = True
    root = ctx.services.profile.root
    if ctx.json:
        ctx.emit({"profile": str(root), "created": ctx.created})
    else:
        ctx.out(made(ctx) if ctx.created else f"a notebook is already at {root}")
    return 0


def made(ctx: CliContext) -> str:
    """The line saying where the profile was made (for Joplin, the notes stay in Joplin)."""
    services = ctx.services
    root, backend = services.profile.root, services.settings.get(BACKEND)
    if ctx.vault is not None or backend == "vault":
        return f"made a profile at {root} for the Markdown folder (noted's index and records; the notes stay in it)"
    if ctx.joplin or backend == "joplin":
        return f"made a profile at {root} for your Joplin notes (noted's index and records; the notes stay in Joplin)"
    return f"made a new notebook at {root}"


def interactive() -> bool:
    """True when a person is at a terminal (both ends), so the app can take the screen."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def run_tui(args: argparse.Namespace, ctx: CliContext) -> int:
    """Run the app on the profile's services until the person quits.

    Raises:
        InvalidInputError: standard input or output is not a terminal (a pipe, a file): the app
            would draw into it and wait for keys that never come.
    """
    if not interactive():
        raise InvalidInputError(
            "noted tui needs a terminal, and standard input or output is not one",
            hint="run it in a terminal; `noted notes` and `noted show` print to pipes",
        )
    early = EarlyKeys.take()  # keys typed from here on wait for the first screen, Enter included
    try:
        app = ready_app(ctx)
    finally:
        typed = early.give_back() if early is not None else ""
    app.typed_before_start(typed)
    app.run()
    return app.return_code or 0


def ready_app(ctx: CliContext) -> NotedApp:
    """The app on the context's services, as ``noted tui`` opens it (the notebook made on the
    first start in a terminal, saying where); what opening them finds to say, the app shows."""
    from noted.ui.launch import open_app  # Textual loads only when the app runs, not for every command

    ctx.scan_in_background = True  # a Markdown folder: the app shows the notes, then its watcher scans
    ctx.create = True  # the first start in a terminal makes the notebook, saying where
    ctx.said_in_app = []
    services = ctx.services
    if ctx.created:
        ctx.error(made(ctx))
    return open_app(services, notices=ctx.said_in_app)

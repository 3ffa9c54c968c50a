"""``noted mcp``: serve the notes to AI apps, make a token, print each app's configuration.

noted mcp serve --stdio              what an AI app runs as a command (stdout is the protocol)
noted mcp serve [--port 8765]        Streamable HTTP at http://127.0.0.1:PORT/mcp until Ctrl+C
noted mcp serve --actions            also /openapi.json and /actions/{tool} (ChatGPT actions, scripts)
noted mcp token [--force]            a strong bearer token in a private file, set as mcp.tokenFile
noted mcp token add NAME [--notebooks A,B] [--tools read|all|NAMES]   a named client's own token
noted mcp token list | revoke NAME   the named client tokens; revoking needs no restart
noted mcp token open | close         let HTTP requests without a token in (on loopback), or not
noted mcp serve --stdio --client NAME   serve as that named client (its notebooks and tools)
noted mcp config claude|cursor|zed|codex
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from noted.cli.args import Commands, check_range, given
from noted.cli.commands_mcp_clients import client_tokens_command
from noted.cli.context import CliContext
from noted.cli.exits import ExitCode
from noted.errors import InvalidInputError
from noted.mcp.client_tokens import ClientTokens
from noted.mcp.options import DEFAULT_HOST, DEFAULT_PORT, HttpOptions
from noted.mcp.snippets import CLIENTS, Target, render, snippets, stdio_command
from noted.mcp.token import create
from noted.settings import Settings
from noted.settings.handles import MCP_TOKEN_FILE
from noted.settings.urls import is_listen_address

if TYPE_CHECKING:
    from noted.mcp.deps import McpDeps
    from noted.mcp.http import HttpServer
    from noted.mcp.server import NotedMcp

TOKEN_FILE_NAME = "mcp-token"


def register(sub: Commands) -> None:
    """Add ``noted mcp serve|token|config``."""
    _, actions = sub.group(
        "mcp",
        None,
        "Serve your notes to AI apps over MCP.",
        dest="mcp_action",
        required=True,
        description="Serve your notes to AI apps (Claude, Cursor, Zed, Codex…) over the Model Context "
        "Protocol. They get exactly the tools switched on under `noted config list ai.tool`.",
    )

    p = actions.add("serve", cmd_serve, "Run the MCP server (HTTP on loopback, or --stdio).")
    p.add_argument("--stdio", action="store_true", help="talk MCP on stdin/stdout (for an app to launch)")
    p.add_argument(
        "--client", metavar="NAME", help="with --stdio: serve as this named client (`noted mcp token add`)"
    )
    p.add_argument("--port", type=int, help=f"HTTP port (default: mcp.port, {DEFAULT_PORT}; 0 picks one)")
    p.add_argument("--host", help=f"HTTP address (default: mcp.host, {DEFAULT_HOST}); others need a token")
    p.add_argument(
        "--actions",
        action="store_true",
        help="also serve the OpenAPI door (/openapi.json, /actions/{tool}) for ChatGPT actions and scripts, "
        "as mcp.actions.enabled does; needs a token and ai.allowRemote (it exposes notes to a remote service)",
    )

    p = actions.add(
        "token",
        cmd_token,
        "Create the bearer token file for HTTP (mcp.tokenFile), or manage named client tokens.",
    )
    p.add_argument(
        "client_action",
        nargs="?",
        choices=("add", "list", "revoke", "open", "close"),
        metavar="add|list|revoke|open|close",
        help="manage named client tokens, each with its own notebooks and tools, or open or close the "
        "door to requests without a token (leave out for the main token)",
    )
    p.add_argument("name", nargs="?", help="the client's name, for add and revoke (e.g. claude)")
    p.add_argument(
        "--notebooks",
        help="for add: the notebooks it may see, with those inside (titles, paths like Secret/Work, or ids; "
        "comma-separated; resolved now, an ambiguous title is refused); leave out for all",
    )
    p.add_argument(
        "--tools",
        help="for add: read (every read tool), all (default), or tool names, comma-separated; "
        "always within the tools switched on",
    )
    p.add_argument(
        "--writes",
        choices=("direct", "review"),
        default="direct",
        help="for add: review keeps each of the client's writes as a proposal until you accept it "
        "(`noted changes`); direct (default) writes at once",
    )
    p.add_argument("--path", help=f"where to write it (default: PROFILE/{TOKEN_FILE_NAME})")
    p.add_argument(
        "--force", action="store_true", help="replace an existing token (clients need the new one)"
    )
    p.add_argument("--show", action="store_true", help="also print the token")

    p = actions.add("config", cmd_config, "Print the configuration snippet for an AI app.")
    p.add_argument("client", choices=CLIENTS, help="the app to configure")
    p.add_argument(
        "--transport", choices=("stdio", "http", "both"), default="both", help="which form to print"
    )
    p.add_argument(
        "--show-token",
        action="store_true",
        help="put the main token itself in the HTTP snippet (not with --client)",
    )
    p.add_argument(
        "--client",
        dest="client_token",
        metavar="NAME",
        help="for a named client token: its stdio command serves as that client, its HTTP form takes that "
        "client's token",
    )


def mcp_deps(ctx: CliContext) -> McpDeps:
    """The server's parts: the profile's services (store, settings, tool registry, search)."""
    from noted.indexer.coverage import index_built
    from noted.mcp.deps import McpDeps

    ctx.services.start_watching()  # a Markdown folder's outside changes reach the clients
    # Kept up to date, as in the app (a first one is noted index's). Nothing here asks Joplin, so
    # the server starts while it is off and its tools say so until it is back.
    if index_built(ctx.services.db):
        threading.Thread(target=ctx.services.start_indexer, kwargs={"label": "mcp"}, daemon=True).start()
    return McpDeps.of(ctx.services, log_path=ctx.profile.log_path)


def cmd_serve(args: argparse.Namespace, ctx: CliContext) -> int:
    """Serve until stdin closes (``--stdio``) or until Ctrl+C / SIGTERM (HTTP)."""
    host = given(args.host, "--host", left_out="mcp.host")
    if host is not None and not is_listen_address(host):
        raise InvalidInputError(
            f"--host {host!r} is not a host name or an IP address", hint="write it like 127.0.0.1 or ::1"
        )
    if args.stdio and (args.port is not None or args.host is not None or args.actions):
        raise InvalidInputError("--port, --host and --actions are for HTTP; leave them out with --stdio")
    if args.client is not None and not args.stdio:
        raise InvalidInputError(
            "--client is for --stdio; over HTTP the client is the one whose token the request carries"
        )
    check_range("--port", args.port, 0, 65_535)
    # The SDK is imported here, not at the top: every other command would pay seconds for it.
    from noted.mcp.logs import send_library_logs_to_noted
    from noted.mcp.server import NotedMcp
    from noted.mcp.stdio import serve_stdio

    deps = mcp_deps(ctx)  # opens the profile and its log file
    send_library_logs_to_noted()
    for problem in deps.settings.problems:  # on stderr: with --stdio, stdout is the protocol
        ctx.error(problem)
    if args.stdio:
        if args.client is not None:
            _known_client(deps.settings, args.client)
        asyncio.run(serve_stdio(NotedMcp(deps, client=args.client)))
        return 0
    actions = True if args.actions else None  # without the flag, mcp.actions.enabled decides
    options = HttpOptions.from_settings(deps.settings, host=args.host, port=args.port, actions=actions)
    if options.token_refused is not None:  # the problem printed above says so: nothing more to add
        return ExitCode.BAD_INPUT
    return asyncio.run(_serve_http(ctx, deps, options))


async def _serve_http(ctx: CliContext, deps: McpDeps, options: HttpOptions) -> int:
    from noted.mcp.http import HttpServer
    from noted.mcp.server import NotedMcp

    mcp = NotedMcp(deps)
    http = HttpServer(mcp, options)
    await http.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not on Windows' default loop
            loop.add_signal_handler(signum, stop.set)
    _banner(ctx, deps, options, http, mcp)
    waiter = asyncio.create_task(stop.wait())
    ended = asyncio.create_task(http.wait())
    try:
        await asyncio.wait({waiter, ended}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
        ended.cancel()
        await http.stop()
    if http.failure is not None:
        ctx.error(f"the MCP server stopped unexpectedly; the details are in {deps.log_path or 'the log'}")
        return 1
    ctx.out("MCP server stopped.")
    return 0


def _banner(ctx: CliContext, deps: McpDeps, options: HttpOptions, http: HttpServer, mcp: NotedMcp) -> None:
    on = sorted(mcp.offered_names())
    ctx.out(f"noted MCP server listening on {http.url}")
    if not options.loopback:
        ctx.out(f"  reachable from other machines on {options.host}:{http.port}")
    ctx.out(f"  {_who_gets_in(options)}")
    ctx.out(
        f"  tools on ({len(on)}): {', '.join(on) or 'none'}; switch others with `noted config set ai.tool.…`"
    )
    allowed = mcp.allowed.scope().named()
    if allowed:
        from noted.mcp.scopes import describe

        ctx.out(f"  notebooks (mcp.allowedNotebooks): {', '.join(describe(deps.store, sorted(allowed)))}")
    if http.openapi_url is not None:
        ctx.out(
            f"  OpenAPI actions: {http.openapi_url} and POST /actions/{{tool}} (bearer token required); "
            "whatever service you connect can read, and with write tools on change, your notes"
        )
    if deps.log_path is not None:
        ctx.out(f"  log: {deps.log_path}")
    ctx.out("  health: GET /healthz; stop with Ctrl+C")
    sys.stdout.flush()


def _who_gets_in(options: HttpOptions) -> str:
    """Which tokens a request must carry, naming the main one and the clients' alike."""
    clients = options.open_clients()
    names = [e.name for e in clients.entries()] if clients is not None else []
    kinds = [f"the token in {options.token_file}"] if options.token_file is not None else []
    if names:
        kinds.append(f"a client token ({', '.join(names)}: see `noted mcp token list`)")
    if kinds:
        return "every request must carry Authorization: Bearer <" + "> or <".join(kinds) + ">"
    if options.door_closed():
        return "every request must carry a token, and none is set: `noted mcp token add NAME` or `noted mcp token`"
    return "loopback only, no token (`noted mcp token add NAME` gives an app its own)"


def _known_client(settings: Settings, name: str) -> None:
    if ClientTokens.beside(settings.path).get(name) is None:
        raise InvalidInputError(
            f"there is no client token named {name!r}", hint=f"add one with `noted mcp token add {name}`"
        )


def cmd_token(args: argparse.Namespace, ctx: CliContext) -> int:
    """Write a new token file (0600) and point ``mcp.tokenFile`` at it; or manage named clients."""
    if args.client_action is not None:
        return client_tokens_command(args, ctx)
    if args.name is not None or args.notebooks is not None or args.tools is not None:
        raise InvalidInputError("a name, --notebooks and --tools go with `noted mcp token add NAME`")
    chosen = given(args.path, "--path", left_out=f"PROFILE/{TOKEN_FILE_NAME}")
    profile = ctx.profile.ensure()
    path = Path(chosen).expanduser().resolve() if chosen is not None else profile.root / TOKEN_FILE_NAME
    token = create(path, overwrite=args.force)
    settings = Settings.load(profile)
    settings.set(MCP_TOKEN_FILE, str(path))
    if ctx.json:
        ctx.emit(
            {"path": str(path), "setting": MCP_TOKEN_FILE.key, **({"token": token} if args.show else {})}
        )
        return 0
    ctx.out(f"token written to {path} (readable by you only); mcp.tokenFile now points at it")
    ctx.out("HTTP clients must send: Authorization: Bearer <the token>; `noted mcp config CLIENT` shows how")
    if args.show:
        ctx.out(token)
    return 0


def cmd_config(args: argparse.Namespace, ctx: CliContext) -> int:
    """Print the stdio and/or HTTP snippet for one AI app, for this profile."""
    profile = ctx.profile
    settings = Settings.load(profile)
    options = HttpOptions.from_settings(settings)
    client = args.client_token
    if client is not None:
        _known_client(settings, client)
        if args.show_token:  # the main token's scope is every notebook: never the client's
            raise InvalidInputError(
                f"--show-token cannot show the client {client}'s token: noted keeps only its hash",
                hint=f"use the one `noted mcp token add {client}` printed; if it is lost, revoke it and add it again",
            )
    token = None
    if args.show_token and options.token_file is not None:
        token = options.open_token()
    target = Target(
        command=stdio_command(profile.root, client),
        url=options.client_url(),
        token_file=options.token_file,
        token=token.read() if token is not None else None,
        client=client,
    )
    chosen = [s for s in snippets(args.client, target) if args.transport in ("both", s.transport)]
    if ctx.json:
        ctx.emit(
            [{"client": s.client, "transport": s.transport, "where": s.where, "text": s.text} for s in chosen]
        )
    else:
        ctx.out(render(chosen))
    return 0

"""``noted mcp token add|list|revoke|open|close``: named client tokens, and the door without one.

noted mcp token add claude --notebooks Work --tools read    prints the new token once
noted mcp token list                                         names, notebooks, tools (never tokens)
noted mcp token revoke claude                                stops working at the next request
noted mcp token open | close                                 requests without a token: let in, or not
"""

from __future__ import annotations

import argparse
from typing import Any

from noted.cli.context import CliContext
from noted.errors import InvalidInputError, NotFoundError
from noted.mcp.client_tokens import ALL, READ, ClientToken, ClientTokens
from noted.mcp.options import HttpOptions
from noted.settings import Settings
from noted.settings.handles import MCP_WRITES

OPEN_HINT = "`noted mcp token open` lets requests without a token in again (on loopback)"


def client_tokens_command(args: argparse.Namespace, ctx: CliContext) -> int:
    """Run ``add``, ``list``, ``revoke``, ``open`` or ``close`` on the profile's client tokens."""
    profile = ctx.profile.ensure()
    settings = Settings.load(profile)
    clients = ClientTokens.beside(settings.path)
    action = args.client_action
    if action in ("list", "open", "close"):
        if args.name or args.notebooks is not None or args.tools is not None:
            raise InvalidInputError(f"`noted mcp token {action}` takes no name, --notebooks or --tools")
        return {"list": _list, "open": _open, "close": _close}[action](clients, settings, ctx)
    if not args.name:
        raise InvalidInputError(f"`noted mcp token {action}` needs the client's name, e.g. claude")
    if action == "revoke":
        return _revoke(args.name, clients, settings, ctx)
    return _add(args, clients, ctx)


def _split(option: str, value: str | None) -> list[str] | None:
    """The comma-separated parts of an option; None when it was left out.

    Raises:
        InvalidInputError: it was given but holds nothing (an unset shell variable must not grant all).
    """
    if value is None:
        return None
    parts = [part.strip() for part in value.split(",") if part.strip()]
    if not parts:
        raise InvalidInputError(
            f"{option} is empty; name at least one, or leave {option} out for all",
            hint="an empty value never means all",
        )
    return parts


def _add(args: argparse.Namespace, clients: ClientTokens, ctx: CliContext) -> int:
    from noted.mcp.scopes import describe, notebook_ids
    from noted.tools import all_tools  # the tools are loaded only to check names

    tools = _split("--tools", args.tools) or [ALL]
    known = sorted(t.name for t in all_tools() if not t.editor)
    unknown = [t for t in tools if t not in known and t not in (READ, ALL)]
    if unknown:
        raise InvalidInputError(
            f"no tool is called {', '.join(unknown)}",
            hint=f"use {READ}, {ALL} or tool names: {', '.join(known)}",
        )
    names = _split("--notebooks", args.notebooks)
    store = ctx.services.store
    ids = notebook_ids(store, names) if names is not None else None
    token = clients.add(args.name, notebooks=ids, tools=tools, writes=args.writes)
    paths = describe(store, ids) if ids is not None else None
    if ctx.json:
        ctx.emit(
            {"name": args.name, "token": token, "notebooks": paths, "notebook_ids": ids, "tools": tools}
            | {"writes": args.writes}
        )
        return 0
    shown = ", ".join(paths) if paths is not None else "all that mcp.allowedNotebooks allows"
    ctx.out(
        f"client {args.name!r} added: notebooks {shown} (and the notebooks inside); tools {', '.join(tools)}"
        + ("; its writes wait for your review (`noted changes`)" if args.writes == "review" else "")
    )
    ctx.out("its token (shown this once; put it in the app's configuration):")
    ctx.out(token)
    ctx.out(
        f"  HTTP: send `Authorization: Bearer <token>`; stdio: `noted mcp serve --stdio --client {args.name}`"
    )
    ctx.out("  every HTTP request now needs a token; `noted mcp token revoke NAME` withdraws one")
    return 0


def _revoke(name: str, clients: ClientTokens, settings: Settings, ctx: CliContext) -> int:
    if not clients.revoke(name):
        raise NotFoundError(
            f"there is no client token named {name!r}", hint="`noted mcp token list` lists them"
        )
    left = [e.name for e in clients.entries()]
    main = HttpOptions.from_settings(settings).token_file
    if ctx.json:
        ctx.emit(
            {"name": name, "revoked": True, "clients_left": left, "main_token": str(main) if main else None}
        )
        return 0
    ctx.out(
        f"client {name!r} revoked: its token is refused (401) from its next request, by `noted mcp serve` and the app"
    )
    ctx.out(f"  every HTTP request still needs a valid token: {_who_gets_in(left, main)}")
    ctx.out(f"  {OPEN_HINT}" if not left else "  stdio servers started with --client for it stop serving too")
    return 0


def _who_gets_in(clients: list[str], main: object) -> str:
    """Which tokens the HTTP server accepts now, in words."""
    kinds = []
    if clients:
        kinds.append(f"the client token{'s' if len(clients) > 1 else ''} left ({', '.join(clients)})")
    if main is not None:
        kinds.append(f"the main token in {main}")
    return " or ".join(kinds) if kinds else "there is none left, so every HTTP request is refused"


def _open(clients: ClientTokens, settings: Settings, ctx: CliContext) -> int:
    clients.open_door()
    main = HttpOptions.from_settings(settings).token_file
    if ctx.json:
        ctx.emit({"door": "open", "main_token": str(main) if main else None})
        return 0
    if main is not None:
        ctx.out(f"the door is open, but mcp.tokenFile is set: requests still need the main token in {main}")
        return 0
    ctx.out(
        "the door is open: HTTP requests on loopback need no token, and get every notebook "
        "mcp.allowedNotebooks allows and every tool switched on; servers elsewhere than loopback refuse to start"
    )
    ctx.out("  `noted mcp token close` (or adding a client token) makes every request need a token again")
    return 0


def _close(clients: ClientTokens, settings: Settings, ctx: CliContext) -> int:
    clients.close_door()
    left = [e.name for e in clients.entries()]
    main = HttpOptions.from_settings(settings).token_file
    if ctx.json:
        ctx.emit({"door": "closed", "clients": left, "main_token": str(main) if main else None})
        return 0
    ctx.out(f"the door is closed: every HTTP request needs a valid token: {_who_gets_in(left, main)}")
    return 0


def _list(clients: ClientTokens, settings: Settings, ctx: CliContext) -> int:
    from noted.mcp.scopes import describe, settle_clients

    store = ctx.services.store if any(e.notebooks is not None for e in clients.entries()) else None
    if store is not None:
        settle_clients(clients, store)  # names an older noted kept become ids (once)
    entries = clients.entries()
    rows = [_row(entry, describe(store, entry.notebooks) if store and entry.notebooks is not None else None)
            for entry in entries]  # fmt: skip
    if ctx.json:
        ctx.emit(rows)
        return 0
    if settings.get(MCP_WRITES) == "review":
        ctx.out("mcp.writes is review: every AI app's writes wait for your review (`noted changes`)")
    if not rows:
        main = HttpOptions.from_settings(settings).token_file
        door = (
            "every HTTP request needs a token"
            if clients.closed()
            else f"requests need the main token in {main}"
            if main is not None
            else "requests on loopback need no token"
        )
        ctx.out(f"no client tokens ({door}); add one with `noted mcp token add NAME --notebooks … --tools …`")
        return 0
    for row in rows:
        shown = ", ".join(row["notebooks"]) if row["notebooks"] is not None else "all allowed"
        ctx.out(
            f"{row['name']}: notebooks {shown}; tools {', '.join(row['tools'])}; writes {row['writes']}; "
            f"created {row['created']}"
        )
    return 0


def _row(entry: ClientToken, paths: list[str] | None) -> dict[str, Any]:
    """What ``list`` shows of one client (never its token or hash)."""
    return {
        "name": entry.name,
        "notebooks": paths,
        "notebook_ids": list(entry.notebooks) if entry.notebooks is not None else None,
        "tools": list(entry.tools),
        "created": entry.created,
        "writes": entry.writes,
    }

"""``noted mcp token add|list|revoke``: named client tokens, each with its own notebooks and tools.

noted mcp token add claude --notebooks Work --tools read    prints the new token once
noted mcp token list                                         names, notebooks, tools (never tokens)
noted mcp token revoke claude                                stops working at the next request
"""

from __future__ import annotations

import argparse

from noted.cli.context import CliContext
from noted.errors import InvalidInputError, NotFoundError
from noted.mcp.client_tokens import ALL, READ, ClientTokens
from noted.settings import Settings


def client_tokens_command(args: argparse.Namespace, ctx: CliContext) -> int:
    """Run ``add``, ``list`` or ``revoke`` on the profile's client tokens."""
    profile = ctx.profile.ensure()
    clients = ClientTokens.beside(Settings.load(profile).path)
    action = args.client_action
    if action == "list":
        return _list(clients, ctx)
    if not args.name:
        raise InvalidInputError(f"`noted mcp token {action}` needs the client's name, e.g. claude")
    if action == "revoke":
        if not clients.revoke(args.name):
            raise NotFoundError(
                f"there is no client token named {args.name!r}", hint="`noted mcp token list` lists them"
            )
        if ctx.json:
            ctx.emit({"name": args.name, "revoked": True})
        else:
            ctx.out(f"client {args.name!r} revoked: its token stops working at its next request")
        return 0
    return _add(args, clients, ctx)


def _split(value: str | None) -> list[str]:
    return [part.strip() for part in (value or "").split(",") if part.strip()]


def _add(args: argparse.Namespace, clients: ClientTokens, ctx: CliContext) -> int:
    from noted.tools import all_tools  # the tools are loaded only to check names

    tools = _split(args.tools) or [ALL]
    known = {t.name for t in all_tools() if not t.editor}
    unknown = [t for t in tools if t not in known and t not in (READ, ALL)]
    if unknown:
        raise InvalidInputError(
            f"no tool is called {', '.join(unknown)}",
            hint=f"use {READ}, {ALL} or tool names from `noted config list ai.tool`",
        )
    notebooks = _split(args.notebooks)
    token = clients.add(args.name, notebooks=notebooks, tools=tools)
    missing = _unknown_notebooks(ctx, notebooks)
    if ctx.json:
        ctx.emit(
            {"name": args.name, "token": token, "notebooks": notebooks, "tools": tools, "unknown": missing}
        )
        return 0
    if missing:
        ctx.error(
            f"warning: no notebook is called {', '.join(missing)} now; the client sees nothing there "
            "until one is (titles are exact, ids work too)"
        )
    ctx.out(
        f"client {args.name!r} added: notebooks {', '.join(notebooks) or 'all allowed'}; tools {', '.join(tools)}"
    )
    ctx.out("its token (shown this once; put it in the app's configuration):")
    ctx.out(token)
    ctx.out(
        f"  HTTP: send `Authorization: Bearer <token>`; stdio: `noted mcp serve --stdio --client {args.name}`"
    )
    ctx.out("  every HTTP request now needs a token; `noted mcp token revoke NAME` withdraws one")
    return 0


def _unknown_notebooks(ctx: CliContext, notebooks: list[str]) -> list[str]:
    from noted.tools.scope import Scope

    return list(Scope.of(notebooks).unknown(ctx.services.store)) if notebooks else []


def _list(clients: ClientTokens, ctx: CliContext) -> int:
    rows = [entry.summary() for entry in clients.entries()]
    if ctx.json:
        ctx.emit(rows)
        return 0
    if not rows:
        ctx.out("no client tokens; add one with `noted mcp token add NAME --notebooks … --tools …`")
        return 0
    for row in rows:
        ctx.out(
            f"{row['name']}: notebooks {', '.join(row['notebooks'])}; tools {', '.join(row['tools'])}; created {row['created']}"
        )
    return 0

"""What an outside app may do now, for a proposal of its that the person accepts.

A proposal keeps the scope it was made in; by the time the person accepts it, its client may have
been narrowed (its notebooks or tools in ``mcp-clients.json``, ``mcp.allowedNotebooks``) or
revoked. ``standing`` gives the context the write is carried out in, with the scope the client
has now, so ``noted.tools.proposals.apply`` runs it within both; a client whose token was revoked,
or whose tools no longer hold the proposal's, may make no write at all. Light: no SDK import.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from noted.errors import ConfigError
from noted.mcp.client_tokens import ACTOR_PREFIX, SELF_NAMED, ClientTokens
from noted.mcp.scopes import Settled
from noted.store.review import ProposalRow
from noted.tools.base import ToolContext

if TYPE_CHECKING:
    from noted.tools.registry import ToolRegistry

DOORS = (ACTOR_PREFIX, "actions:")
"""The actors' prefixes of outside apps (MCP, the OpenAPI door), whose scope the settings set."""


def standing(context: ToolContext, registry: ToolRegistry, proposal: ProposalRow) -> tuple[ToolContext, str]:
    """The context to carry out ``proposal`` in (``context``, its client's, with the scope it has
    now), and why its client may make no write now (``""`` when it may). An outside app's scope is
    ``mcp.allowedNotebooks`` as it is now (a name not yet resolved to an id matches nothing),
    narrowed by its client token as it is now; the assistant's is the whole profile, as in a chat."""
    door = next((d for d in DOORS if proposal.client.startswith(d)), None)
    if door is None:
        return context, ""
    scope = Settled(context.settings, context.store).scope()
    name, owner = proposal.client.removeprefix(door), str(proposal.detail.get("owner", ""))
    if name.startswith(SELF_NAMED) or not owner:  # no token of its own, or none recorded: the
        return replace(context, scope=scope), ""  # settings' scope (and the one it was made in)
    try:
        token = ClientTokens.beside(context.settings.path).get(name)
    except ConfigError:
        return context, "the client tokens file cannot be read now, so its client's scope is unknown"
    if token is None or token.owner != owner:  # one added again under its name is another client
        return context, f'the client token "{name}" that made it was revoked'
    tool = registry.get(proposal.tool)
    if tool is None or not token.allows(tool):
        return context, f'{proposal.tool} is no longer among the tools of the client token "{name}"'
    return replace(context, scope=token.scope(scope)), ""

"""A revoked client's open notice stream hears nothing more, and ends.

Two clients of one server, "keep" and "gone", each with its own token and an open notice stream
(the handshake era's GET stream, or a 2026-07-28 ``subscriptions/listen`` stream). Once "gone" is
revoked (as ``noted mcp token revoke`` does, in the clients file), or the main token it holds is
replaced, a tool switched on or off must reach "keep" only, and a listen stream ends at the
server's next poll (GET streams: ``test_mcp_stream_tokens``). Not vacuous: both streams heard a notice before the revocation, and "keep"
hears the one after it, so "gone" hearing nothing is the revocation's doing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import ToolsListChanged
from tests.integration.mcp_support import World, bearer, http_client, http_server, make_world
from tests.support.polling import scaled

from noted.mcp.client_tokens import ClientTokens
from noted.mcp.token import create

KEY = "ai.tool.create_note.enabled"


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = make_world(tmp_path / "profile", semantic=False)
    yield w
    w.close()


def _notices(heard: list[Any]) -> int:
    return sum(isinstance(m, types.ToolListChangedNotification) for m in heard)


async def _flip_until(world: World, heard: list[list[Any]]) -> None:
    """Flip a tool switch until every list in ``heard`` has a notice (a GET stream opens in the
    background after connecting, and a notice sent before it is open is lost by design)."""
    with anyio.fail_after(scaled(60)):
        while not all(_notices(h) for h in heard):
            world.settings.set(KEY, not world.settings.resolve(KEY).value)
            with anyio.move_on_after(1.0):
                while not all(_notices(h) for h in heard):
                    await anyio.sleep(0.02)


async def test_a_revoked_clients_get_stream_hears_no_more_notices(world: World) -> None:
    clients = ClientTokens.beside(world.settings.path)
    keep, gone = clients.add("keep"), clients.add("gone")
    kept: list[Any] = []
    lost: list[Any] = []
    async with http_server(world, clients_file=clients.path) as http:
        url = str(http.url)
        async with (
            http_client(url, "legacy", headers=bearer(keep), on_message=kept.append) as keeper,
            http_client(url, "legacy", headers=bearer(gone), on_message=lost.append) as goner,
        ):
            await _flip_until(world, [kept, lost])  # both streams are open and hear notices
            assert clients.revoke("gone")
            kept.clear()
            lost.clear()
            await _flip_until(world, [kept])
            await anyio.sleep(0.5)  # a notice to "gone" would have been sent with "keep"'s
            assert _notices(lost) == 0, lost
            await keeper.list_tools()  # "keep" is still served
            with pytest.raises(MCPError):  # and "gone"'s next request is refused
                await goner.list_tools()


@pytest.mark.parametrize("ended_by", ["revoking the client", "replacing the main token"])
async def test_a_listen_stream_ends_with_its_token_and_hears_nothing(world: World, ended_by: str) -> None:
    path = world.profile.root / "token"
    main = create(path)
    clients = ClientTokens.beside(world.settings.path)
    keep, gone = clients.add("keep"), clients.add("gone")
    old = gone if ended_by == "revoking the client" else main
    mode = "2026-07-28"
    async with http_server(world, token_file=path, clients_file=clients.path) as http:
        url = str(http.url)
        async with (
            http_client(url, mode, headers=bearer(keep)) as keeper,
            http_client(url, mode, headers=bearer(old)) as goner,
            keeper.listen(tools_list_changed=True) as kept,
            goner.listen(tools_list_changed=True) as lost,
        ):
            world.settings.set(KEY, True)
            with anyio.fail_after(scaled(60)):
                assert isinstance(await kept.__anext__(), ToolsListChanged)
                assert isinstance(await lost.__anext__(), ToolsListChanged)  # it worked before
            if old == gone:
                assert clients.revoke("gone")
            else:  # as `noted mcp token --force` does: a new token in the same file
                create(path, overwrite=True)
            with anyio.fail_after(scaled(60)), pytest.raises(StopAsyncIteration):
                await lost.__anext__()  # ended by the server's poll, before any notice
            world.settings.set(KEY, False)
            with anyio.fail_after(scaled(60)):
                assert isinstance(await kept.__anext__(), ToolsListChanged)
            with pytest.raises(MCPError):
                await goner.list_tools()

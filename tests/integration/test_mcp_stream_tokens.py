"""Notice streams end with the token that opened them: a client token revoked, the main token replaced.

A handshake-era client keeps a silent GET (SSE) stream open for notices; the SDK's client opens it
again when the server ends it. So the stream's end shows on the client's side as a new GET, and
that GET is refused (401) because its token is no longer in force (listen streams:
``test_mcp_revoked_streams``). Not vacuous: before the
revocation or the rotation both streams heard a notice, and "keep" (a token still in force) hears
the one after it and keeps its GET stream, so what "gone" sees is the token's doing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp.shared.exceptions import MCPError
from tests.integration.mcp_support import World, bearer, http_client, http_server, make_world, wait_for
from tests.integration.test_mcp_revoked_streams import _flip_until, _notices
from tests.support.polling import scaled

from noted.mcp.client_tokens import ClientTokens
from noted.mcp.token import create


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = make_world(tmp_path / "profile", semantic=False)
    yield w
    w.close()


class Gets:
    """The statuses of the GET requests one client made (its notice stream, opened again)."""

    def __init__(self) -> None:
        self.statuses: list[int] = []

    async def __call__(self, response: httpx2.Response) -> None:
        if response.request.method == "GET":
            self.statuses.append(response.status_code)


async def _stream_refused_after(world: World, main: str, gone: str, end: Any) -> None:
    """Two legacy clients, "keep" with ``main`` and the other with ``gone``; ``end()`` takes
    ``gone``'s token out of force: its GET stream must end and be refused when opened again."""
    kept: list[Any] = []
    lost: list[Any] = []
    kept_gets, lost_gets = Gets(), Gets()
    async with http_server(world, **world_options(world)) as http:
        url = str(http.url)
        async with (
            http_client(
                url, "legacy", headers=bearer(main), on_message=kept.append, on_response=kept_gets
            ) as keeper,
            http_client(
                url, "legacy", headers=bearer(gone), on_message=lost.append, on_response=lost_gets
            ) as goner,
        ):
            await _flip_until(world, [kept, lost])  # both GET streams are open and hear notices
            assert lost_gets.statuses == [200] and kept_gets.statuses == [200]
            end()
            # the stream ends within the server's poll (not the session's 30 min idle timeout), and
            # the client's next GET is refused: the token is no longer in force
            await wait_for(lambda: 401 in lost_gets.statuses, timeout=scaled(30))
            assert lost_gets.statuses[0] == 200 and set(lost_gets.statuses[1:]) == {401}
            kept.clear()
            lost.clear()
            await _flip_until(world, [kept])
            assert _notices(lost) == 0, lost
            assert kept_gets.statuses == [200]  # "keep"'s stream was never ended
            await keeper.list_tools()
            with pytest.raises(MCPError):
                await goner.list_tools()


def world_options(world: World) -> dict[str, Any]:
    token = world.profile.root / "token"
    return {"token_file": token, "clients_file": ClientTokens.beside(world.settings.path).path}


async def test_a_revoked_clients_silent_get_stream_is_closed(world: World) -> None:
    main = create(world.profile.root / "token")
    clients = ClientTokens.beside(world.settings.path)
    gone = clients.add("gone")
    await _stream_refused_after(world, main, gone, lambda: clients.revoke("gone"))


async def test_a_get_stream_opened_with_the_main_token_closes_when_the_token_is_replaced(
    world: World,
) -> None:
    path = world.profile.root / "token"
    old = create(path)
    clients = ClientTokens.beside(world.settings.path)
    keep = clients.add("keep")
    # as `noted mcp token --force` does: a new token in the same file
    await _stream_refused_after(world, keep, old, lambda: create(path, overwrite=True))

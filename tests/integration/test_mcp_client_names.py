"""The name and version a client gives itself reach the log and the history only as plain text.

``clientInfo`` is the client's to choose. Its name lost C0 control characters, but a C1 one
(``\\x9b``, a terminal's CSI) and a right-to-left override stayed in the actor that ``noted
history`` and the Changes view print, and its version went into the log as sent, escape sequences
included: ``tail noted.log`` cleared the person's screen.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests.integration.mcp_support import ACCEPT, World, http_server, make_world
from tests.support.polling import scaled

UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
NAME = "evil\x9b31m\u202eedualc"
VERSION = "1\x1b[2J\x9b2J\u202e"


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = make_world(tmp_path / "profile", semantic=False)
    w.settings.set("ai.tool.update_note.enabled", True)
    yield w
    w.close()


@pytest.fixture
def noted_records(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """caplog, its handler on the "noted" logger itself: a CLI test earlier in the same process may
    have pointed noted's loggers at a profile's log file and stopped them propagating to caplog's."""
    logger = logging.getLogger("noted")
    logger.addHandler(caplog.handler)
    try:
        with caplog.at_level(logging.INFO, logger="noted"):
            yield caplog
    finally:
        logger.removeHandler(caplog.handler)


async def test_a_clients_own_name_and_version_are_shown_without_controls(
    world: World, noted_records: pytest.LogCaptureFixture
) -> None:
    caplog = noted_records
    cursor = world.store.changes_since(0).cursor
    info = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": NAME, "version": VERSION},
    }
    async with http_server(world) as http, httpx.AsyncClient(timeout=scaled(120)) as raw:
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": info}
        opened = await raw.post(str(http.url), json=init, headers=ACCEPT)
        session = {
            **ACCEPT,
            "mcp-session-id": opened.headers["mcp-session-id"],
            "mcp-protocol-version": "2025-06-18",
        }
        await raw.post(
            str(http.url), json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session
        )
        call = {"name": "update_note", "arguments": {"id": world.work_note, "append": "hello"}}
        done = await raw.post(
            str(http.url),
            json={"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call},
            headers=session,
        )
        assert done.status_code == 200 and "hello" in world.store.get_note(world.work_note).body
    (actor,) = {c.actor for c in world.store.changes_since(cursor).changes}
    assert actor.startswith("mcp:self:evil") and "edualc" in actor  # not vacuous: the name is there
    assert UNSAFE.search(actor) is None, repr(actor)
    lines = [r.getMessage() for r in caplog.records if "connected" in r.getMessage()]
    assert lines and all("evil" in line for line in lines)
    assert all(UNSAFE.search(line) is None for line in lines), lines

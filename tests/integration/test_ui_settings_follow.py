"""The running app follows ``config.toml``: a setting changed from a shell reaches it, without a restart.

Driven by Pilot on the real app; the change is made by a real ``noted config set`` process, and the
proof is what the person sees: the chat's wait counts against the new ``ai.timeoutSeconds``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from tests.integration.ui_support import Fixture, open_services, ready, until
from tests.support.cli import run_noted
from tests.support.wire_server import SilentReply, WireServer
from textual.widgets import Input

from noted.ui.app import NotedApp
from noted.ui.chat.views import StatusLine

DEADLINE = 60.0  # seconds: only turns a hang into a failure


@pytest.fixture
def wire() -> Iterator[WireServer]:
    with WireServer() as server:
        yield server


async def test_a_timeout_set_from_a_shell_reaches_the_running_chat(
    fixture: Fixture, wire: WireServer
) -> None:
    wire.push(SilentReply())
    services = open_services(
        fixture.root, ai_enabled="true", ai_provider="openai", ai_model="m", ai_baseurl=wire.base_url + "/v1"
    )
    app = NotedApp(services)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await ready(pilot)
            assert services.settings.get_int("ai.timeoutSeconds") == 120
            done = await asyncio.to_thread(run_noted, fixture.root, "config", "set", "ai.timeoutSeconds", "7")
            assert done.returncode == 0, done.stderr
            # Not vacuous: before, the app kept 120 until it was restarted.
            await until(pilot, lambda: services.settings.get_int("ai.timeoutSeconds") == 7, timeout=DEADLINE)

            await pilot.press("ctrl+t")
            await until(
                pilot, lambda: app.workspace.query_one("#chat-input", Input).has_focus, timeout=DEADLINE
            )
            prompt = app.workspace.query_one("#chat-input", Input)
            prompt.value = "Hello?"
            await pilot.press("enter")
            status = app.workspace.query_one(StatusLine)
            await until(pilot, lambda: "s of 7 s" in (status.text or ""), timeout=DEADLINE)
            await pilot.press("escape")
            await until(pilot, lambda: not status.text, timeout=DEADLINE)
    finally:
        services.close()

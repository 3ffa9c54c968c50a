"""The assistant in the real app, driven by Pilot against a loopback model server.

The app follows ``config.toml``: a setting changed by a real ``noted config set`` process reaches it
without a restart (the proof is what the person sees: the chat's wait counts against the new
``ai.timeoutSeconds``). The status bar's tokens are the conversation's size of the budget.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from tests.integration.ui_support import Fixture, open_services, ready, until
from tests.support.cli import run_noted
from tests.support.wire_server import SilentReply, StreamReply, WireServer, openai_chunk, openai_stream
from textual.pilot import Pilot

from noted.services import Services
from noted.settings.handles import AI_TIMEOUT_SECONDS
from noted.ui.app import NotedApp
from noted.ui.chat.picker import ConversationPicker
from noted.ui.chat.views import AnswerView, ChatInput, StatusLine
from noted.ui.widgets.status_bar import StatusBar

DEADLINE = 60.0  # seconds: only turns a hang into a failure


@pytest.fixture
def wire() -> Iterator[WireServer]:
    with WireServer() as server:
        yield server


def wired(fixture: Fixture, wire: WireServer) -> Services:
    return open_services(
        fixture.root, ai_enabled="true", ai_provider="openai", ai_model="m", ai_baseurl=wire.base_url + "/v1"
    )


async def send(pilot: Pilot[None], app: NotedApp, text: str) -> None:
    def focused() -> bool:
        found = app.workspace.query("#chat-input")
        return bool(found) and found.first(ChatInput).has_focus

    if not focused():
        await pilot.press("ctrl+t")  # the chat pane is built when first shown
        await until(pilot, focused, timeout=DEADLINE)
    prompt = app.workspace.query_one("#chat-input", ChatInput)
    prompt.value = text
    await pilot.press("enter")


def answer(text: str, prompt_tokens: int, completion_tokens: int) -> StreamReply:
    usage = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "total_tokens": 0}
    last = openai_chunk(no_choices=True, usage=usage)
    return openai_stream([openai_chunk(content=text), openai_chunk(finish_reason="stop"), last])


async def test_the_status_bar_shows_the_conversation_size_of_the_budget(
    fixture: Fixture, wire: WireServer
) -> None:
    wire.push(answer("One.", 1_000, 50), answer("Two.", 1_100, 60))
    services = wired(fixture, wire)
    app = NotedApp(services)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await ready(pilot)
            bar = app.workspace.query_one(StatusBar)
            await send(pilot, app, "First?")
            # Not vacuous: before, the bar said "1,050 tokens", unrelated to the budget.
            await until(pilot, lambda: "1,050 of 80,000 tokens" in bar.part("tokens"), timeout=DEADLINE)
            await until(pilot, lambda: not app.workspace.query_one(StatusLine).text, timeout=DEADLINE)
            await send(pilot, app, "Second?")
            # The size as the next request is measured (1,160), not the sum of both (2,210).
            await until(pilot, lambda: "1,160 of 80,000 tokens" in bar.part("tokens"), timeout=DEADLINE)
            assert len(app.workspace.query(AnswerView)) == 2
            await until(pilot, lambda: not app.workspace.query_one(StatusLine).text, timeout=DEADLINE)

            # Issue 39: a new chat, then the earlier one resumed, showed 10 tokens (its messages
            # alone, without the system prompt and the tools the provider had counted).
            await pilot.press("ctrl+n")
            await until(pilot, lambda: not bar.part("tokens"), timeout=DEADLINE)
            await pilot.press("ctrl+r")
            picker = app.workspace.query_one(ConversationPicker)
            await until(pilot, lambda: picker.shown and picker.option_count == 1, timeout=DEADLINE)
            await pilot.press("enter")
            await until(pilot, lambda: "1,160 of 80,000 tokens" in bar.part("tokens"), timeout=DEADLINE)

            # The budget lowered from a shell: the bar says so without a restart (it kept 80,000).
            done = await asyncio.to_thread(
                run_noted, fixture.root, "config", "set", "ai.budgetTokens", "50000"
            )
            assert done.returncode == 0, done.stderr
            await until(pilot, lambda: "1,160 of 50,000 tokens" in bar.part("tokens"), timeout=DEADLINE)
    finally:
        services.close()


async def test_a_timeout_set_from_a_shell_reaches_the_running_chat(
    fixture: Fixture, wire: WireServer
) -> None:
    wire.push(SilentReply())
    services = wired(fixture, wire)
    app = NotedApp(services)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await ready(pilot)
            assert services.settings.get(AI_TIMEOUT_SECONDS) == 120
            done = await asyncio.to_thread(run_noted, fixture.root, "config", "set", "ai.timeoutSeconds", "7")
            assert done.returncode == 0, done.stderr
            # Not vacuous: before, the app kept 120 until it was restarted.
            await until(pilot, lambda: services.settings.get(AI_TIMEOUT_SECONDS) == 7, timeout=DEADLINE)

            await send(pilot, app, "Hello?")
            status = app.workspace.query_one(StatusLine)
            await until(pilot, lambda: "s of 7 s" in (status.text or ""), timeout=DEADLINE)
            await pilot.press("escape")
            await until(pilot, lambda: not status.text, timeout=DEADLINE)
    finally:
        services.close()

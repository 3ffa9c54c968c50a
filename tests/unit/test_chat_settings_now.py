"""The chat decides each tool call, and each run's model, on the config file as it is now.

Another process (``noted config set`` in a second terminal) writes the file; the app's own
``Settings`` hears of it only at its next reload, which no test here runs. Each test changes the
file through a second ``Settings`` on it, as that other process does, while the model is answering,
and checks what the next call (or run) did in the store: on a stale read each would go through.
"""

from __future__ import annotations

import pytest
from tests.unit import test_chat_engine as chat
from tests.unit.test_chat_engine import engine_for, run

from noted.chat.events import Failed
from noted.providers import CallTool, ChatRequest, FakeProvider, Reply
from noted.services import Services
from noted.settings import Settings

services = chat.services  # the same fixture


def elsewhere(services: Services, key: str, value: str | bool) -> None:
    """``noted config set key value`` in another process: a second ``Settings`` on the same file."""
    Settings.load(services.profile, environ={}).set(key, value)


def sent_back(fake: FakeProvider) -> str:
    return "".join(getattr(m, "content", "") for m in fake.requests[-1].messages)


async def test_a_tool_switched_off_elsewhere_is_refused_at_the_next_call(services: Services) -> None:
    services.settings.set("ai.tool.create_note.enabled", True)
    services.settings.set("ai.approveWrites", False)

    def switched_off_while_answering(request: ChatRequest) -> list[CallTool]:
        elsewhere(services, "ai.tool.create_note.enabled", False)
        return [CallTool("create_note", {"title": "Leaked", "notebook_title": "Inbox"}, id="c")]

    engine, fake = engine_for(services, switched_off_while_answering, [Reply("Ok.")])
    await run(engine, services.transcripts.create(), "Make a note")

    assert [n.title for n in services.store.list_notes()] == []
    assert "ai.tool.create_note.enabled" in sent_back(fake) and "switched off" in sent_back(fake)


async def test_review_mode_set_elsewhere_makes_the_next_write_a_proposal(services: Services) -> None:
    services.settings.set("ai.tool.create_note.enabled", True)
    services.settings.set("ai.approveWrites", False)

    def review_set_while_answering(request: ChatRequest) -> list[CallTool]:
        elsewhere(services, "ai.writes", "review")
        return [CallTool("create_note", {"title": "Waits", "notebook_title": "Inbox"}, id="c")]

    engine, fake = engine_for(services, review_set_while_answering, [Reply("Ok.")])
    await run(engine, services.transcripts.create(), "Make a note")

    assert [n.title for n in services.store.list_notes()] == []  # not written: it waits
    assert [row.tool for row in services.review.rows.proposals()] == ["create_note"]


async def test_allow_remote_withdrawn_elsewhere_refuses_the_next_run(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NOTED_API_KEY", "sk-test")
    settings: dict[str, str | bool] = {
        "ai.enabled": True,
        "ai.provider": "openai",
        "ai.baseUrl": "http://192.168.1.20:11434/v1",
        "ai.model": "llama3.2",
        "ai.allowRemote": True,
    }
    for key, value in settings.items():
        services.settings.set(key, value)
    elsewhere(services, "ai.allowRemote", False)
    events = await run(services.chat_engine(), services.transcripts.create(), "Hello?")

    assert len(events) == 1 and isinstance(events[0], Failed)
    assert "ai.allowRemote is off" in events[0].message

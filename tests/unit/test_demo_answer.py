"""The offline demo answers in words from what the real tools gave it (a real profile's welcome
notes, the real search and read tools), never with the tools' JSON."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.polling import scaled

from noted.chat.events import TextDelta, ToolCallFinished
from noted.profile import Profile
from noted.providers import FakeProvider, ProviderConfig, make_provider
from noted.services import Services


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    s = Services.open(Profile(tmp_path / "profile").ensure(), welcome=True)
    yield s
    s.close()


async def _answer(services: Services, question: str) -> tuple[str, list[str]]:
    demo = make_provider(ProviderConfig(kind="fake", enabled=True))
    assert isinstance(demo, FakeProvider)
    engine = services.chat_engine(provider=lambda: demo)
    conversation = services.transcripts.create()
    text: list[str] = []
    calls: list[str] = []

    async def consume() -> None:
        async for event in engine.run(conversation, question):
            if isinstance(event, TextDelta):
                text.append(event.text)
            elif isinstance(event, ToolCallFinished):
                calls.append(event.name)

    await asyncio.wait_for(consume(), scaled(120))
    return "".join(text), calls


async def test_the_demo_names_the_notes_it_found_and_where_without_json(services: Services) -> None:
    """It answered "Here is what I found:" and each tool's raw JSON cut at 240 characters
    (``- find_notes: {"results": [{"id": "8e36…``)."""
    answer, calls = await _answer(services, "How do I switch the assistant on?")
    assert calls[-1] == "read_note", calls  # not vacuous: it searched and read a note
    assert "I found " in answer and "- “The assistant and its tools” (in Guides): " in answer, answer
    first = re.search(r"^- (“[^”]+” \(in \w+\)): ", answer, re.MULTILINE)
    assert first is not None, answer
    assert f"\n\n{first.group(1)} begins: " in answer, answer  # the note it read, by title and notebook
    assert '{"' not in answer and '"id"' not in answer and "notebook_id" not in answer, answer


async def test_the_demo_says_when_nothing_was_found(services: Services) -> None:
    answer, calls = await _answer(services, "zzyzx qqwv")
    assert calls and "read_note" not in calls, calls
    assert "I found no notes for that." in answer and "{" not in answer, answer

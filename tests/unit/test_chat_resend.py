"""Sending the last message again, edited or not: the engine replaces the last exchange.

A real profile (SQLite store, transcripts) and the scripted fake provider, through
``Services.chat_engine`` as the chat pane uses it. What is asserted is what a resumed chat reads
back (the saved transcript) and what the model is sent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.chats import transcript_lines
from tests.support.polling import scaled

from noted.chat.budget import estimate_tokens
from noted.chat.engine import ChatEngine
from noted.chat.events import ChatEvent, Done, Failed
from noted.chat.transcripts import Conversation
from noted.models import NoteDraft
from noted.ops.session import EditorSession
from noted.profile import Profile
from noted.providers import AssistantMessage, CallTool, FakeProvider, Reply, UserMessage
from noted.providers.fake import Turn
from noted.services import Services

BODY = "# Shopping\n- milk\n"
LIVENESS = scaled(120)  # seconds: only turns a hang into a failure


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    s = Services.open(Profile(tmp_path / "profile").ensure(), welcome=False)
    yield s
    s.close()


def engine_for(services: Services, *script: Turn) -> tuple[ChatEngine, FakeProvider]:
    fake = FakeProvider(list(script))
    return services.chat_engine(provider=lambda: fake), fake


async def run(
    engine: ChatEngine,
    conversation: Conversation,
    text: str,
    *,
    replacing: str = "",
    editor: EditorSession | None = None,
) -> list[ChatEvent]:
    async def consume() -> list[ChatEvent]:
        replaced = frozenset({replacing} if replacing else ())
        return [e async for e in engine.run(conversation, text, editor=editor, replacing=replaced)]

    return await asyncio.wait_for(consume(), LIVENESS)


def texts(services: Services, conversation: Conversation) -> list[str]:
    """The saved transcript, one short line per entry."""
    return transcript_lines(services, conversation.id)


async def test_an_edited_last_message_replaces_its_exchange_and_the_change_it_made_stays(
    services: Services,
) -> None:
    folder = services.store.create_folder("Home", actor="user")
    note = services.store.create_note(NoteDraft("Shopping", BODY, parent_id=folder.id), actor="user").id
    services.settings.set("ai.tool.edit_current.enabled", True)
    services.settings.set("ai.approveWrites", False)
    conversation = services.transcripts.create(note_id=note)
    engine, _ = engine_for(services, [Reply("Hello.")])
    await run(engine, conversation, "Hi", editor=EditorSession.open(services.store, note))
    engine, _ = engine_for(
        services, [CallTool("editor_append", {"text": "- tea"}, id="e1")], [Reply("Added.")]
    )
    await run(engine, conversation, "Add tea", editor=EditorSession.open(services.store, note))
    assert services.store.get_note(note).body.endswith("- tea")

    engine, fake = engine_for(services, [Reply("Coffee it is.")])
    events = await run(
        engine,
        conversation,
        "Add coffee",
        replacing="Add tea",
        editor=EditorSession.open(services.store, note),
    )

    assert events[-1] == Done("Coffee it is.")
    # The model is sent the first exchange and the edited message: nothing of the replaced one.
    (request,) = fake.requests
    sent = [m for m in request.messages if isinstance(m, UserMessage)]
    assert sent == [UserMessage("Hi"), UserMessage("Add coffee")]
    assert not any(isinstance(m, AssistantMessage) and m.text == "Added." for m in request.messages)
    # Saved: the first exchange, the change the replaced answer made (it stays made), the new one.
    lines = texts(services, conversation)
    assert lines[-3:] == ["notice: change", "user: Add coffee", "assistant: Coffee it is."]
    assert "user: Add tea" not in lines and "assistant: Added." not in lines
    assert not any("editor_append" in line for line in lines)
    assert lines.count("user: Hi") == 1
    assert services.store.get_note(note).body.endswith("- tea")


async def test_sending_the_only_message_again_asks_the_same_and_renames_an_edited_one(
    services: Services,
) -> None:
    conversation = services.transcripts.create()
    engine, first = engine_for(services, [Reply("One.")])
    await run(engine, conversation, "Question?")
    engine, again = engine_for(services, [Reply("Two.")])
    await run(engine, conversation, "Question?", replacing="Question?")

    # Regenerating sends the very same request, and the new answer replaces the old one.
    assert again.requests == first.requests
    assert texts(services, conversation) == ["user: Question?", "assistant: Two."]
    assert services.transcripts.get(conversation.id).title == "Question?"

    engine, _ = engine_for(services, [Reply("Three.")])
    await run(engine, conversation, "Better question?", replacing="Question?")
    assert texts(services, conversation) == ["user: Better question?", "assistant: Three."]
    assert services.transcripts.get(conversation.id).title == "Better question?"


async def test_a_message_never_saved_is_not_replaced_but_sent(services: Services) -> None:
    conversation = services.transcripts.create()
    engine, _ = engine_for(services, [Reply("One.")])
    await run(engine, conversation, "Kept?")
    # The person edits a message the budget refused (so never saved): the saved exchange stays.
    engine, _ = engine_for(services, [Reply("Two.")])
    await run(engine, conversation, "Shorter?", replacing="A long question refused before it was saved")
    assert texts(services, conversation) == [
        "user: Kept?",
        "assistant: One.",
        "user: Shorter?",
        "assistant: Two.",
    ]


async def test_an_edit_over_the_budget_is_refused_and_the_exchange_stays(services: Services) -> None:
    conversation = services.transcripts.create()
    engine, fake = engine_for(services, [Reply("One.")])
    await run(engine, conversation, "Short?")
    services.settings.set("ai.budgetTokens", estimate_tokens(fake.requests[0]) + 300)

    engine, refused = engine_for(services, [Reply("never sent")])
    events = await run(engine, conversation, "lorem ipsum " * 1000, replacing="Short?")

    assert isinstance(events[-1], Failed) and refused.requests == []
    # Not vacuous: the rewind is saved with the new message; a refused one must delete nothing.
    assert texts(services, conversation) == ["user: Short?", "assistant: One."]

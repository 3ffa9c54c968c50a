"""Tool call ids stay unique in a conversation, whatever ids the provider gives.

Some providers (the fake, some local servers) number their calls from 1 in each session: a chat
resumed in a new session then held two calls of one id, and their results answered the wrong call
when sent back to the model and when the chat was drawn again. The engine renames a call whose id is
taken before anything sees it; the provider's own ids are left as they come.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.unit.test_chat_engine import engine_for, make_note, of, run

from noted.chat.events import ToolCallStarted
from noted.chat.prompts import PRELOAD_CALL_ID
from noted.ops.session import EditorSession
from noted.profile import Profile
from noted.providers import AssistantMessage, CallTool, Message, Reply, ToolResultMessage
from noted.services import Services
from noted.ui.chat.data import load_chat


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    s = Services.open(Profile(tmp_path / "profile").ensure(), welcome=False)
    yield s
    s.close()


def answered(messages: list[Message]) -> dict[str, str]:
    """Each call's query, by the id of the result that answers it: results follow their calls."""
    queries: dict[str, str] = {}
    out: dict[str, str] = {}
    for message in messages:
        if isinstance(message, AssistantMessage):
            queries = {c.id: str(c.arguments.get("query")) for c in message.tool_calls}
        elif isinstance(message, ToolResultMessage):
            out[message.call_id] = queries[message.call_id]
    return out


async def test_a_resumed_chat_keeps_each_call_id_its_own(services: Services) -> None:
    note = make_note(services)
    conversation = services.transcripts.create(note_id=note)
    # Each session's provider numbers its calls from 1 (``fake_call_1``); the second also gives two
    # calls of one id in one round.
    engine, _ = engine_for(services, [CallTool("search_notes", {"query": "tea"})], [Reply("Tea.")])
    await run(engine, conversation, "Tea?", editor=EditorSession.open(services.store, note))
    again = [
        CallTool("search_notes", {"query": "milk"}),
        CallTool("search_notes", {"query": "oat"}, id="fake_call_1"),
    ]
    engine, fake = engine_for(services, again, [Reply("Milk.")])
    events = await run(engine, conversation, "Milk?", editor=EditorSession.open(services.store, note))

    sent = list(fake.requests[-1].messages)  # the last request holds every call of both sessions
    ids = [c.id for m in sent if isinstance(m, AssistantMessage) for c in m.tool_calls]
    assert len(ids) == len(set(ids)) == 4  # the preloaded note and three searches
    assert "fake_call_1" in ids  # the first session's call kept its id: only a taken one is renamed
    queries = answered(sent)  # with ids repeated, a result would answer the later call of its id
    del queries[PRELOAD_CALL_ID]
    assert sorted(queries.values()) == ["milk", "oat", "tea"]
    assert [e.call_id for e in of(events, ToolCallStarted)] == [i for i, q in queries.items() if q != "tea"]
    assert services.transcripts.messages(conversation.id) == [*sent, AssistantMessage("Milk.")]

    # Drawn again: each call's line names its own search, not the last one given that id.
    lines = load_chat(services, engine, note, conversation.id).lines
    assert sorted(lines[i] for i in queries) == ['search for "milk"', 'search for "oat"', 'search for "tea"']

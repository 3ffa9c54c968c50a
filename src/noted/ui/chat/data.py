"""What the chat pane reads from the profile, in worker threads, handed over as frozen values.

No widgets and no Textual here: the pane's workers call these and post the result.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field

from noted.chat.calls import call_line
from noted.chat.engine import ChatEngine
from noted.chat.events import BatchApplied, EditsApplied
from noted.chat.transcripts import Conversation, Entry
from noted.errors import NotedError, NotFoundError
from noted.models import Note
from noted.ops.session import EditorSession
from noted.providers import AssistantMessage, list_models
from noted.services import Services

HISTORY_LIMIT = 200
"""Saved messages shown when a conversation is resumed; older ones are counted, not drawn."""


@dataclass(frozen=True, slots=True)
class ChatView:
    """A conversation to show: the note it is about, its messages, and its note's other chats.

    Attributes:
        note_id: The note the chat is about; None for a chat about no note.
        note_title: That note's title.
        conversation: The conversation; None when the note has none yet (a new chat).
        messages: Its transcript, oldest first: the messages and the notices of failed replies.
        conversations: Every saved conversation about the note, newest first.
        size: About how many tokens the conversation takes of the budget (``ai.budgetTokens``):
            its last request and answer as the provider counted them, or an estimate.
        estimated: True when ``size`` is noted's estimate (the server reported no usage).
        lines: Each shown tool call's line by call id, naming its note by title (``call_line``).
    """

    note_id: str | None
    note_title: str | None
    conversation: Conversation | None
    messages: tuple[Entry, ...]
    conversations: tuple[Conversation, ...]
    size: int = 0
    estimated: bool = False
    lines: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Setup:
    """Whether the assistant can answer now; ``problem`` and ``hint`` say why not."""

    problem: str | None = None
    hint: str | None = None


@dataclass(frozen=True, slots=True)
class ServerModels:
    """The models the configured server offers, or the line saying why it cannot list them."""

    names: tuple[str, ...] = ()
    problem: str | None = None


def load_chat(
    services: Services, engine: ChatEngine, note_id: str | None, conversation_id: str | None = None
) -> ChatView:
    """The chosen conversation, or the note's latest one (None when it has none), with its size: as
    the provider counted its last request, or else as ``engine`` estimates the next one."""
    transcripts = services.transcripts
    note = _note(services, note_id)
    title = note.title if note else None
    if conversation_id is not None:
        conversation: Conversation | None = transcripts.get(conversation_id)
    else:
        conversation = transcripts.latest_for_note(note_id or "")
    messages = tuple(transcripts.transcript(conversation.id)) if conversation else ()
    registry, store = engine.setup.registry, services.store
    lines = {
        call.id: call_line(registry, store, call.name, call.arguments)
        for message in messages[-HISTORY_LIMIT:]
        if isinstance(message, AssistantMessage)
        for call in message.tool_calls
    }
    listed = tuple(transcripts.recent(note_id=note_id or ""))
    size, estimated = 0, False
    if conversation is not None and messages:
        size = conversation.size_tokens
        if not size:  # saved before sizes were kept, or a provider that reports no usage
            editor = EditorSession(note.id, note.title, note.body, note.updated_time) if note else None
            size, estimated = engine.size(conversation, editor), True
    return ChatView(note_id, title, conversation, messages, listed, size, estimated, lines)


def _note(services: Services, note_id: str | None) -> Note | None:
    """The note a chat is about; None for none, or one deleted elsewhere (its chat stays readable)."""
    if not note_id:
        return None
    try:
        return services.store.get_note(note_id)
    except NotFoundError:
        return None


def hint(note_id: str | None, note_title: str | None) -> str:
    """The empty chat's line: what to ask about."""
    if note_id is None:
        return "Ask the assistant about your notes."
    return f"Ask about “{note_title or 'this note'}”. The assistant reads it and may propose changes."


def undo_change(
    engine: ChatEngine, applied: EditsApplied | BatchApplied, conversation_id: str | None
) -> tuple[str | None, bool]:
    """Undo a saved change (a batch at once), as the person: what to say of it (None: the card
    says it), and whether as a warning (a batch of which some changes stay, named)."""
    if isinstance(applied, BatchApplied):
        undone = engine.undo_batch(applied, conversation_id)
        return undone.message, bool(undone.kept or undone.final)
    engine.undo(applied, conversation_id)
    return None, False


async def check_setup(services: Services) -> Setup:
    """Build the configured provider once (off the event loop) to learn whether it can answer."""
    try:
        provider = await asyncio.to_thread(services.provider)
    except NotedError as exc:
        return Setup(exc.message, exc.hint)
    await provider.aclose()
    return Setup()


async def server_models(services: Services) -> ServerModels:
    """Ask the configured server for its models (``ai.model`` need not be set)."""
    try:
        config = await asyncio.to_thread(services.provider_config)  # reads the key file
        names = await list_models(config)
    except NotedError as exc:
        return ServerModels(problem=f"{exc.message}\n→ {exc.hint}" if exc.hint else exc.message)
    if not names:
        return ServerModels(problem="the model server lists no models\n→ pull or load one there first")
    return ServerModels(tuple(names))

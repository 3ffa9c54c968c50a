"""Helpers for tests of saved chats."""

from __future__ import annotations

from noted.chat.transcripts import Notice
from noted.providers import AssistantMessage, UserMessage
from noted.services import Services


def transcript_lines(services: Services, conversation_id: str) -> list[str]:
    """The saved transcript, one short line per entry (what a resumed chat shows)."""
    lines = []
    for entry in services.transcripts.transcript(conversation_id):
        match entry:
            case UserMessage(text=text):
                lines.append(f"user: {text}")
            case AssistantMessage(text=text, tool_calls=calls):
                lines.append(f"assistant: {text}" + "".join(f" [{c.name}]" for c in calls))
            case Notice(kind=kind):
                lines.append(f"notice: {kind}")
            case _:
                lines.append("tool result")
    return lines

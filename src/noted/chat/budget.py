"""Token estimates before each request: a conversation over its budget is refused, never cut.

The estimate is deliberately simple and a little generous (about four characters a token for
text, JSON included), because the real tokenizer of a remote model is unknown. Refusing early
costs the person a new chat; silently dropping the start of the conversation would cost them a
wrong answer.
"""

from __future__ import annotations

import json

from noted.errors import NotedError
from noted.providers import AssistantMessage, ChatRequest, ToolResultMessage, UserMessage

CHARS_PER_TOKEN = 3.6


class BudgetExceeded(NotedError):
    """The conversation would not fit the token budget."""


def estimate_tokens(request: ChatRequest) -> int:
    """An estimate of the prompt tokens ``request`` will cost."""
    chars = len(request.system)
    for message in request.messages:
        if isinstance(message, UserMessage):
            chars += len(message.text) + 8
        elif isinstance(message, AssistantMessage):
            chars += len(message.text) + 8
            chars += sum(len(c.name) + len(json.dumps(dict(c.arguments))) + 16 for c in message.tool_calls)
        elif isinstance(message, ToolResultMessage):
            chars += len(message.content) + 16
    for tool in request.tools:
        chars += len(tool.name) + len(tool.description) + len(json.dumps(dict(tool.input_schema)))
    return int(chars / CHARS_PER_TOKEN) + 1


def check_budget(request: ChatRequest, budget: int) -> int:
    """The estimate, or ``BudgetExceeded`` naming the remedies when it is over ``budget``."""
    tokens = estimate_tokens(request)
    if tokens > budget:
        raise BudgetExceeded(
            f"this conversation needs about {tokens:,} tokens, over the budget of {budget:,}",
            hint="start a new chat (Ctrl+N in the chat pane, or `noted ask --new`), select the part of "
            "the note you mean, or raise ai.budgetTokens",
        )
    return tokens

"""Chat model providers: one neutral protocol, three implementations (OpenAI-compatible, Anthropic, fake).

Importing this package imports neither SDK; :func:`make_provider` imports the one it builds.
"""

from __future__ import annotations

from noted.endpoints import is_loopback_url
from noted.providers.base import (
    AssistantMessage,
    ChatProvider,
    ChatRequest,
    Finished,
    Message,
    ProviderEvent,
    StopReason,
    TextDelta,
    ToolCall,
    ToolCallArgsDelta,
    ToolCallReady,
    ToolCallStarted,
    ToolResultMessage,
    ToolSpec,
    Usage,
    UserMessage,
)
from noted.providers.config import ProviderConfig, load_api_key
from noted.providers.errors import ProviderError
from noted.providers.fake import CallTool, Fail, FakeProvider, Hang, Reply
from noted.providers.registry import PROVIDER_KINDS, list_models, make_provider

__all__ = [
    "PROVIDER_KINDS",
    "AssistantMessage",
    "CallTool",
    "ChatProvider",
    "ChatRequest",
    "Fail",
    "FakeProvider",
    "Finished",
    "Hang",
    "Message",
    "ProviderConfig",
    "ProviderError",
    "ProviderEvent",
    "Reply",
    "StopReason",
    "TextDelta",
    "ToolCall",
    "ToolCallArgsDelta",
    "ToolCallReady",
    "ToolCallStarted",
    "ToolResultMessage",
    "ToolSpec",
    "Usage",
    "UserMessage",
    "is_loopback_url",
    "load_api_key",
    "list_models",
    "make_provider",
]

"""Typed handles of the fixed settings, so code reads ``settings.get(AI_ENABLED) -> bool``.

A handle is a key with the Python type of its value. Code reads and writes settings through these
constants, so a misspelt name is a mypy error instead of a ``ConfigError`` at run time, and the
value comes back as the right type without a cast. Keys typed by a person (``noted config set``,
the settings screen) still go through ``Settings.get(key: str)``.

Each handle must name a setting of ``table.SETTINGS`` whose kind stores values of the handle's type;
``tests/unit/test_settings_handles.py`` checks every handle against the table and that every fixed
setting has one. Tool switches are made from the tool's id by :func:`tool_switch`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from noted.settings.registry import tool_key

T_co = TypeVar("T_co", covariant=True)


@dataclass(frozen=True)  # no slots: ``Setting[int](…)`` sets ``__orig_class__``, which slots refuse
class Setting(Generic[T_co]):
    """A setting's key and the type of its value (``Setting[bool]``, ``Setting[int]``…).

    Path settings are ``Setting[str]`` (the text as written); ``Settings.get_path`` turns one into a
    ``Path`` taken from the config file's folder.
    """

    key: str
    type: type[Any]
    """What ``isinstance`` checks a value against: ``bool``, ``int``, ``str``, ``tuple`` or ``Mapping``."""

    def cast(self, value: object) -> T_co:
        """``value`` as this handle's type.

        Raises:
            TypeError: the registry holds another kind of value under this key (a bug in noted,
                which the handles test catches before it ships).
        """
        wrong_int = self.type is int and isinstance(value, bool)  # bool is a subclass of int
        if wrong_int or not isinstance(value, self.type):
            raise TypeError(f"{self.key} holds {type(value).__name__}, not {self.type.__name__}")
        return cast("T_co", value)  # checked just above: T_co is self.type


def _bool(key: str) -> Setting[bool]:
    return Setting(key, bool)


def _int(key: str) -> Setting[int]:
    return Setting(key, int)


def _str(key: str) -> Setting[str]:
    return Setting(key, str)


def _list(key: str) -> Setting[tuple[str, ...]]:
    return Setting(key, tuple)


def _table(key: str) -> Setting[Mapping[str, str]]:
    return Setting(key, Mapping)


def tool_switch(tool_id: str) -> Setting[bool]:
    """The handle of ``ai.tool.<tool_id>.enabled``, a tool's on/off switch."""
    return _bool(tool_key(tool_id))


# Assistant
AI_ENABLED = _bool("ai.enabled")
AI_ALLOW_REMOTE = _bool("ai.allowRemote")
AI_PROVIDER = _str("ai.provider")
AI_MODEL = _str("ai.model")
AI_BASE_URL = _str("ai.baseUrl")
AI_API_KEY_FILE = _str("ai.apiKeyFile")
AI_APPROVE_WRITES = _bool("ai.approveWrites")
AI_BUDGET_TOKENS = _int("ai.budgetTokens")
AI_TIMEOUT_SECONDS = _int("ai.timeoutSeconds")
# Tools
EDIT_CURRENT_TOOLS = _bool("ai.tool.edit_current.enabled")
# Search
SEARCH_DEFAULT_MODE = _str("search.defaultMode")
SEARCH_RELEVANCE = _str("search.relevance")
SEARCH_INDEXER_ENABLED = _bool("search.indexer.enabled")
EMBEDDING_PROVIDER = _str("ai.embedding.provider")
EMBEDDING_MODEL = _str("ai.embedding.model")
EMBEDDING_BASE_URL = _str("ai.embedding.baseUrl")
EMBEDDING_QUERY_PREFIX = _str("ai.embedding.queryPrefix")
EMBEDDING_PASSAGE_PREFIX = _str("ai.embedding.passagePrefix")
EMBEDDING_THREADS = _int("ai.embedding.threads")
# MCP server
MCP_ENABLED = _bool("mcp.enabled")
MCP_HOST = _str("mcp.host")
MCP_PORT = _int("mcp.port")
MCP_ALLOWED_NOTEBOOKS = _list("mcp.allowedNotebooks")
MCP_TOKEN_FILE = _str("mcp.tokenFile")
MCP_ALLOWED_ORIGINS = _list("mcp.allowedOrigins")
MCP_ACTIONS_ENABLED = _bool("mcp.actions.enabled")
# Storage
BACKEND = _str("backend")
JOPLIN_URL = _str("joplin.url")
JOPLIN_TOKEN_FILE = _str("joplin.tokenFile")
JOPLIN_SYNC_COMMAND = _str("joplin.syncCommand")
# Appearance and keys
UI_THEME = _str("ui.theme")
UI_KEYMAP = _table("ui.keymap")

HANDLES: tuple[Setting[Any], ...] = tuple(v for v in list(globals().values()) if isinstance(v, Setting))
"""Every fixed handle above, for the test that checks them against the table."""

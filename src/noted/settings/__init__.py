"""Settings: every setting declared once (``handles``), stored in the profile's ``config.toml``.

Each setting is one typed declaration, ``AI_ENABLED = Setting("ai.enabled", ASSISTANT, "Use the
assistant", default=False, help=…)``, which gives its Joplin-style key, type, default, label, section
and help, and is the handle code reads it with. Values come from an environment variable named after
the key for one run (``NOTED_AI_ENABLED``; camelCase parts run together, ``NOTED_AI_ALLOWREMOTE``, or
are split by the alias ``NOTED_AI_ALLOW_REMOTE``), else from ``config.toml`` (edited with tomlkit,
comments kept, written atomically), else the default.

Secrets are never settings: API keys and tokens come from the environment or from a file a
``…File`` setting names (``credentials``), and ``Settings.set`` refuses any key that looks like one.

    settings = Settings.load(profile)
    settings.get(MCP_PORT)                        # 8765, an int to mypy
    settings.resolve("mcp.port")                  # by key, for keys a person typed: value, origin
    settings.source(AI_ENABLED)                   # "environment (NOTED_AI_ENABLED)"
    settings.set(AI_PROVIDER, "anthropic")        # validated, saved, subscribers told
    settings.register_tool_setting("update_note", title="Update a note", default=False, write=True)

This package is a leaf: it imports nothing of noted but ``errors`` and ``profile``.
"""

from __future__ import annotations

from noted.settings.core import Settings
from noted.settings.credentials import joplin_token
from noted.settings.handles import SECTIONS, SETTINGS, tool_switch
from noted.settings.registry import env_names, looks_secret
from noted.settings.resolved import ResolvedSetting, SettingChange, Source
from noted.settings.spec import Kind, Setting, SettingValue

__all__ = [
    "SECTIONS",
    "SETTINGS",
    "Kind",
    "ResolvedSetting",
    "SettingChange",
    "SettingValue",
    "Setting",
    "Settings",
    "Source",
    "env_names",
    "joplin_token",
    "looks_secret",
    "tool_switch",
]
